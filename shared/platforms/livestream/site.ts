import { type PlatformUpstream, sameOriginApiHeaders } from '../../scrape/upstream';
import { parseHostUrl, parsedBy } from '../../http/validation';

/**
 * livestream: clip metadata from the web app's v2 API, behind Cloudflare.
 * Public URL forms: https://kick.com/<channel>/clips/clip_<ULID>, https://kick.com/<channel>?clip=clip_<ULID>
 */
export const PUBLIC_HOSTS = ['kick.com'] as const;
export const WEB_ORIGIN = 'https://kick.com';

export const UPSTREAM: PlatformUpstream = {
  platform: 'livestream',
  defaultBaseUrl: WEB_ORIGIN,
  hosts: ['kick.com', '.kick.com'],
  // The Referer is the site: the clip id alone identifies the clip.
  headers: { ...sameOriginApiHeaders(WEB_ORIGIN), accept: 'application/json', 'accept-language': 'en-US' },
};

export const clipPageUrl = (channelSlug: string, clipId: string) => `${WEB_ORIGIN}/${channelSlug}/clips/${clipId}`;

const CLIP_ID = /^clip_[0-9A-HJKMNP-TV-Z]{26}$/i;
const CHANNEL = /^[A-Za-z0-9_-]{1,64}$/;

export interface ClipRef {
  clipId: string;
  channel: string;
}

export function parseClipUrl(raw: string): ClipRef | null {
  const u = parseHostUrl(raw, PUBLIC_HOSTS);
  if (!u) return null;
  const path = u.pathname.replace(/\/+$/, '');
  const viaPath = path.match(/^\/([^/]+)\/clips\/([^/]+)$/);
  if (viaPath?.[1] && viaPath[2] && CHANNEL.test(viaPath[1]) && CLIP_ID.test(viaPath[2])) {
    return { channel: viaPath[1].toLowerCase(), clipId: `clip_${viaPath[2].slice(5).toUpperCase()}` };
  }
  const viaQuery = path.match(/^\/([^/]+)$/);
  const q = u.searchParams.get('clip');
  if (viaQuery?.[1] && CHANNEL.test(viaQuery[1]) && q && CLIP_ID.test(q)) {
    return { channel: viaQuery[1].toLowerCase(), clipId: `clip_${q.slice(5).toUpperCase()}` };
  }
  return null;
}

// The clip id alone identifies the clip: the channel is not part of the cache key.
export const urlParam = parsedBy((raw) => {
  const ref = parseClipUrl(raw);
  return ref ? { clipId: ref.clipId } : null;
}, 'Must be a clip URL on kick.com: https://kick.com/<channel>/clips/clip_<id> or https://kick.com/<channel>?clip=clip_<id>');
