import * as v from 'valibot';
import { bool, dateTime, deviation, int, nnum, nstr, str, upperCase } from '../../scrape/resource';

/**
 * linkpage: the "Creator page" resource (`data.page`) as a precise valibot schema (conventions in
 * shared/scrape/resource.ts). Shapes the spec leaves open (`blocks`, and what `itemCount` and
 * `totalItems` count) are chosen here and documented in the README ("linkpage creator page").
 */
const NO_VALUE = 'null where the upstream has no value to give, rather than an invented one';

/** One entry of a collection item: `blocks` of a COLLECTION, null for every other kind. */
export const ItemBlock = v.object({
  id: str,
  type: upperCase,
  title: nstr,
  url: nstr,
  imageUrl: nstr,
});

export const PageItem = v.object({
  id: str,
  /** CUSTOM_LINK, FEATURED_PRODUCT, EXPERIENCE, VIDEO, COLLECTION (any other upper-case kind as given). */
  type: upperCase,
  title: nstr,
  subtitle: nstr,
  url: nstr,
  imageUrl: nstr,
  cta: nstr,
  clicks: deviation(v.nullable(int), `${NO_VALUE}: featured products carry no click count, and an item the upstream sends without \`clicks\` has none`),
  order: deviation(v.nullable(int), `${NO_VALUE}: an item its creator never reordered has no order upstream (listed last)`),
  price: nnum,
  currency: deviation(nstr, `${NO_VALUE}: only products have a currency, and not every product states one`),
  brandName: deviation(nstr, `${NO_VALUE}: only featured products have a brand`),
  text: nstr,
  blocks: v.nullable(v.array(ItemBlock)),
});

export const PageTheme = v.object({
  name: deviation(nstr, `${NO_VALUE}: a page keeps only the theme settings its creator changed`),
  textColor: deviation(nstr, `${NO_VALUE}: a page keeps only the theme settings its creator changed`),
  backgroundColor: deviation(nstr, `${NO_VALUE}: a page keeps only the theme settings its creator changed`),
  itemStyle: deviation(nstr, `${NO_VALUE}: a page keeps only the theme settings its creator changed`),
  itemsFont: deviation(nstr, `${NO_VALUE}: a page keeps only the theme settings its creator changed`),
  isDark: deviation(v.nullable(bool), `${NO_VALUE}: a page keeps only the theme settings its creator changed`),
  backgroundImageUrl: nstr,
});

export const SocialLink = v.object({
  platform: upperCase,
  /** An e-mail entry is a mailto: URL. */
  url: str,
});

export const CreatorPage = v.object({
  username: str,
  name: str,
  displayName: str,
  tagline: nstr,
  location: nstr,
  bannerImageUrl: nstr,
  avatarUrl: deviation(nstr, `${NO_VALUE}: a creator without a profile picture`),
  influencerId: str,
  userId: str,
  /** With its offset, as the upstream gives it ("2023-04-18T17:22:31.512344+00:00"). */
  createdAt: dateTime,
  theme: PageTheme,
  socialLinks: v.array(SocialLink),
  /** Visible items, by `order`. */
  items: v.array(PageItem),
  /** Items returned (= items.length). */
  itemCount: int,
  /** Items the page has, hidden ones included (deleted ones are gone); >= itemCount. */
  totalItems: int,
});
export type CreatorPage = v.InferOutput<typeof CreatorPage>;
export type PageItem = v.InferOutput<typeof PageItem>;
export type ItemBlock = v.InferOutput<typeof ItemBlock>;
export type SocialLink = v.InferOutput<typeof SocialLink>;
export type PageTheme = v.InferOutput<typeof PageTheme>;

export const PageData = v.object({ page: CreatorPage });
export type PageData = v.InferOutput<typeof PageData>;
