import { elementText, parseDocument } from '../../scrape/html';
import { type Drops, IGNORED_DROPS } from '../../scrape/context';
import { bool, count, get, int, isObject, isoDate, list, listGood, need, num, orDropped, str, text, url, type Json } from '../../scrape/map';
import type * as R from './resources';
import { postUrl, profileUrl } from './site';

/**
 * Pure mapping of microblog-c (Mastodon-style) JSON to the spec's resources: one object literal per
 * resource. Upstream names: account {acct, display_name, note (HTML), …}, status {content (HTML),
 * reblog, quote, media_attachments, card, poll, …}. Required (`need`) are only the values REQUIRED
 * in resources.ts names (an account's id and acct; a post's id and its author's); every other value
 * is null when the answer leaves it out (or "" / [] where resources.ts documents that reading). A
 * media attachment or mention without its id, a quoted post or reposter without its identity, is
 * left out and reported to `drops`.
 */

/** A field the spec types as a plain string, documented as "" when the account leaves it empty. */
const plain = (v: unknown): string => text(v) ?? '';
/** A flag the platform sends on every account and status (Mastodon entities): null when it is not there. */
const flag = (v: unknown): boolean | null => bool(v);

// ---------------------------------------------------------------------------------------------
// HTML (account `note`, status `content`)

interface ReadHtml {
  text: string | null;
  /** <a class="u-url mention"> */
  mentions: R.Account['bioMentions'];
  /** <a class="mention hashtag">, as written (without '#'). */
  hashtags: string[];
  /** Every other <a href>, in order, deduplicated. */
  links: string[];
  /** The URL in a quote marker, if there was one. */
  quoteMarkerUrl: string | null;
}

/**
 * Text and links of a note or content fragment. The quote marker
 * `<span class="quote-inline"><br/>RT: <url of the quoted post></span>` is removed first: the quoted
 * post is returned as `quotedPost`, not as text.
 */
export function readHtml(html: unknown): ReadHtml {
  const out: ReadHtml = { text: null, mentions: [], hashtags: [], links: [], quoteMarkerUrl: null };
  if (typeof html !== 'string' || html.trim() === '') return out;
  const doc = parseDocument(`<!doctype html><html><body>${html}</body></html>`);
  const text = elementText(doc.body, (el) => {
    if (el.classList.contains('quote-inline')) {
      out.quoteMarkerUrl ??= url(el.textContent?.match(/https?:\/\/\S+/)?.[0]);
      return 'skip';
    }
    if (el.localName !== 'a') return;
    const href = url(el.getAttribute('href'));
    if (!href) return;
    const label = (el.textContent ?? '').trim();
    if (el.classList.contains('hashtag') || (label.startsWith('#') && /\/tags\/[^/]+$/.test(new URL(href).pathname))) {
      const tag = label.replace(/^#/, '');
      if (tag && !out.hashtags.some((t) => t.toLowerCase() === tag.toLowerCase())) out.hashtags.push(tag);
    } else if (el.classList.contains('mention')) {
      const handle = label.replace(/^@/, '');
      if (handle && !out.mentions.some((m) => m.url === href)) out.mentions.push({ handle, url: href });
    } else if (!out.links.includes(href)) {
      out.links.push(href);
    }
  });
  out.text = str(text);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Account

/** `www.Example.com` -> `https://www.Example.com` (only the scheme added); a value that is no web address -> "". */
export function websiteUrl(raw: unknown): string {
  const s = str(raw)?.trim();
  if (!s) return '';
  const withScheme = /^https?:\/\//i.test(s) ? s : `https://${s}`;
  const u = url(withScheme);
  // A bare word ("NonFictionBooks") is not a web address: require a dotted host.
  return u && new URL(u).hostname.includes('.') ? u : '';
}

/** `last_status_at` is a date ("2026-07-31"); older answers give a date-time. */
export function dateOnly(v: unknown): string | null {
  const s = str(v);
  if (!s) return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return s;
  return isoDate(s)?.slice(0, 10) ?? null;
}

export function mapEmoji(e: Json): R.Account['emojis'][number] | null {
  const shortcode = str(get(e, 'shortcode'));
  return shortcode ? { shortcode, url: url(get(e, 'url')), staticUrl: url(get(e, 'static_url')) } : null;
}

export function mapAccount(a: Json): R.Account {
  const note = readHtml(get(a, 'note'));
  const { id, handle, displayName, url: profile, avatarUrl, isVerified, isPremium, followerCount } = mapAuthor(a, 'account');
  return {
    id,
    handle,
    displayName,
    url: profile,
    avatarUrl,
    headerUrl: plain(get(a, 'header')),
    website: plain(get(a, 'website')),
    websiteUrl: websiteUrl(get(a, 'website')),
    bio: note.text,
    location: str(str(get(a, 'location'))?.trim()),
    bioMentions: note.mentions,
    bioLinks: note.links,
    emojis: list(get(a, 'emojis'), mapEmoji),
    isVerified,
    isPremium,
    isPrivate: flag(get(a, 'locked')),
    isBot: flag(get(a, 'bot')),
    isGroup: flag(get(a, 'group')),
    isTvAccount: flag(get(a, 'tv_account')),
    acceptsMessages: bool(get(a, 'accepting_messages')) ?? bool(get(a, 'pleroma', 'accepts_chat_messages')),
    isDiscoverable: bool(get(a, 'discoverable')),
    followerCount,
    followingCount: count(get(a, 'following_count')),
    postCount: count(get(a, 'statuses_count')),
    createdAt: isoDate(get(a, 'created_at')),
    lastPostDate: dateOnly(get(a, 'last_status_at')),
  };
}

/** A suspended account still answers 200, flagged and emptied (no profile URL, no name, no counts). */
export function isSuspended(a: Json): boolean {
  return get(a, 'suspended') === true || get(a, 'url') === '';
}

/** The account fields a post carries (no bio: its HTML is not parsed for every post). */
export function mapAuthor(a: Json, role = 'post author'): R.Author {
  const handle = need(str(get(a, 'acct')) ?? str(get(a, 'username')), `${role} username`);
  return {
    id: need(str(get(a, 'id')), `${role} id`),
    handle,
    displayName: plain(get(a, 'display_name')),
    url: url(get(a, 'url')) ?? profileUrl(handle),
    avatarUrl: plain(get(a, 'avatar')),
    isVerified: flag(get(a, 'verified')),
    isPremium: flag(get(a, 'premium')),
    followerCount: count(get(a, 'followers_count')),
  };
}

export function mapRepostedBy(a: Json): R.RepostedBy {
  const { id, handle, displayName, url, avatarUrl } = mapAuthor(a, 'reposter');
  return { id, handle, displayName, url, avatarUrl };
}

// ---------------------------------------------------------------------------------------------
// Post parts

const VIDEO_FILE = /\.(mp4|m4v|mov|webm|m3u8|mp3|m4a|ogg|wav)(\?|$)/i;

/**
 * Upstream types image | video | gifv | tv | audio | unknown -> image | video | gif.
 * A `tv` attachment's url is the programme's poster image (the stream is not public), so it is an image.
 */
export function mediaType(type: unknown, fileUrl: unknown): R.Media['type'] | null {
  // No type at all, or one that cannot be read: not known (a GIF and a video are both MP4 files).
  if (typeof type !== 'string') return null;
  switch (type) {
    case 'image':
    case 'tv':
      return 'image';
    case 'video':
      return 'video';
    case 'gifv':
    case 'gif':
      return 'gif';
    default: {
      const u = str(fileUrl) ?? '';
      if (/\.gif(\?|$)/i.test(u)) return 'gif';
      return VIDEO_FILE.test(u) ? 'video' : 'image';
    }
  }
}

export function mapMedia(m: Json): R.Media | null {
  if (!isObject(m)) return null;
  const type = mediaType(m.type, m.url);
  const duration = num(get(m, 'meta', 'original', 'duration'));
  return {
    id: need(str(m.id), 'media attachment id'),
    type,
    url: url(m.url) ?? url(m.remote_url),
    previewUrl: url(m.preview_url) ?? url(m.preview_remote_url),
    width: int(get(m, 'meta', 'original', 'width')),
    height: int(get(m, 'meta', 'original', 'height')),
    durationSeconds: type !== 'image' && duration !== null && duration > 0 ? duration : null,
    altText: str(m.description),
  };
}

export function mapCard(c: Json): R.Card | null {
  const cardUrl = url(get(c, 'url'));
  if (!isObject(c) || !cardUrl) return null;
  return {
    url: cardUrl,
    type: str(c.type),
    title: str(c.title),
    description: str(c.description),
    imageUrl: url(c.image),
    providerName: str(c.provider_name),
    providerUrl: url(c.provider_url),
    authorName: str(c.author_name),
    authorUrl: url(c.author_url),
    width: int(c.width),
    height: int(c.height),
  };
}

export function mapPoll(p: Json): R.Poll | null {
  if (!isObject(p)) return null;
  return {
    id: str(p.id),
    options: list(p.options, (o) => {
      const title = text(get(o, 'title'));
      return title === null ? null : { title, votesCount: count(get(o, 'votes_count')) };
    }),
    votesCount: count(p.votes_count),
    votersCount: count(p.voters_count),
    isMultiple: flag(p.multiple),
    isExpired: flag(p.expired),
    expiresAt: isoDate(p.expires_at),
  };
}

export function mapMention(m: Json): R.Mention | null {
  const handle = str(get(m, 'acct')) ?? str(get(m, 'username'));
  return handle ? { id: need(str(get(m, 'id')), 'mentioned account id'), handle, url: url(get(m, 'url')) ?? profileUrl(handle) } : null;
}

/**
 * Hashtags are the status's `tags`, spelled as in the text: `tags[].name` keeps the spelling of the
 * tag's first use on the platform ("RETruth" for a "#ReTruth" in the text).
 */
function hashtags(tags: Json, inText: string[]): string[] {
  const out: string[] = [];
  const add = (t: string) => {
    if (!out.some((o) => o.toLowerCase() === t.toLowerCase())) out.push(t);
  };
  for (const name of list(tags, (t) => str(get(t, 'name')))) {
    add(inText.find((t) => t.toLowerCase() === name.toLowerCase()) ?? name);
  }
  for (const t of inText) add(t);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Post

export interface PostContext {
  /** The status is listed in the account's pinned list. */
  pinned?: boolean;
}

/**
 * One timeline item -> a post. A repost (`reblog` set) becomes the original post with `repostedBy` /
 * `repostedAt` from the outer item. Returns null for an item without an id.
 */
export function mapPost(item: Json, ctx: PostContext = {}, drops: Drops = IGNORED_DROPS): R.Post {
  const reblog = get(item, 'reblog');
  if (isObject(reblog)) {
    const original = mapStatus(reblog, false, drops);
    return { ...original, repostedBy: orDropped(() => mapRepostedBy(get(item, 'account')), 'reposter', drops), repostedAt: isoDate(get(item, 'created_at')) };
  }
  return mapStatus(item, ctx.pinned ?? bool(get(item, 'pinned')) ?? false, drops);
}

function mapStatus(status: Json, isPinned: boolean, drops: Drops): R.Post {
  const id = need(str(get(status, 'id')), 'post id');
  const s = status as Record<string, unknown>; // it has an id: an object
  const body = readHtml(s.content);
  const author = mapAuthor(s.account);
  const quote = isObject(s.quote) ? orDropped(() => mapStatus(s.quote, false, drops), 'quoted post', drops) : null;
  const card = mapCard(s.card);
  const inReplyToPostId = str(s.in_reply_to_id);
  const groupUrl = isObject(s.group) ? url(s.uri) : null;
  const links = [...body.links];
  // A quote whose post is hidden from us keeps its reference as a link.
  if (!quote && body.quoteMarkerUrl) links.push(body.quoteMarkerUrl);
  if (card?.url && !links.includes(card.url)) links.push(card.url);
  return {
    id,
    url: groupUrl ?? postUrl(author.handle, id),
    text: body.text,
    createdAt: isoDate(s.created_at),
    editedAt: isoDate(s.edited_at),
    language: str(s.language),
    author,
    replyCount: count(s.replies_count),
    repostCount: count(s.reblogs_count),
    likeCount: count(s.favourites_count),
    media: listGood(s.media_attachments, mapMedia, 'media attachment', drops),
    card,
    poll: mapPoll(s.poll),
    mentions: listGood(s.mentions, mapMention, 'mention', drops),
    hashtags: hashtags(s.tags, body.hashtags),
    links,
    quotedPost: quote,
    isReply: inReplyToPostId !== null,
    isPinned,
    isSensitive: flag(s.sensitive),
    isSponsored: flag(s.sponsored),
    inReplyToPostId,
    inReplyToAccountId: str(s.in_reply_to_account_id),
    spoilerText: str(s.spoiler_text),
    visibility: str(s.visibility),
    repostedBy: null,
    repostedAt: null,
  };
}
