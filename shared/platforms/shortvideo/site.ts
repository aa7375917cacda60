import * as v from 'valibot';
import type { PlatformUpstream } from '../../scrape/upstream';
import { matching, parseHostUrl, parsedBy } from '../../http/validation';
import { createHash } from 'node:crypto';
import { type HashtagCursor, MAX_CURSOR_CHARS, decodeHashtagCursor } from './cursor';

/**
 * shortvideo: the short-video network's logged-out web app.
 * Public URL forms: https://www.tiktok.com/@<user>, https://www.tiktok.com/@<user>/video/<id>
 * (or /photo/<id>; www. and m. alike), https://www.tiktok.com/tag/<name>.
 * Hosts requested: www.tiktok.com (home page, /api/*), m.tiktok.com (share links the web app
 * redirects through), webcast.tiktok.com (live rooms, part 2). UPSTREAM_SHORTVIDEO_URL replaces
 * every one of them.
 */
export const PUBLIC_HOSTS = ['tiktok.com'] as const;
export const WEB_ORIGIN = 'https://www.tiktok.com';
export const WEBCAST_ORIGIN = 'https://webcast.tiktok.com';

export const UPSTREAM: PlatformUpstream = {
  platform: 'shortvideo',
  defaultBaseUrl: WEB_ORIGIN,
  hosts: ['www.tiktok.com', 'tiktok.com', 'm.tiktok.com', 'webcast.tiktok.com'],
  headers: {},
};

export const profileUrl = (handle: string) => `${WEB_ORIGIN}/@${handle}`;
/** A post's page: /video/<id>, or /photo/<id> for a photo post. */
export const videoUrl = (handle: string, id: string, kind: 'video' | 'photo' = 'video') => `${WEB_ORIGIN}/@${handle}/${kind}/${id}`;
export const liveUrl = (handle: string) => `${profileUrl(handle)}/live`;
/** A sound's page, as the web app links to it: /music/<title words>-<id> ("sound" for no title). */
export const musicUrl = (title: string | null, id: string) =>
  `${WEB_ORIGIN}/music/${encodeURIComponent((title ?? 'sound').replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '') || 'sound')}-${id}`;
export const tagUrl = (name: string) => `${WEB_ORIGIN}/tag/${encodeURIComponent(name)}`;

const USERNAME = /^[A-Za-z0-9_.]{2,24}$/;

export function parseUsername(raw: string): string | null {
  let s = raw.trim();
  if (/^https?:\/\//i.test(s)) {
    const m = parseHostUrl(s, PUBLIC_HOSTS)?.pathname.match(/^\/@([^/]+)\/?/);
    if (!m?.[1]) return null;
    s = decodeURIComponent(m[1]);
  }
  s = s.replace(/^@/, '');
  return USERNAME.test(s) ? s.toLowerCase() : null;
}

export const handleParam = parsedBy(parseUsername, 'Must be a username (2-24 letters, digits, _ or .), @username, or a profile URL on tiktok.com', 300);
export const userIdParam = matching(/^\d{1,20}$/, 'Must match ^\\d{1,20}$');
export const followingCursorParam = matching(/^\d{1,13}$/, 'Must match ^\\d{1,13}$');

/**
 * A video named by its URL. Only `videoId` is enumerable, so the cache key (the stable JSON of the
 * parameters) is the video id alone, whatever handle the URL carried. The site serves a video under
 * any handle, so the URL's handle says nothing about the video: it is kept only as the Referer of
 * the upstream calls (as the web app would send from that page), never put in an answer (the
 * answer is cached for every caller of the id; its author comes from the platform).
 */
export class VideoRef {
  readonly videoId: string;
  readonly #askedHandle: string;
  constructor(videoId: string, askedHandle: string) {
    this.videoId = videoId;
    this.#askedHandle = askedHandle;
  }
  /** The page the caller named: for the Referer only. */
  get askedPage(): string {
    return videoUrl(this.#askedHandle, this.videoId);
  }
}

export function parseVideoUrl(raw: string): VideoRef | null {
  const u = parseHostUrl(raw, PUBLIC_HOSTS);
  const m = u?.pathname.match(/^\/@([A-Za-z0-9_.]{2,24})\/(?:video|photo)\/(\d{1,20})\/?$/);
  return m?.[1] && m[2] ? new VideoRef(m[2], m[1].toLowerCase()) : null;
}

export const videoUrlParam = parsedBy(parseVideoUrl, 'Must be a video URL: https://www.tiktok.com/@<user>/video/<id> (or /photo/<id>)');
/** The upstream's comment offset, as the previous page returned it. */
export const commentsCursorParam = matching(/^\d{1,10}$/, 'Must be 1-10 digits');

export const hashtagParam = v.pipe(
  matching(/^#?[\p{L}\p{M}\p{N}_]{1,100}$/u, 'Must be a hashtag of 1-100 letters, digits or _ (no spaces), with or without #'),
  v.transform((s) => s.replace(/^#/, '').toLowerCase()),
);

// Built on first use: constructing it loads ICU's region names, about 20 ms of CPU that a cold
// start of any function (they all import this table of parameters) would otherwise pay.
let regionNames: Intl.DisplayNames | undefined;
/** The English name of an ISO 3166-1 alpha-2 region, or null for a code that is not one. */
export function regionName(code: string): string | null {
  // Two letters, and not one of the groupings or private-use codes CLDR also names (EU, UN, QO, ZZ…).
  if (!/^[A-Z]{2}$/.test(code) || /^(EU|EZ|UN|Q[M-Z]|X[A-JL-Z]|ZZ)$/.test(code)) return null;
  regionNames ??= new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  const name = regionNames.of(code);
  return name && name !== code && !/unknown region/i.test(name) ? name : null;
}
export const DEFAULT_REGION = 'NG';
export const regionParam = v.pipe(
  matching(/^[A-Za-z]{2}$/, 'Must be a two-letter ISO 3166-1 region code such as NG or US'),
  v.transform((s) => s.toUpperCase()),
  v.check((s) => regionName(s) !== null, 'Must be an ISO 3166-1 alpha-2 region code such as NG or US'),
);

/**
 * A verified cursor of operation 13. Only `digest` (a hash of the cursor) is enumerable: the cache
 * key stays short (a DynamoDB key holds at most 2 KB) while still naming the exact cursor.
 */
export class HashtagCursorRef {
  readonly digest: string;
  readonly #state: HashtagCursor;
  constructor(raw: string, state: HashtagCursor) {
    this.digest = createHash('sha256').update(raw).digest('base64url');
    this.#state = state;
  }
  get state(): HashtagCursor {
    return this.#state;
  }
}

/** The opaque, authenticated cursor of operation 13 (see cursor.ts); anything else is a 400. */
export const hashtagCursorParam = parsedBy((raw) => {
  const state = decodeHashtagCursor(raw);
  return state ? new HashtagCursorRef(raw, state) : null;
}, 'Must be a cursor returned by the previous page', MAX_CURSOR_CHARS);
