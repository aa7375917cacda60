import * as v from 'valibot';
import { matching, parseHostUrl, parsedBy } from '../../validation';

/**
 * shortvideo: the short-video network (scrapers not built yet; parameters are validated already).
 * Public URL forms: https://www.tiktok.com/@<user>, https://www.tiktok.com/@<user>/video/<id> (or /photo/<id>).
 */
export const PUBLIC_HOSTS = ['tiktok.com'] as const;
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
export const numericCursorParam = matching(/^\d{1,19}$/, 'Must be digits');

export const videoUrlParam = parsedBy((raw) => {
  const m = parseHostUrl(raw, PUBLIC_HOSTS)?.pathname.match(/^\/@([A-Za-z0-9_.]{2,24})\/(video|photo)\/(\d{1,20})\/?$/);
  return m?.[3] ? { videoId: m[3] } : null;
}, 'Must be a video URL: https://www.tiktok.com/@<user>/video/<id>');

export const hashtagParam = v.pipe(
  matching(/^#?[\p{L}\p{N}_]{1,100}$/u, 'Must be a hashtag: letters, digits or _, with or without #'),
  v.transform((s) => s.replace(/^#/, '').toLowerCase()),
);
export const regionParam = v.pipe(
  matching(/^[A-Za-z]{2}$/, 'Must be a two-letter region code such as NG or US'),
  v.transform((s) => s.toUpperCase()),
);
