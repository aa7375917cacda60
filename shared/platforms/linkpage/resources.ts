import * as v from 'valibot';
import { anyOrNull, bool, dateTime, given, int, nnum, nstr, str, upperCase } from '../../scrape/resource';

/**
 * linkpage: the spec's resources as valibot schemas (see shared/scrape/resource.ts for the
 * conventions). The operation table names each operation's `data` schema from here; mappers return
 * their output types, and the contract tests validate every response against them.
 */
const linkpageItem = v.looseObject({
  id: str,
  type: upperCase,
  title: nstr,
  subtitle: nstr,
  url: nstr,
  imageUrl: nstr,
  cta: nstr,
  clicks: int,
  order: int,
  price: nnum,
  currency: given,
  brandName: given,
  text: anyOrNull,
  blocks: anyOrNull,
});
export const linkpagePage = v.looseObject({
  username: str,
  name: str,
  displayName: str,
  tagline: nstr,
  location: nstr,
  bannerImageUrl: nstr,
  avatarUrl: str,
  influencerId: str,
  userId: str,
  createdAt: dateTime, // "date-time with offset"
  theme: v.looseObject({
    name: str,
    textColor: str,
    backgroundColor: str,
    itemStyle: str,
    itemsFont: str,
    isDark: bool,
    backgroundImageUrl: anyOrNull,
  }),
  socialLinks: v.array(v.looseObject({ platform: upperCase, url: str })),
  items: v.array(linkpageItem),
  itemCount: int,
  totalItems: int,
});
export const PageData = v.looseObject({ page: linkpagePage });
