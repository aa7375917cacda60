import { type PlatformUpstream, sameOriginApiHeaders } from '../../scrape/upstream';
import * as v from 'valibot';
import { booleanParam, parseHostUrl, parsedBy } from '../../http/validation';

/**
 * microblog-b: the short-text network, read logged out through its web GraphQL API with a guest token.
 * Public URL forms:
 *   profile  https://x.com/<screen_name>[/…]            (also twitter.com; www./mobile. allowed)
 *   note     https://x.com/<screen_name>/status/<id>[/photo/1][?…]   (also /i/web/status/<id>, /statuses/)
 * Upstream hosts: x.com (web page, /i/api/graphql), api.x.com (guest activation), abs.twimg.com
 * (the web bundle, read for current GraphQL query ids).
 */
export const PUBLIC_HOSTS = ['x.com', 'twitter.com'] as const;
export const WEB_ORIGIN = 'https://x.com';
export const API_ORIGIN = 'https://api.x.com';

export const UPSTREAM: PlatformUpstream = {
  platform: 'microblog-b',
  defaultBaseUrl: WEB_ORIGIN,
  // Every host a request may reach; UPSTREAM_MICROBLOG_B_URL replaces all of them in tests.
  hosts: ['x.com', '.x.com', 'twitter.com', '.twitter.com', 'twimg.com', '.twimg.com'],
  headers: sameOriginApiHeaders(WEB_ORIGIN),
};

export const profileUrl = (screenName: string) => `${WEB_ORIGIN}/${screenName}`;
export const noteUrl = (screenName: string, id: string) => `${WEB_ORIGIN}/${screenName}/status/${id}`;

const SCREEN_NAME = /^[A-Za-z0-9_]{1,15}$/;
/** First path segments of the site's own pages, never a profile. */
const RESERVED = new Set([
  'home', 'i', 'explore', 'search', 'settings', 'notifications', 'messages', 'compose', 'login', 'logout', 'signup',
  'tos', 'privacy', 'intent', 'share', 'hashtag', 'account', 'who_to_follow', 'jobs', 'download', 'about',
]);

/** name, @name, or a profile URL on the platform's hosts -> the screen name (case kept), else null. */
export function parseHandle(raw: string): string | null {
  let s = raw.trim();
  if (/^https?:\/\//i.test(s)) {
    const u = parseHostUrl(s, PUBLIC_HOSTS);
    const m = u?.pathname.match(/^\/@?([^/]+)(?:\/|$)/);
    if (!m?.[1]) return null;
    s = decodeURIComponent(m[1]);
    if (RESERVED.has(s.toLowerCase())) return null;
  }
  s = s.replace(/^@/, '');
  return SCREEN_NAME.test(s) ? s : null;
}

/** A note permalink on the platform's hosts -> the note id, else null. */
export function parseNoteUrl(raw: string): string | null {
  const path = parseHostUrl(raw, PUBLIC_HOSTS)?.pathname;
  const m = path?.match(/^\/(?:[A-Za-z0-9_]{1,15}|i\/web|i)\/status(?:es)?\/(\d{1,20})(?:\/(?:(?:photo|video)\/\d{1,2}|analytics|quotes|retweets|likes)?)?\/?$/);
  return m?.[1] ?? null;
}

// Screen names are case-insensitive: one cache entry serves every spelling.
export const handleParam = parsedBy(
  (raw) => parseHandle(raw)?.toLowerCase() ?? null,
  'Must be a handle of 1-15 letters, digits or _ (with or without @), or a profile URL on x.com / twitter.com',
  300,
);

// The note id alone identifies the note: the cache key is the id, whatever handle the URL named.
export const noteUrlParam = parsedBy((raw) => {
  const noteId = parseNoteUrl(raw);
  return noteId ? { noteId } : null;
}, 'Must be a note permalink on x.com or twitter.com: https://x.com/<handle>/status/<id>');

/** `true` or `false` (the default): false reads as absent, so `trim=false` and no trim are one cache entry. */
export const trimParam = v.pipe(booleanParam, v.transform((b): true | undefined => (b ? true : undefined)));
