import * as v from 'valibot';
import { sameOriginApiHeaders, type PlatformUpstream } from '../../scrape/upstream';
import { matching, parseHostUrl, parsedBy } from '../../http/validation';

/**
 * microblog-c: a Mastodon-style API behind Cloudflare.
 * Public URL forms: https://truthsocial.com/@<username>[/...]
 */
export const PUBLIC_HOSTS = ['truthsocial.com'] as const;
export const WEB_ORIGIN = 'https://truthsocial.com';

export const UPSTREAM: PlatformUpstream = {
  platform: 'microblog-c',
  defaultBaseUrl: WEB_ORIGIN,
  hosts: ['truthsocial.com', '.truthsocial.com'],
  headers: sameOriginApiHeaders(WEB_ORIGIN),
};

export const profileUrl = (username: string) => `${WEB_ORIGIN}/@${username}`;
export const postUrl = (username: string, id: string) => `${WEB_ORIGIN}/@${username}/posts/${id}`;

const USERNAME = /^[A-Za-z0-9_]{1,30}$/;

/** username, @username, or a profile URL -> the username (case kept; lookup is case-insensitive). */
export function parseUsername(raw: string): string | null {
  let s = raw.trim();
  if (/^https?:\/\//i.test(s)) {
    const u = parseHostUrl(s, PUBLIC_HOSTS);
    const m = u?.pathname.match(/^\/@([^/]+)\/?/);
    if (!m?.[1]) return null;
    s = decodeURIComponent(m[1]);
  }
  s = s.replace(/^@/, '');
  return USERNAME.test(s) ? s : null;
}

// The lookup is case-insensitive, so one cache entry serves every spelling.
export const handleParam = parsedBy(
  (raw) => parseUsername(raw)?.toLowerCase() ?? null,
  'Must be a username (letters, digits, _), @username, or a profile URL on truthsocial.com',
  300,
);
export const userIdParam = matching(/^\d{1,20}$/, 'Must be a numeric account id (digits only)');
/** Snowflake ids carry their creation time (id >> 16 = Unix ms); the platform opened in 2021/22. */
const PLATFORM_START_MS = Date.UTC(2021, 0, 1);
export function isPlausibleCursor(cursor: string, now = Date.now()): boolean {
  if (!/^\d{1,20}$/.test(cursor)) return false;
  const ms = Number(BigInt(cursor) >> 16n);
  return ms >= PLATFORM_START_MS && ms <= now + 86_400_000;
}

/** The cursor is the id of the last post of the previous page: a snowflake of this platform. */
export const cursorParam = v.pipe(matching(/^\d{1,20}$/, 'Must be digits'), v.check((c) => isPlausibleCursor(c), 'Not a post id'));
