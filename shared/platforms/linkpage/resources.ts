import * as v from 'valibot';
import { NO_VALUE, type RequiredValues, boolean, dateTime, deviation, integer, numberOrNull, omitted, required, string, stringOrNull, upperCase } from '../../scrape/resource';

/**
 * linkpage: the "Creator page" resource (`data.page`) as a precise valibot schema (conventions in
 * shared/scrape/resource.ts). Shapes the spec leaves open (`blocks`, and what `itemCount` and
 * `totalItems` count) are chosen here and documented in the README ("linkpage creator page").
 */

/** One entry of a collection item: `blocks` of a COLLECTION, null for every other kind. */
export const ItemBlock = v.object({
  id: string,
  /** Upper-case; null for a block that states no type. */
  type: v.nullable(upperCase),
  title: stringOrNull,
  url: stringOrNull,
  imageUrl: stringOrNull,
});

export const PageItem = v.object({
  id: string,
  /** CUSTOM_LINK, FEATURED_PRODUCT, EXPERIENCE, VIDEO, COLLECTION (any other upper-case kind as given). */
  type: upperCase,
  title: stringOrNull,
  subtitle: stringOrNull,
  url: stringOrNull,
  imageUrl: stringOrNull,
  cta: stringOrNull,
  clicks: deviation(v.nullable(integer), `${NO_VALUE}: featured products carry no click count, and an item the upstream sends without \`clicks\` has none`),
  order: deviation(v.nullable(integer), `${NO_VALUE}: an item its creator never reordered has no order upstream (listed last)`),
  price: numberOrNull,
  currency: deviation(stringOrNull, `${NO_VALUE}: only products have a currency, and not every product states one`),
  brandName: deviation(stringOrNull, `${NO_VALUE}: only featured products have a brand`),
  text: stringOrNull,
  blocks: v.nullable(v.array(ItemBlock)),
});

export const PageTheme = v.object({
  name: deviation(stringOrNull, `${NO_VALUE}: a page keeps only the theme settings its creator changed`),
  textColor: deviation(stringOrNull, `${NO_VALUE}: a page keeps only the theme settings its creator changed`),
  backgroundColor: deviation(stringOrNull, `${NO_VALUE}: a page keeps only the theme settings its creator changed`),
  itemStyle: deviation(stringOrNull, `${NO_VALUE}: a page keeps only the theme settings its creator changed`),
  itemsFont: deviation(stringOrNull, `${NO_VALUE}: a page keeps only the theme settings its creator changed`),
  isDark: deviation(v.nullable(boolean), `${NO_VALUE}: a page keeps only the theme settings its creator changed`),
  backgroundImageUrl: stringOrNull,
});

export const SocialLink = v.object({
  platform: upperCase,
  /** An e-mail entry is a mailto: URL. */
  url: string,
});

export const CreatorPage = v.object({
  username: string,
  name: omitted(string),
  /** The page's alias, else the creator's name. */
  displayName: omitted(string),
  tagline: stringOrNull,
  location: stringOrNull,
  bannerImageUrl: stringOrNull,
  avatarUrl: deviation(stringOrNull, `${NO_VALUE}: a creator without a profile picture`),
  influencerId: string,
  userId: omitted(string),
  /** With its offset, as the upstream gives it ("2023-04-18T17:22:31.512344+00:00"). */
  createdAt: omitted(dateTime),
  theme: PageTheme,
  socialLinks: v.array(SocialLink),
  /** Visible items, by `order`. */
  items: v.array(PageItem),
  /** Items returned (= items.length). */
  itemCount: integer,
  /** Items the page has, hidden ones included (deleted ones are gone); >= itemCount. */
  totalItems: integer,
});
export type CreatorPage = v.InferOutput<typeof CreatorPage>;
export type PageItem = v.InferOutput<typeof PageItem>;
export type ItemBlock = v.InferOutput<typeof ItemBlock>;
export type SocialLink = v.InferOutput<typeof SocialLink>;
export type PageTheme = v.InferOutput<typeof PageTheme>;

export const PageData = v.object({ page: CreatorPage });
export type PageData = v.InferOutput<typeof PageData>;

/**
 * What operation 6 cannot build without (issue 31): the page's influencer id (the page is asked for
 * by it, research note upstream-professional-linkpage-citygame.md §2), and each item's own id (its
 * link_id, product_id or id; a builder item also its type). An item or block without one is left out
 * and counted; every other value is null when the answer leaves it out.
 */
export const REQUIRED: readonly RequiredValues[] = [
  required('page', 'page', { influencerId: 'influencer.id' }, 'research note upstream-professional-linkpage-citygame.md §2 (the page query by influencer id)'),
  required('item', 'page.items[]', { id: 'links[].link_id | products[].product_id | builderItems[].id', type: 'builderItems[].type' }, 'research note upstream-professional-linkpage-citygame.md §2 (links, products, builder items)'),
];
