import { ApiError, extractionFailed } from '../../http/errors';
import { elementText, jsonLd, metaContent, parseDocument } from '../../scrape/html';
import { type Drops, IGNORED_DROPS } from '../../scrape/context';
import { arr, count, get, isObject, isoDate, list, need, orDropped, str, url, type Json } from '../../scrape/map';
import type * as R from './resources';
import { SIGN_IN_MESSAGE, WALL_PAGE, activityUrl, isPlaceholderImage } from './site';

/**
 * Pure mapping of a logged-out post or article page to the `content` resource. JSON-LD first (it
 * carries exact dates, counts and the full text), then the page's own data attributes and DOM.
 * Selectors and quirks: research note "upstream-professional-linkpage-citygame.md", §1.4-1.7.
 */

const POST_PAGE_KEY = 'd_public_post';
const ARTICLE_PAGE_KEY = 'd_flagship2_pulse_read';
const POST_TYPES = new Set(['SocialMediaPosting', 'DiscussionForumPosting', 'VideoObject']);
const ARTICLE_TYPES = new Set(['Article', 'NewsArticle', 'BlogPosting']);

// ---- small readers ----------------------------------------------------------------------------

/** "1,157" / "1 157" / " 25 " / 25 -> an integer >= 0, else null. */
export function countOf(v: unknown): number | null {
  if (typeof v === 'number') return count(v);
  if (typeof v !== 'string') return null;
  const m = v.replace(/[\s\u00a0\u202f]/g, '').match(/^\d{1,3}(?:[,.]\d{3})+|^\d+/);
  return m ? count(m[0].replace(/[,.]/g, '')) : null;
}

/** A URL without its query and fragment (tracking parameters), otherwise as the page wrote it, or null. */
export function withoutQuery(v: unknown): string | null {
  const u = url(v);
  return u ? u.replace(/[?#].*$/s, '') : null;
}

/** ISO 8601 duration (PT1M18S) -> seconds. */
export function durationSeconds(v: unknown): number | null {
  if (typeof v === 'number') return count(v);
  const m = typeof v === 'string' ? v.match(/^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/) : null;
  if (!m || v === 'P' || v === 'PT') return null;
  const [, d, h, min, s] = m;
  return Math.round(Number(d ?? 0) * 86_400 + Number(h ?? 0) * 3600 + Number(min ?? 0) * 60 + Number(s ?? 0));
}

/** Text of an element, whitespace collapsed, or null. */
const line = (el: Element | null | undefined): string | null => {
  const t = el?.textContent?.replace(/\s+/g, ' ').trim();
  return t ? t : null;
};
const attr = (el: Element | null | undefined, name: string): string | null => str(el?.getAttribute(name));
const imageOf = (el: Element | null | undefined): string | null => {
  const u = url(attr(el, 'data-delayed-url') ?? attr(el, 'src'));
  return u && !isPlaceholderImage(u) ? u : null;
};

/** schema.org InteractionCounter list (or one counter): the count of the action named `kind`. */
function interaction(stats: unknown, kind: string): number | null {
  const all = Array.isArray(stats) ? stats : [stats];
  const hit = all.find((s) => String(get(s, 'interactionType') ?? '').endsWith(kind));
  return hit ? count(get(hit, 'userInteractionCount')) : null;
}

/** `image` of a JSON-LD node: an ImageObject, a URL string, or a list of either. */
const ldImage = (v: unknown): string | null => {
  const first = Array.isArray(v) ? v[0] : v;
  return url(typeof first === 'string' ? first : get(first, 'url'));
};

const HASHTAG = /(?:^|[^\p{L}\p{N}_&/])#([\p{L}\p{N}_]{1,100})/gu;
/** Hashtags in the order they first appear, each once (case-insensitively). */
export function hashtagsOf(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const m of text.matchAll(HASHTAG)) {
    const tag = m[1]!;
    if (/^\d+$/.test(tag) || seen.has(tag.toLowerCase())) continue;
    seen.add(tag.toLowerCase());
    out.push(tag);
  }
  return out;
}

/** Publication time encoded in an activity id (its top 41 bits are milliseconds since 1970). */
export function activityTime(id: string | null): string | null {
  if (!id || !/^\d{15,20}$/.test(id)) return null;
  return isoDate(Number(BigInt(id) >> 22n));
}

const activityIdIn = (v: string | null | undefined): string | null => v?.match(/(?:urn:li:activity:|-activity-)(\d{15,20})/)?.[1] ?? null;

// ---- the page -----------------------------------------------------------------------------------

export interface ContentPage {
  kind: 'post' | 'article';
  doc: Document;
  /** The post or article JSON-LD node. */
  node: Record<string, unknown>;
}

function ldNodes(doc: Document): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const n of jsonLd(doc)) {
    if (!isObject(n)) continue;
    out.push(n);
    for (const g of arr(n['@graph'])) if (isObject(g)) out.push(g);
  }
  return out;
}

const typeIn = (node: Record<string, unknown>, types: ReadonlySet<string>) => arr(node['@type']).concat(node['@type']).some((t) => typeof t === 'string' && types.has(t));

/**
 * The page as content: a post only when its page key says d_public_post AND a posting JSON-LD node
 * exists, an article only when the key says d_flagship2_pulse_read AND an Article node exists
 * (research §1.3). A wall in its place (the auth wall, a login or checkpoint page, the 999 page) is
 * UPSTREAM_BLOCKED; any other page is EXTRACTION_FAILED naming what it lacks, so that changed
 * markup is not taken for a block.
 */
export function readContentPage(html: string): ContentPage {
  const doc = parseDocument(html);
  const pageKey = metaContent(doc, 'pageKey');
  const nodes = ldNodes(doc);
  if (pageKey === POST_PAGE_KEY) {
    const node = nodes.find((n) => typeIn(n, POST_TYPES));
    if (node) return { kind: 'post', doc, node };
  } else if (pageKey === ARTICLE_PAGE_KEY) {
    const node = nodes.find((n) => typeIn(n, ARTICLE_TYPES));
    if (node) return { kind: 'article', doc, node };
  }
  const seen = `pageKey ${pageKey ?? 'none'}, JSON-LD types [${nodes.flatMap((n) => arr(n['@type']).concat(n['@type'])).filter((t) => typeof t === 'string').join(', ')}], ${html.length} bytes`;
  if (WALL_PAGE.test(html)) throw new ApiError('UPSTREAM_BLOCKED', SIGN_IN_MESSAGE, { internal: `professional: a sign-in wall in place of the content (${seen})` });
  const lacks =
    pageKey === POST_PAGE_KEY ? 'no SocialMediaPosting, DiscussionForumPosting or VideoObject JSON-LD node'
    : pageKey === ARTICLE_PAGE_KEY ? 'no Article JSON-LD node'
    : `neither page key ${POST_PAGE_KEY} nor ${ARTICLE_PAGE_KEY}`;
  throw extractionFailed(`professional: not a content page: ${lacks} (${seen})`);
}

/** The canonical URL the page names for itself, else the one requested. */
function canonicalOf(doc: Document, node: Json, requested: string): string {
  const link = doc.querySelector('link[rel="canonical"]');
  return withoutQuery(attr(link, 'href')) ?? withoutQuery(get(node, '@id')) ?? withoutQuery(get(node, 'url')) ?? withoutQuery(metaContent(doc, 'og:url')) ?? requested;
}

/** og:description without the " | 20 comments on <site>" tail. */
function excerptOf(doc: Document): string | null {
  const d = metaContent(doc, 'og:description') ?? metaContent(doc, 'description');
  return d ? str(d.replace(/\s*\|\s*\d[\d,.]*\s+comments?\s+on\s+\S+\s*$/i, '').trim()) : null;
}

function authorOf(node: Json, lockup: { name?: Element | null; image?: Element | null; followers?: Element | null }): R.ContentAuthor {
  const a = get(node, 'author') ?? get(node, 'creator');
  const person = Array.isArray(a) ? a[0] : a;
  const ldFollowers = interaction(get(person, 'interactionStatistic'), 'FollowAction');
  // Company pages report 0 followers in the JSON-LD (hidden); the page prints the real count.
  const printed = countOf(lockup.followers?.textContent?.match(/([\d.,\s\u00a0]+)\s*followers?/i)?.[1]);
  const isOrganization = get(person, '@type') === 'Organization';
  return {
    name: need(str(get(person, 'name'))?.trim() ?? line(lockup.name), 'author name'),
    url: withoutQuery(get(person, 'url')) ?? withoutQuery(attr(lockup.name, 'href')),
    imageUrl: ldImage(get(person, 'image')) ?? imageOf(lockup.image),
    // A count of 0 in the JSON-LD is what a company page shows there (hidden): the printed count first then.
    followerCount: (ldFollowers ? ldFollowers : null) ?? printed ?? (isOrganization ? null : ldFollowers),
  };
}

/** The comments the page shows: the DOM (names, profile links), timed and counted from the JSON-LD. */
function commentsOf(scope: ParentNode, node: Json): R.ContentComment[] {
  const ld = arr(get(node, 'comment'));
  const ldName = (c: unknown) => str(get(c, 'author', 'name') ?? get(c, 'creator', 'name'))?.trim();
  const sections = Array.from(scope.querySelectorAll('section.comment'));
  if (sections.length === 0) {
    return list(ld, (c) => {
      const authorName = ldName(c);
      const text = str(get(c, 'text'));
      if (!authorName || !text) return null;
      return { authorName, authorUrl: withoutQuery(get(c, 'author', 'url') ?? get(c, 'creator', 'url')), text, createdAt: isoDate(get(c, 'datePublished')), likeCount: interaction(get(c, 'interactionStatistic'), 'LikeAction') };
    });
  }
  return list(sections, (section, i) => {
    const s = section as Element;
    const author = s.querySelector('a.comment__author');
    const textEl = s.querySelector('.comment__text');
    const authorName = line(author);
    if (!authorName || !textEl) return null;
    const match = ld.find((c, j) => j === i && ldName(c) === authorName) ?? ld.find((c) => ldName(c) === authorName);
    // The visible reaction count (a hidden twin carries the count "if you reacted too").
    const reactions = Array.from(s.querySelectorAll('.comment__reactions-count')).find((el) => !el.classList.contains('hidden'));
    return {
      authorName,
      authorUrl: withoutQuery(attr(author, 'href')),
      text: elementText(textEl),
      createdAt: isoDate(get(match, 'datePublished')),
      likeCount: countOf(reactions?.textContent) ?? interaction(get(match, 'interactionStatistic'), 'LikeAction'),
    };
  });
}

/** True when `el` belongs to `card` itself, not to a post nested in it (a reshare). */
const ownedBy = (el: Element, card: Element) => el.closest('article') === card;

function imagesOf(card: Element): R.ContentImage[] {
  const seen = new Set<string>();
  return list(Array.from(card.querySelectorAll('[data-test-id="feed-images-content"] img')), (img) => {
    const el = img as Element;
    if (!ownedBy(el, card)) return null;
    const u = imageOf(el);
    if (!u) return null;
    const media = u.match(/\/image\/v2\/([^/]+)\//)?.[1] ?? u;
    if (seen.has(media)) return null;
    seen.add(media);
    return { url: u, width: countOf(attr(el, 'width')), height: countOf(attr(el, 'height')), alt: str(el.getAttribute('alt')?.trim()) };
  });
}

function videoOf(card: Element, node: Json, isVideoNode: boolean): R.ContentMediaOut {
  const video = Array.from(card.querySelectorAll('video')).find((el) => ownedBy(el, card));
  if (!video && !isVideoNode) return null;
  let best: string | null = null;
  let bestRate = -1;
  try {
    for (const s of arr(JSON.parse(attr(video, 'data-sources') ?? '[]'))) {
      const src = url(get(s, 'src'));
      const rate = count(get(s, 'data-bitrate')) ?? 0;
      if (src && rate > bestRate) [best, bestRate] = [src, rate];
    }
  } catch {
    /* the JSON-LD contentUrl below */
  }
  const v = isVideoNode ? node : undefined;
  const streamUrl = best ?? url(get(v, 'contentUrl'));
  if (!streamUrl) return null;
  return {
    type: 'video',
    streamUrl,
    thumbnailUrl: url(attr(video, 'data-poster-url')) ?? url(get(v, 'thumbnailUrl')),
    durationSeconds: durationSeconds(get(v, 'duration')),
    width: count(get(v, 'width')),
    height: count(get(v, 'height')),
    embedUrl: url(get(v, 'embedUrl')),
  };
}

function documentOf(card: Element): R.ContentMediaOut {
  const frame = Array.from(card.querySelectorAll('iframe[data-native-document-config]')).find((el) => ownedBy(el, card));
  if (!frame) return null;
  let doc: unknown;
  try {
    doc = get(JSON.parse(attr(frame, 'data-native-document-config') ?? ''), 'doc');
  } catch {
    throw extractionFailed('professional: a document post whose document config does not parse');
  }
  return {
    type: 'document',
    sourceUrl: url(get(doc, 'manifestUrl')),
    title: str(get(doc, 'title')),
    pageCount: count(get(doc, 'totalPageCount')) ?? countOf(get(doc, 'subtitle')),
    slideImageUrls: list(get(doc, 'coverPages'), (p) => url(get(p, 'config', 'src'))),
  };
}

/** A title the page shows, unless it is the generic "<Author>’s Post". */
function postTitle(doc: Document, node: Json, authorName: string): string | null {
  const h1 = line(doc.querySelector('h1.section-title'));
  if (h1 && !/[’']s? Post$/.test(h1)) return h1;
  const og = metaContent(doc, 'og:title');
  const cut = og?.indexOf(` | ${authorName}`) ?? -1;
  if (og && cut > 0) return og.slice(0, cut).trim();
  return str(get(node, 'headline')) ?? str(get(node, 'name'));
}

/** A reshared post, from its nested card (the JSON-LD only has its text). */
function resharedOf(card: Element, node: Json): R.ResharedContent | null {
  const inner = card.querySelector('article[data-test-id="feed-reshare-content"]');
  if (!inner) return null;
  const id = activityIdIn(attr(inner, 'data-activity-urn'));
  const commentary = inner.querySelector('[data-test-id="feed-reshare-content__commentary"]');
  const body = commentary ? elementText(commentary) : (str(get(node, 'sharedContent', 'headline')) ?? '');
  const shared = get(node, 'sharedContent');
  const author = authorOf(isObject(get(shared, 'author')) ? shared : {}, {
    name: inner.querySelector('a[data-tracking-control-name$="reshare_feed-actor-name"]'),
    image: inner.querySelector('a[data-tracking-control-name$="reshare_feed-actor-image"] img'),
    followers: inner.querySelector('[data-test-id="feed-reshare-content__entity-lockup"] p'),
  });
  const images = imagesOf(inner);
  return {
    type: 'post',
    id: need(id, 'reshared post id'),
    url: activityUrl(id!),
    title: null,
    excerpt: null,
    body,
    coverImageUrl: images[0]?.url ?? null,
    author,
    publishedAt: activityTime(id),
    modifiedAt: null,
    readingTimeMinutes: null,
    likeCount: null,
    commentCount: null,
    comments: [],
    relatedArticles: [],
    images,
    media: videoOf(inner, {}, false) ?? documentOf(inner),
    hashtags: hashtagsOf(body),
    reshared: null,
  };
}

export function mapPost(page: ContentPage, requestedUrl: string, drops: Drops = IGNORED_DROPS): R.Content {
  const { doc, node } = page;
  const card = need(doc.querySelector('article.main-feed-activity-card:not(.related-posts__crosslink)'), 'post card');
  const url_ = canonicalOf(doc, node, requestedUrl);
  const id = need(activityIdIn(url_) ?? activityIdIn(metaContent(doc, 'lnkd:url')) ?? activityIdIn(attr(card, 'data-activity-urn')), 'activity id');
  const lockup = card.querySelector('[data-test-id="main-feed-activity-card__entity-lockup"]');
  const author = authorOf(node, {
    name: lockup?.querySelector('a[data-tracking-control-name="public_post_feed-actor-name"]'),
    image: lockup?.querySelector('a[data-tracking-control-name="public_post_feed-actor-image"] img'),
    followers: lockup?.querySelector('p'),
  });
  const isVideo = typeIn(node, new Set(['VideoObject']));
  const commentary = Array.from(card.querySelectorAll('[data-test-id="main-feed-activity-card__commentary"]')).find((el) => ownedBy(el, card));
  const body = str(get(node, 'articleBody')) ?? (isVideo ? str(get(node, 'description')) : null) ?? (commentary ? elementText(commentary) : '');
  const reactions = Array.from(card.querySelectorAll('[data-test-id="social-actions__reactions"]')).find((el) => ownedBy(el, card));
  const commentsLink = Array.from(card.querySelectorAll('[data-test-id="social-actions__comments"]')).find((el) => ownedBy(el, card));
  const og = metaContent(doc, 'og:image');
  const images = imagesOf(card);
  const media = videoOf(card, node, isVideo) ?? documentOf(card);
  return {
    type: 'post',
    id,
    url: url_,
    title: postTitle(doc, node, author.name),
    excerpt: excerptOf(doc) ?? str(get(node, 'headline')),
    body,
    coverImageUrl:
      (og && !isPlaceholderImage(og) ? url(og) : null) ??
      ldImage(get(node, 'image')) ??
      url(get(node, 'thumbnailUrl')) ??
      images[0]?.url ??
      (media?.type === 'document' ? (media.slideImageUrls[0] ?? null) : null),
    author,
    publishedAt: isoDate(get(node, 'datePublished')) ?? isoDate(get(node, 'uploadDate')) ?? activityTime(id),
    modifiedAt: isoDate(get(node, 'dateModified')),
    readingTimeMinutes: null,
    likeCount: interaction(get(node, 'interactionStatistic'), 'LikeAction') ?? countOf(attr(reactions, 'data-num-reactions')) ?? countOf(line(reactions)),
    commentCount: count(get(node, 'commentCount')) ?? interaction(get(node, 'interactionStatistic'), 'CommentAction') ?? countOf(attr(commentsLink, 'data-num-comments')) ?? countOf(line(commentsLink)),
    comments: commentsOf(card, node),
    relatedArticles: [],
    images,
    media,
    hashtags: hashtagsOf(body),
    reshared: orDropped(() => resharedOf(card, node), 'reshared post', drops),
  };
}

/** Source whitespace of ordinary HTML (not pre-wrapped) collapsed, as a browser renders it. */
function collapseWhitespace(root: Node): void {
  for (let child = root.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 3) (child as Text).data = (child as Text).data.replace(/\s+/g, ' ');
    else if (child.nodeType === 1 && (child as Element).localName !== 'pre') collapseWhitespace(child);
  }
}

/** Article body: its content blocks as text (paragraphs apart, <br> kept), cards of other articles left out. */
function articleBody(doc: Document, node: Json): string {
  const blocks = doc.querySelector('[data-test-id="article-content-blocks"]');
  if (blocks) {
    collapseWhitespace(blocks);
    const raw = elementText(blocks, (el) => (el.classList.contains('inline-articles') || el.classList.contains('content-author-card') ? 'skip' : undefined));
    const text = raw
      .split('\n')
      .map((l) => l.trim())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim();
    if (text) return text;
  }
  return str(get(node, 'articleBody')) ?? '';
}

function readingTime(doc: Document, body: string): number | null {
  const printed = countOf(metaContent(doc, 'twitter:data2')?.match(/\d+/)?.[0]);
  if (printed !== null) return printed;
  const words = body.split(/\s+/).filter(Boolean).length;
  return words ? Math.max(1, Math.ceil(words / 225)) : null;
}

function relatedArticlesOf(doc: Document): R.RelatedArticle[] {
  const seen = new Set<string>();
  return list(Array.from(doc.querySelectorAll('section.stacked-articles li')), (li) => {
    const el = li as Element;
    const link = el.querySelector('a.base-card__full-link') ?? el.querySelector('a[href*="/pulse/"]');
    const href = withoutQuery(attr(link, 'href'));
    const title = line(el.querySelector('.base-main-card__title')) ?? line(el.querySelector('h3'));
    if (!href || !title || seen.has(href)) return null;
    seen.add(href);
    return { title, url: href, imageUrl: imageOf(el.querySelector('img')) };
  });
}

export function mapArticle(page: ContentPage, requestedUrl: string): R.Content {
  const { doc, node } = page;
  const url_ = canonicalOf(doc, node, requestedUrl);
  const articleUrn = doc.querySelector('code#articleUrn')?.innerHTML.match(/urn:li:linkedInArticle:(\d+)/)?.[1] ?? null;
  const slugId = new URL(url_).pathname.match(/-([A-Za-z0-9]{5})\/?$/)?.[1] ?? null;
  const body = articleBody(doc, node);
  const cover = doc.querySelector('figure.cover-img img');
  const og = metaContent(doc, 'og:image');
  const reactions = doc.querySelector('[data-test-id="social-actions__reactions"]');
  const commentsLink = doc.querySelector('[data-test-id="social-actions__comments"]');
  const comments = commentsOf(doc.querySelector('.comments__container') ?? doc, node);
  return {
    type: 'article',
    id: need(articleUrn ?? slugId, 'article id'),
    url: url_,
    title: str(get(node, 'name')) ?? metaContent(doc, 'og:title') ?? line(doc.querySelector('h1')),
    excerpt: excerptOf(doc) ?? str(get(node, 'headline')),
    body,
    coverImageUrl: ldImage(get(node, 'image')) ?? imageOf(cover) ?? (og?.includes('article-cover_image') ? url(og) : null),
    author: authorOf(node, {
      name: doc.querySelector('a[data-tracking-control-name$="publisher-author-card"]'),
      image: doc.querySelector('a[data-tracking-control-name$="publisher-author-card"] img'),
    }),
    publishedAt: isoDate(get(node, 'datePublished')),
    modifiedAt: isoDate(get(node, 'dateModified')),
    readingTimeMinutes: readingTime(doc, body),
    likeCount: interaction(get(node, 'interactionStatistic'), 'LikeAction') ?? countOf(attr(reactions, 'data-num-reactions')),
    commentCount: count(get(node, 'commentCount')) ?? interaction(get(node, 'interactionStatistic'), 'CommentAction') ?? countOf(attr(commentsLink, 'data-num-comments')) ?? comments.length,
    comments,
    relatedArticles: relatedArticlesOf(doc),
    images: [],
    media: null,
    hashtags: hashtagsOf(body),
    reshared: null,
  };
}

export function mapContent(html: string, requestedUrl: string, drops: Drops = IGNORED_DROPS): R.Content {
  const page = readContentPage(html);
  return page.kind === 'post' ? mapPost(page, requestedUrl, drops) : mapArticle(page, requestedUrl);
}
