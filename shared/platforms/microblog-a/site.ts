import * as v from 'valibot';
import { sameOriginApiHeaders, type PlatformUpstream } from '../../scrape/upstream';
import { matching, opaqueToken, parseHostUrl, parsedBy } from '../../http/validation';

/**
 * microblog-a: the decentralized network's public AppView (XRPC over HTTPS, JSON, no key).
 * Public URL forms: https://bsky.app/profile/<handle-or-did>[/...]
 */
export const PUBLIC_HOSTS = ['bsky.app'] as const;
export const WEB_ORIGIN = 'https://bsky.app';
/** A bare name without a dot is read as a name on the default provider. */
export const DEFAULT_HANDLE_SUFFIX = '.bsky.social';

export const UPSTREAM: PlatformUpstream = {
  platform: 'microblog-a',
  defaultBaseUrl: 'https://public.api.bsky.app',
  hosts: ['public.api.bsky.app', 'bsky.app'],
  headers: sameOriginApiHeaders(WEB_ORIGIN),
};

export const profileUrl = (handleOrDid: string) => `${WEB_ORIGIN}/profile/${handleOrDid}`;
export const postUrl = (handleOrDid: string, rkey: string) => `${WEB_ORIGIN}/profile/${handleOrDid}/post/${rkey}`;

const DID_PLC = /^did:plc:[a-z2-7]{24}$/;
const DID_ANY = /^did:(plc:[a-z2-7]{24}|web:[a-z0-9.-]+)$/;
const HANDLE = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;
const BARE_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** handle, @handle, bare name, or a profile URL -> the actor to ask the AppView for. */
export function parseActor(raw: string): string | null {
  let s = raw.trim();
  if (/^https?:\/\//i.test(s)) {
    const u = parseHostUrl(s, PUBLIC_HOSTS);
    const m = u?.pathname.match(/^\/profile\/([^/]+)\/?/);
    if (!m?.[1]) return null;
    s = decodeURIComponent(m[1]);
    if (DID_ANY.test(s)) return s;
  }
  s = s.replace(/^@/, '').toLowerCase();
  if (HANDLE.test(s)) return s;
  if (BARE_NAME.test(s)) return s + DEFAULT_HANDLE_SUFFIX;
  return null;
}

export const handleParam = parsedBy(parseActor, 'Must be a handle (alice.bsky.social), @handle, or a profile URL on bsky.app', 300);
export const userIdParam = matching(DID_PLC, 'Must be a decentralized identifier: did:plc: followed by 24 base32 characters');
/** The AppView's cursor is opaque; a v1 "::" cursor is silently answered with nothing, so refuse it. */
export const cursorParam = v.pipe(opaqueToken(512), v.check((s) => !s.includes('::'), 'Outdated cursor'));
