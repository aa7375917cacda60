import { notFound } from '../../http/errors';
import { type Drops, IGNORED_DROPS } from '../../scrape/context';
import { arr, bool, count, get, int, isObject, list, listGood, need, num, str, text, url, type Json } from '../../scrape/map';
import type * as R from './resources';
import { IMAGE_BASE, isReferralLink } from './site';

/**
 * Pure mapping of the GraphQL answers (client.ts RESOLVE_QUERY, PAGE_QUERY) to the spec's Creator
 * page resource. Field names of the upstream are those of the research note §2; the ones marked
 * "unconfirmed" there (created_at, currency, builder items, theme and banner keys of
 * `customizations`) are read defensively: absent means null, never an error. Required (`need`) are
 * only the values REQUIRED in resources.ts names: the page's influencer id, and each item's id (an
 * item without one is left out and reported to `drops`).
 */

/** `cloudinary:<public id>` -> its delivery URL; an absolute URL as it is; anything else null. */
export function imageUrl(v: unknown): string | null {
  const s = str(v)?.trim();
  if (!s) return null;
  const token = s.match(/^cloudinary:(.+)$/);
  if (token) return IMAGE_BASE + token[1]!.replace(/^\/+/, '');
  return url(s);
}

/** The influencer id the resolve query found for exactly this username (case-insensitively), or null. */
export function resolvedInfluencerId(data: Json, username: string): string | null {
  const same = (v: unknown) => str(v)?.toLowerCase() === username.toLowerCase();
  const banner = arr(get(data, 'byBanner')).find((b) => same(get(b, 'url_key')));
  const slug = arr(get(data, 'bySlug')).find((b) => same(get(b, 'slug')));
  const alias = arr(get(data, 'byAlias')).find((b) => same(get(b, 'alias')));
  return str(get(banner, 'influencer_id')) ?? str(get(slug, 'influencer_id')) ?? str(get(alias, 'id'));
}

/** The names a page answers to: its banner URL key and its alias. */
export const pageNames = (data: Json): string[] =>
  [str(get(data, 'banner', 'url_key')), str(get(data, 'influencer', 'alias'))].filter((s): s is string => s !== null).map((s) => s.toLowerCase());

const upper = (v: unknown): string | null => {
  const s = str(v)?.trim();
  return s ? s.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '') || null : null;
};

function socialUrl(platform: string, value: string): string | null {
  if (platform === 'EMAIL') return /^[^@\s]+@[^@\s]+$/.test(value.replace(/^mailto:/i, '')) ? `mailto:${value.replace(/^mailto:/i, '')}` : null;
  return url(value) ?? (/^[a-z0-9-]+(\.[a-z0-9-]+)+\//i.test(value) ? url(`https://${value}`) : null);
}

/** The page's social links: the header icons (customizations.socials) first, then connected accounts. */
export function socialLinksOf(customizations: Json, socials: Json): R.SocialLink[] {
  const out: R.SocialLink[] = [];
  const seen = new Set<string>();
  const add = (platform: string | null, u: string | null) => {
    if (!platform || !u) return;
    const key = `${platform} ${u.toLowerCase().replace(/\/+$/, '')}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ platform, url: u });
  };
  const header = get(customizations, 'socials');
  if (isObject(header)) {
    for (const [kind, entry] of Object.entries(header)) {
      const value = str(isObject(entry) ? entry.value : entry)?.trim();
      if (!value || (isObject(entry) && entry.visible === false)) continue;
      const platform = upper(kind);
      if (platform) add(platform, socialUrl(platform, value));
    }
  }
  for (const s of arr(socials)) {
    const platform = upper(get(s, 'channel'));
    const value = str(get(s, 'url'))?.trim();
    if (platform && value) add(platform, socialUrl(platform, value));
  }
  return out;
}

export function themeOf(customizations: Json): R.PageTheme {
  const t = get(customizations, 'theme');
  return {
    name: str(get(t, 'name')),
    textColor: str(get(t, 'textColor') ?? get(t, 'text_color')),
    backgroundColor: str(get(t, 'backgroundColor') ?? get(t, 'background_color')),
    itemStyle: str(get(t, 'itemStyle') ?? get(t, 'item_style')),
    itemsFont: str(get(t, 'itemsFont') ?? get(t, 'items_font')),
    isDark: bool(get(t, 'isDark') ?? get(t, 'is_dark')),
    backgroundImageUrl: imageUrl(get(t, 'backgroundImage') ?? get(t, 'backgroundImageUrl') ?? get(t, 'background_image')),
  };
}

/** An item with its visibility: hidden ones count in totalItems but are not returned. */
interface Candidate {
  item: R.PageItem;
  hidden: boolean;
}

const HIDDEN_STATUS = new Set(['HIDDEN', 'INACTIVE', 'DRAFT', 'ARCHIVED', 'DISABLED']);
const hiddenBy = (status: unknown, visible: unknown) => visible === false || HIDDEN_STATUS.has(upper(status) ?? '');
const deleted = (status: unknown) => upper(status) === 'DELETED';

const emptyItem = { title: null, subtitle: null, url: null, imageUrl: null, cta: null, price: null, currency: null, brandName: null, text: null, blocks: null };

function customLink(l: Json): Candidate | null {
  const d = get(l, 'data');
  const target = url(get(d, 'url'));
  if (deleted(get(l, 'status')) || (target && isReferralLink(target))) return null;
  const id = need(str(get(l, 'link_id')), 'custom link id');
  return {
    hidden: hiddenBy(get(l, 'status'), get(d, 'visible')),
    item: {
      ...emptyItem,
      id,
      type: 'CUSTOM_LINK',
      title: str(get(d, 'tagline')) ?? str(get(d, 'title')) ?? str(get(d, 'cta')),
      subtitle: str(get(d, 'description')),
      url: target,
      imageUrl: imageUrl(get(d, 'thumbnail_image') ?? get(d, 'image')),
      cta: str(get(d, 'cta')),
      clicks: count(get(l, 'clicks')),
      order: int(get(l, 'order')),
    },
  };
}

function featuredProduct(p: Json): Candidate | null {
  if (deleted(get(p, 'status'))) return null;
  const id = need(str(get(p, 'product_id')), 'product id');
  const description = str(get(p, 'description'));
  return {
    hidden: hiddenBy(get(p, 'status'), get(p, 'visible')),
    item: {
      ...emptyItem,
      id,
      type: 'FEATURED_PRODUCT',
      title: str(get(p, 'name')),
      subtitle: description,
      url: url(get(p, 'url')),
      imageUrl: imageUrl(get(p, 'image')),
      clicks: count(get(p, 'clicks')),
      order: int(get(p, 'order')),
      // A price the creator chose not to show is not returned.
      price: get(p, 'show_price') === false ? null : num(get(p, 'price')),
      currency: str(get(p, 'currency'))?.toUpperCase() ?? null,
      brandName: str(get(p, 'brand_name')),
      text: description,
    },
  };
}

function builderItem(b: Json, drops: Drops): Candidate | null {
  if (deleted(get(b, 'status'))) return null;
  const id = need(str(get(b, 'id')), 'builder item id');
  const type = need(upper(get(b, 'type')), 'builder item type');
  const d = get(b, 'data');
  const children = get(d, 'items') ?? get(d, 'blocks');
  return {
    hidden: hiddenBy(get(b, 'status'), get(b, 'visible') ?? get(d, 'visible')),
    item: {
      ...emptyItem,
      id,
      type,
      title: str(get(d, 'title')),
      subtitle: str(get(d, 'subtitle')) ?? str(get(d, 'description')),
      url: url(get(d, 'url')),
      imageUrl: imageUrl(get(d, 'image') ?? get(d, 'thumbnail_image')),
      cta: str(get(d, 'cta')),
      clicks: count(get(b, 'clicks')),
      order: int(get(b, 'order')),
      price: num(get(d, 'price')),
      currency: str(get(d, 'currency'))?.toUpperCase() ?? null,
      text: text(get(d, 'text')) ?? str(get(d, 'description')),
      blocks: Array.isArray(children)
        ? listGood(
            children,
            (c): R.ItemBlock | null => {
              if (get(c, 'visible') === false || deleted(get(c, 'status'))) return null;
              return { id: need(str(get(c, 'id')), 'block id'), type: upper(get(c, 'type')), title: str(get(c, 'title')), url: url(get(c, 'url')), imageUrl: imageUrl(get(c, 'image') ?? get(c, 'thumbnail_image')) };
            },
            'block',
            drops,
          )
        : null,
    },
  };
}

/** Items by `order` (an item never ordered goes last), stable between kinds; an item without its id is left out and reported. */
export function itemsOf(data: Json, drops: Drops = IGNORED_DROPS): { items: R.PageItem[]; totalItems: number } {
  const all = [
    ...listGood(get(data, 'links'), customLink, 'item', drops),
    ...listGood(get(data, 'products'), featuredProduct, 'item', drops),
    ...listGood(get(data, 'builderItems'), (b) => builderItem(b, drops), 'item', drops),
  ];
  const visible = all
    .filter((c) => !c.hidden)
    .map((c) => c.item)
    .sort((a, b) => (a.order ?? Number.MAX_SAFE_INTEGER) - (b.order ?? Number.MAX_SAFE_INTEGER));
  return { items: visible, totalItems: all.length };
}

/** A timestamp kept as the upstream wrote it (offset and all), if it is one. */
const dateWithOffset = (v: unknown): string | null => {
  const s = str(v)?.trim();
  return s && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(s) && !Number.isNaN(Date.parse(s)) ? s : null;
};

export function mapPage(data: Json, username: string, drops: Drops = IGNORED_DROPS): R.CreatorPage {
  const influencer = get(data, 'influencer');
  if (!isObject(influencer)) throw notFound();
  const user = get(influencer, 'user');
  const customizations = get(data, 'banner', 'customizations');
  const name = str(get(user, 'full_name'))?.trim() || [str(get(user, 'first_name')), str(get(user, 'last_name'))].filter(Boolean).join(' ').trim() || null;
  const influencerId = need(str(get(influencer, 'id')), 'influencer id');
  const { items, totalItems } = itemsOf(data, drops);
  return {
    username: str(get(data, 'banner', 'url_key')) ?? str(get(influencer, 'alias')) ?? username,
    name,
    displayName: str(get(customizations, 'user_alias'))?.trim() || name,
    tagline: str(get(customizations, 'tagline')) ?? str(get(user, 'title')),
    location: str(get(customizations, 'location')),
    bannerImageUrl: imageUrl(get(customizations, 'banner_image') ?? get(customizations, 'bannerImage')),
    avatarUrl: imageUrl(get(user, 'profile_image')),
    influencerId,
    userId: str(get(user, 'id')),
    createdAt: dateWithOffset(get(influencer, 'created_at')) ?? dateWithOffset(get(user, 'created_at')),
    theme: themeOf(customizations),
    socialLinks: socialLinksOf(customizations, get(influencer, 'socials')),
    items,
    itemCount: items.length,
    totalItems,
  };
}
