import { extractionFailed, notFound } from '../../http/errors';
import { type Drops, IGNORED_DROPS } from '../../scrape/context';
import { bool, count, get, int, isObject, isoDate, list, need, orDropped, str, text, url, type Json } from '../../scrape/map';
import type * as R from './resources';
import { noteUrl, profileUrl } from './site';

/**
 * Pure mapping of the GraphQL answers to the spec's Profile and Note (resources.ts).
 *
 * Users arrive in two schemas, read alike: the 2026 one (`core`, `avatar`, `location`, `privacy`,
 * `verification`, `relationship_counts`, `tweet_counts`, `profile_bio`) and the legacy one
 * (`legacy.*`); hybrids carry parts of both. Every field is read `new ?? legacy`.
 * Notes: `result.legacy` (or, as seen briefly in 2026, the same fields at the top level), unwrapped
 * from `TweetWithVisibilityResults`; long-form text from `note_tweet`.
 * Required (`need`) are only the values REQUIRED in resources.ts names: a user's id and screen name,
 * a note's id (and, on /note, its author's id and screen name). Every other value is null (or "" /
 * [] where resources.ts says so) when the answer leaves it out.
 */

// ---- users --------------------------------------------------------------------------------------

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "Sat Dec 14 04:35:55 +0000 2013" -> "December 2013" (UTC), or null. */
export function monthYear(v: unknown): string | null {
  const iso = isoDate(v);
  if (!iso) return null;
  const d = new Date(iso);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** The full-size avatar: the size suffix (`_normal`, `_bigger`, `_200x200`…) removed. */
export const fullSizeAvatar = (u: string) => u.replace(/_(normal|bigger|mini|reasonably_small|\d+x\d+)(\.[a-z]+)?$/i, '$2');

/** Text with its t.co links replaced by what they stand for. */
function expandLinks(s: string, urls: unknown): string {
  let out = s;
  for (const u of Array.isArray(urls) ? urls : []) {
    const short = str(get(u, 'url'));
    const long = str(get(u, 'expanded_url'));
    if (short && long) out = out.split(short).join(long);
  }
  return out;
}

/** The first of the values that reads as a count (one value the two schemas name differently). */
const firstCount = (...vs: unknown[]) => vs.map(count).find((n) => n !== null) ?? null;

/**
 * Whether the account is protected. The 2026 schema sends `privacy.protected` (false for a public
 * account); the older `legacy` schema leaves the key out for a public account (three recorded
 * captures), so absent there means false. A value sent in another form, or a user object carrying
 * neither schema's place for it, is null (not known).
 */
function isProtected(u: Json): boolean | null {
  const given = get(u, 'privacy', 'protected') ?? get(u, 'legacy', 'protected');
  if (given !== undefined) return bool(given);
  return isObject(get(u, 'legacy')) ? false : null;
}

/** The fields of a user object, whichever schema it uses (`fallbackId`: the id the note carries, user_id_str). */
function userFields(u: Json, fallbackId?: string | null) {
  const L = get(u, 'legacy');
  const screenName = str(get(u, 'core', 'screen_name')) ?? str(get(L, 'screen_name'));
  // Every user object carries is_blue_verified (both schemas): without it, "not verified" is not known.
  const blue = bool(get(u, 'is_blue_verified'));
  const legacyVerified = bool(get(u, 'verification', 'verified')) === true || bool(get(L, 'verified')) === true;
  const verifiedType = str(get(u, 'verification', 'verified_type')) ?? str(get(L, 'verified_type')) ?? (blue ? 'Blue' : null);
  const avatar = url(get(u, 'avatar', 'image_url')) ?? url(get(L, 'profile_image_url_https'));
  const bio = text(get(u, 'profile_bio', 'description')) ?? text(get(L, 'description'));
  const bioUrls = get(u, 'profile_bio', 'entities', 'description', 'urls') ?? get(L, 'entities', 'description', 'urls');
  return {
    id: need(str(get(u, 'rest_id')) ?? str(get(L, 'id_str')) ?? fallbackId ?? null, 'user id'),
    name: text(get(u, 'core', 'name')) ?? text(get(L, 'name')),
    screenName: need(screenName, 'user screen name'),
    bio: bio === null ? null : expandLinks(bio, bioUrls),
    avatarUrl: avatar,
    followers: firstCount(get(u, 'relationship_counts', 'followers'), get(L, 'followers_count')),
    following: firstCount(get(u, 'relationship_counts', 'following'), get(L, 'friends_count')),
    notes: firstCount(get(u, 'tweet_counts', 'tweets'), get(L, 'statuses_count')),
    verified: blue === true || legacyVerified ? true : blue === null ? null : false,
    verifiedType,
    protected: isProtected(u),
    professional: isObject(get(u, 'professional')),
    professionalCategory: str(get(u, 'professional', 'category', 0, 'name')),
    profileImageShape: str(get(u, 'profile_image_shape')),
    createdAt: get(u, 'core', 'created_at') ?? get(L, 'created_at'),
    legacy: L,
  };
}

export function mapProfile(u: Json): R.Profile {
  const f = userFields(u);
  const L = f.legacy;
  const site = get(u, 'profile_bio', 'entities', 'url', 'urls', 0) ?? get(L, 'entities', 'url', 'urls', 0);
  return {
    id: f.id,
    name: f.name,
    screenName: f.screenName,
    url: profileUrl(f.screenName),
    bio: f.bio ?? '',
    location: text(get(u, 'location', 'location')) ?? text(get(L, 'location')) ?? '',
    website: {
      url: url(get(u, 'website', 'url')) ?? url(get(L, 'url')) ?? url(get(site, 'url')),
      displayUrl: str(get(site, 'display_url')),
      expandedUrl: url(get(site, 'expanded_url')),
    },
    avatarUrl: f.avatarUrl,
    avatarUrlHd: f.avatarUrl === null ? null : fullSizeAvatar(f.avatarUrl),
    bannerUrl: url(get(u, 'banner', 'image_url')) ?? url(get(L, 'profile_banner_url')),
    stats: { followers: f.followers, following: f.following, notes: f.notes },
    verified: f.verified,
    protected: f.protected,
    professional: f.professional,
    verifiedType: f.verifiedType,
    professionalCategory: f.professionalCategory,
    profileImageShape: f.profileImageShape,
    joined: monthYear(f.createdAt),
  };
}

export function mapAuthor(u: Json, fallbackId?: string | null): R.NoteAuthor {
  const f = userFields(u, fallbackId);
  return {
    id: f.id,
    name: f.name,
    screenName: f.screenName,
    url: profileUrl(f.screenName),
    bio: f.bio || null,
    avatarUrl: f.avatarUrl,
    avatarUrlHd: f.avatarUrl === null ? null : fullSizeAvatar(f.avatarUrl),
    followers: f.followers,
    following: f.following,
    noteCount: f.notes,
    verified: f.verified,
    verifiedType: f.verifiedType,
    protected: f.protected,
    profileImageShape: f.profileImageShape,
    professionalCategory: f.professionalCategory,
  };
}

/**
 * The user of a UserByScreenName answer. Unknown (`data: {}` or `user: {}`), suspended or
 * deactivated (`UserUnavailable`) -> 404.
 */
export function userOf(data: Json): Json {
  const result = get(answerData(data, 'user', 'user lookup'), 'user', 'result');
  if (!isObject(result)) throw notFound();
  const type = str(result.__typename);
  if (type === 'UserUnavailable') throw notFound();
  if (type !== undefined && type !== null && type !== 'User') throw extractionFailed(`user lookup: a ${type}`);
  return result;
}

/**
 * The answer's `data`, which must hold `key` or be empty (`{}`: the upstream's "nothing there");
 * anything else is a changed shape.
 */
function answerData(data: Json, key: string, what: string): Record<string, unknown> {
  const d = get(data, 'data');
  if (!isObject(d)) throw extractionFailed(`${what}: the answer has no data${errorsOf(data)}`);
  if (!(key in d) && Object.keys(d).length > 0) throw extractionFailed(`${what}: data without ${key} (has ${Object.keys(d).join(', ')})`);
  return d;
}
const errorsOf = (data: Json) => {
  const m = str(get(data, 'errors', 0, 'message'));
  return m ? ` (${m.slice(0, 160)})` : '';
};

/** What /user-notes needs of a user: its id and whether its notes are hidden from logged-out viewers. */
export function userIdentity(u: Json): { id: string; protected: boolean } {
  return {
    id: need(str(get(u, 'rest_id')) ?? str(get(u, 'legacy', 'id_str')), 'user id'),
    // Not known (null) is read as public: the timeline's own answer then says whether it shows notes.
    protected: isProtected(u) ?? false,
  };
}

// ---- notes --------------------------------------------------------------------------------------

/** The Tweet inside a result (visibility wrapper removed), or null for tombstones and unavailable notes. */
export function unwrapNote(r: Json): Record<string, unknown> | null {
  if (!isObject(r)) return null;
  const type = str(r.__typename);
  // A result without a readable __typename is read by its shape.
  if (type === 'TweetWithVisibilityResults' || (type === null && isObject(r.tweet))) return unwrapNote(r.tweet);
  if (type === 'Tweet' || (type === null && (isObject(r.legacy) || str(r.rest_id)))) return r;
  return null;
}

/** `legacy`, or the result itself when the fields are at the top level. */
const legacyOf = (t: Json): Json => (isObject(get(t, 'legacy')) ? get(t, 'legacy') : t);

const HTML_ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescapeHtml = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (m) => HTML_ENTITIES[m] ?? m);

function noteText(t: Json, L: Json): string {
  const long = text(get(t, 'note_tweet', 'note_tweet_results', 'result', 'text'));
  if (long !== null) return long;
  let s = text(get(L, 'full_text')) ?? text(get(L, 'text')) ?? '';
  // The t.co link of attached media closes the text; the media array carries it.
  for (const m of [...mediaOf(L)].reverse()) {
    const short = str(get(m, 'url'));
    if (short && s.trimEnd().endsWith(short)) s = s.trimEnd().slice(0, -short.length).trimEnd();
  }
  return unescapeHtml(s);
}

const mediaOf = (L: Json): unknown[] => {
  const m = get(L, 'extended_entities', 'media') ?? get(L, 'entities', 'media');
  return Array.isArray(m) ? m : [];
};

function mapMedia(m: Json): R.Media | null {
  const kind = str(get(m, 'type'));
  const type = kind === 'photo' ? 'photo' : kind === 'video' ? 'video' : kind === 'animated_gif' ? 'gif' : null;
  const picture = url(get(m, 'media_url_https')) ?? url(get(m, 'media_url'));
  if (!type || !picture) return null;
  const variants = list(get(m, 'video_info', 'variants'), (x) => {
    const u = url(get(x, 'url'));
    return u ? { url: u, bitrate: int(get(x, 'bitrate')), contentType: str(get(x, 'content_type')) ?? '' } : null;
  });
  const mp4 = variants.filter((x) => x.contentType === 'video/mp4').sort((a, b) => (b.bitrate ?? 0) - (a.bitrate ?? 0))[0];
  return {
    type,
    url: type === 'photo' ? picture : (mp4?.url ?? variants[0]?.url ?? picture),
    previewUrl: picture,
    width: int(get(m, 'original_info', 'width')) ?? int(get(m, 'sizes', 'large', 'w')),
    height: int(get(m, 'original_info', 'height')) ?? int(get(m, 'sizes', 'large', 'h')),
    durationMs: type === 'video' ? int(get(m, 'video_info', 'duration_millis')) : null,
    variants,
    altText: str(get(m, 'ext_alt_text')),
  };
}

function mapCard(t: Json): R.ThreadNote['card'] {
  const card = get(t, 'card');
  if (!isObject(card)) return null;
  const legacy = get(card, 'legacy');
  const id = str(get(card, 'rest_id')) ?? str(get(legacy, 'url'));
  if (!id) return null;
  return { legacy: isObject(legacy) && str(legacy.name) ? (legacy as { name: string }) : null, id };
}

function mapArticle(t: Json) {
  const a = get(t, 'article', 'article_results', 'result');
  if (!isObject(a)) return null;
  const blocks = get(a, 'content_state', 'blocks');
  const fromBlocks = Array.isArray(blocks) && blocks.length ? list(blocks, (b) => text(get(b, 'text'))).join('\n') : null;
  const cover = get(a, 'cover_media', 'media_info');
  return {
    id: need(str(a.rest_id), 'article id'),
    title: text(a.title) ?? '',
    previewText: text(a.preview_text) ?? '',
    coverImage: { url: url(get(cover, 'original_img_url')), width: int(get(cover, 'original_img_width')), height: int(get(cover, 'original_img_height')) },
    fullText: text(a.plain_text) ?? fromBlocks,
    raw: a,
  };
}

function mapCommunityNote(t: Json) {
  const p = get(t, 'birdwatch_pivot');
  if (!isObject(p)) return null;
  // The note's text is its subtitle; the title is its heading ("Readers added context"), never its text.
  const body = text(get(p, 'subtitle', 'text'));
  if (body === null) return null;
  return {
    id: str(get(p, 'note', 'rest_id')),
    title: str(p.title) ?? str(p.shorttitle),
    text: body,
    links: list(get(p, 'subtitle', 'entities'), (e) => {
      const u = url(get(e, 'ref', 'url'));
      const from = int(get(e, 'fromIndex') ?? get(e, 'from_index'));
      const to = int(get(e, 'toIndex') ?? get(e, 'to_index'));
      return u && from !== null && to !== null ? { fromIndex: from, toIndex: to, url: u } : null;
    }),
    destinationUrl: url(p.destinationUrl),
  };
}

function mapPlace(L: Json) {
  const p = get(L, 'place');
  const id = str(get(p, 'id'));
  if (!id) return null;
  return {
    id,
    name: str(get(p, 'name')),
    fullName: str(get(p, 'full_name')),
    type: str(get(p, 'place_type')),
    country: str(get(p, 'country')),
    countryCode: str(get(p, 'country_code')),
  };
}

function editIds(t: Json): string[] | null {
  const ec = get(t, 'edit_control');
  if (!isObject(ec)) return null;
  const ids = get(ec, 'edit_tweet_ids') ?? get(ec, 'edit_control_initial', 'edit_tweet_ids');
  return Array.isArray(ids) ? list(ids, (x) => str(x)) : null;
}

function conversationControl(t: Json) {
  const c = get(t, 'conversation_control');
  const policy = str(get(c, 'policy'));
  if (!policy) return null;
  const owner = get(c, 'conversation_owner_results', 'result');
  return { policy, ownerScreenName: str(get(owner, 'core', 'screen_name')) ?? str(get(owner, 'legacy', 'screen_name')) };
}

/** The note's author's user object, when the answer carries it. */
export const authorOf = (t: Json): Json => get(t, 'core', 'user_results', 'result');
const screenNameOf = (u: Json) => str(get(u, 'core', 'screen_name')) ?? str(get(u, 'legacy', 'screen_name'));

type NoteFields = Omit<R.QuotedNote, 'quotedNote'>;

function noteFields(t: Record<string, unknown>, drops: Drops): NoteFields {
  const L = legacyOf(t);
  const id = need(str(t.rest_id) ?? str(get(L, 'id_str')), 'note id');
  const screenName = screenNameOf(authorOf(t));
  const createdAt = isoDate(get(L, 'created_at'));
  const long = get(t, 'note_tweet', 'note_tweet_results', 'result');
  const entities = isObject(long) && isObject(long.entity_set) ? long.entity_set : get(L, 'entities');
  const views = str(get(t, 'views', 'count'));
  const quotedId = str(get(L, 'quoted_status_id_str')) ?? str(get(t, 'quoted_status_result', 'result', 'rest_id'));
  const replyTo = str(get(L, 'in_reply_to_status_id_str'));
  return {
    id,
    url: screenName ? noteUrl(screenName, id) : `https://x.com/i/web/status/${id}`,
    text: noteText(t, L),
    isLongForm: isObject(get(t, 'note_tweet')),
    lang: str(get(L, 'lang')),
    createdAtMs: createdAt === null ? null : Date.parse(createdAt),
    createdAt,
    counts: {
      likes: count(get(L, 'favorite_count')),
      reposts: count(get(L, 'retweet_count')),
      replies: count(get(L, 'reply_count')),
      bookmarks: count(get(L, 'bookmark_count')),
      quotes: count(get(L, 'quote_count')),
    },
    views: views && /^\d+$/.test(views) ? views : null,
    media: list(mediaOf(L), mapMedia),
    mentions: list(get(entities, 'user_mentions'), (m) => {
      const sn = str(get(m, 'screen_name'));
      const uid = str(get(m, 'id_str'));
      const a = int(get(m, 'indices', 0));
      const b = int(get(m, 'indices', 1));
      return sn && uid && /^\d+$/.test(uid) && a !== null && b !== null ? { screenName: sn, id: uid, indices: [a, b] as [number, number] } : null;
    }),
    urls: list(get(entities, 'urls'), (u) => {
      const [short, expandedUrl, displayUrl] = [str(get(u, 'url')), str(get(u, 'expanded_url')), str(get(u, 'display_url'))];
      return short && expandedUrl && displayUrl ? { url: short, expandedUrl, displayUrl } : null;
    }),
    hashtags: list(get(entities, 'hashtags'), (h) => str(get(h, 'text'))),
    cashtags: list(get(entities, 'symbols'), (h) => str(get(h, 'text'))),
    card: mapCard(t),
    communityNote: mapCommunityNote(t),
    article: orDropped(() => mapArticle(t), 'article', drops),
    isReply: replyTo !== null,
    isQuote: bool(get(L, 'is_quote_status')) ?? quotedId !== null,
    replyToNoteId: replyTo,
    replyToUserId: str(get(L, 'in_reply_to_user_id_str')),
    quotedNoteId: quotedId,
    possiblySensitive: bool(get(L, 'possibly_sensitive')),
    conversationControl: conversationControl(t),
    editNoteIds: editIds(t),
    place: mapPlace(L),
  };
}

/** The quoted note, one level deep, or null when it is unavailable, or left out (and reported) when it lacks a required value. */
function quoted<T>(t: Json, map: (q: Record<string, unknown>) => T, drops: Drops): T | null {
  const q = unwrapNote(get(t, 'quoted_status_result', 'result'));
  return q ? orDropped(() => map(q), 'quoted note', drops) : null;
}

/** A note of `/user-notes`: no author. */
export function mapUserNote(t: Record<string, unknown>, isPinned: boolean, drops: Drops = IGNORED_DROPS): R.UserNote {
  return { ...noteFields(t, drops), quotedNote: quoted(t, (q) => ({ ...noteFields(q, drops), quotedNote: null }), drops), isPinned };
}

/** The author of a note on /note (required there): its user object; its id also from the note's user_id_str. */
const noteAuthor = (t: Json, role: string) => mapAuthor(need(authorOf(t), role), str(get(legacyOf(t), 'user_id_str')));

/** A note of `/note`: with its author. */
export function mapThreadNote(t: Record<string, unknown>, drops: Drops = IGNORED_DROPS): R.ThreadNote {
  const author = noteAuthor(t, 'note author');
  return {
    ...noteFields(t, drops),
    author,
    quotedNote: quoted(t, (q) => ({ ...noteFields(q, drops), author: noteAuthor(q, 'quoted note author'), quotedNote: null }), drops),
  };
}

/** The trim=true form: the fields of TRIMMED_FIELDS only. */
export function trimNote(n: NoteFields): R.TrimmedNote {
  return {
    id: n.id,
    url: n.url,
    text: n.text,
    createdAt: n.createdAt,
    createdAtMs: n.createdAtMs,
    counts: n.counts,
    views: n.views,
    isReply: n.isReply,
    isQuote: n.isQuote,
    lang: n.lang,
    media: n.media.map((m) => ({ type: m.type, url: m.url })),
  };
}

export const trimUserNote = (n: R.UserNote): R.TrimmedUserNote => ({ ...trimNote(n), isPinned: n.isPinned });

// ---- answers ------------------------------------------------------------------------------------

/** A timeline item: the note as the profile shows it (a repost is its original) and whether it is pinned. */
export interface TimelineItem {
  note: Record<string, unknown>;
  pinned: boolean;
  /** The screen name of the timeline's owner as this item names it (the reposter for a repost). */
  ownerScreenName: string | null;
}

/**
 * The notes of a UserTweets answer, in upstream order: the pin entry, single notes, and the
 * notes of self-thread modules (`profile-conversation-*`). Unknown or suspended account -> 404.
 */
export function userTimeline(data: Json): TimelineItem[] {
  const user = get(answerData(data, 'user', 'user notes'), 'user', 'result');
  if (!isObject(user) || user.__typename === 'UserUnavailable') throw notFound();
  const instructions = get(user, 'timeline', 'timeline', 'instructions') ?? get(user, 'timeline_v2', 'timeline', 'instructions');
  if (!Array.isArray(instructions)) throw extractionFailed('user notes: no timeline instructions');
  const raw: { result: Json; pinned: boolean }[] = [];
  const fromContent = (c: Json, pinned: boolean) => {
    const item = get(c, 'itemContent');
    if (item !== undefined) {
      raw.push({ result: get(item, 'tweet_results', 'result'), pinned: pinned || get(item, 'socialContext', 'contextType') === 'Pin' });
      return;
    }
    for (const it of Array.isArray(get(c, 'items')) ? (get(c, 'items') as unknown[]) : []) {
      raw.push({ result: get(it, 'item', 'itemContent', 'tweet_results', 'result'), pinned: false });
    }
  };
  for (const ins of instructions) {
    const type = str(get(ins, 'type'));
    if (type === 'TimelinePinEntry') fromContent(get(ins, 'entry', 'content'), true);
    if (type === 'TimelineAddEntries') {
      for (const e of Array.isArray(get(ins, 'entries')) ? (get(ins, 'entries') as unknown[]) : []) {
        const entryId = str(get(e, 'entryId')) ?? '';
        if (/^(tweet|profile-conversation)-/.test(entryId)) fromContent(get(e, 'content'), false);
      }
    }
  }
  const items: TimelineItem[] = [];
  for (const r of raw) {
    const outer = unwrapNote(r.result);
    if (!outer) continue;
    const original = unwrapNote(get(legacyOf(outer), 'retweeted_status_result', 'result'));
    items.push({ note: original ?? outer, pinned: r.pinned, ownerScreenName: screenNameOf(authorOf(outer)) });
  }
  return items;
}

/** The focal note of a TweetResultByRestId answer; deleted, tombstoned, withheld, protected, age-gated -> 404. */
export function focalNoteOf(data: Json): Record<string, unknown> {
  const result = get(answerData(data, 'tweetResult', 'note'), 'tweetResult', 'result');
  if (!isObject(result)) throw notFound();
  const note = unwrapNote(result);
  if (note) return note;
  const reason = str(result.reason) ?? '';
  if (/^Nsfw/i.test(reason)) throw notFound('This note is age-restricted: the source shows it only to signed-in accounts');
  if (/Tombstone|Unavailable/.test(String(result.__typename))) throw notFound();
  throw extractionFailed(`note: a ${String(result.__typename)}`);
}

/**
 * The direct replies of a TweetDetail answer, in upstream order (from the `conversationthread-*`
 * modules; a module's later items continue the reply's own thread and are left out), or null when
 * the answer holds no conversation at all.
 */
export function directReplies(data: Json, focalId: string): Record<string, unknown>[] | null {
  const instructions = get(data, 'data', 'threaded_conversation_with_injections_v2', 'instructions');
  if (!Array.isArray(instructions)) return null;
  const out: Record<string, unknown>[] = [];
  const seen = new Set<string>();
  for (const ins of instructions) {
    for (const e of Array.isArray(get(ins, 'entries')) ? (get(ins, 'entries') as unknown[]) : []) {
      if (!/^conversationthread-/.test(str(get(e, 'entryId')) ?? '')) continue;
      for (const it of Array.isArray(get(e, 'content', 'items')) ? (get(e, 'content', 'items') as unknown[]) : []) {
        const t = unwrapNote(get(it, 'item', 'itemContent', 'tweet_results', 'result'));
        if (!t || str(get(legacyOf(t), 'in_reply_to_status_id_str')) !== focalId) continue;
        const id = str(t.rest_id) ?? '';
        if (seen.has(id)) continue;
        seen.add(id);
        out.push(t);
      }
    }
  }
  return out;
}
