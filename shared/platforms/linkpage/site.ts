import { type PlatformUpstream } from '../../scrape/upstream';
import { parseHostUrl, parsedBy } from '../../http/validation';

/**
 * linkpage: the link-in-bio page builder (identified as Pillar, pillar.io, with high confidence;
 * research note §2). Public URL form: https://pillar.io/<username> (www., trailing slash, query).
 *
 * The page is a client-rendered Vue app: its data comes from a public Hasura GraphQL endpoint whose
 * address and anonymous ("registration" role) token are baked into the app's vendors bundle.
 */
export const PUBLIC_HOSTS = ['pillar.io'] as const;
export const WEB_ORIGIN = 'https://pillar.io';

export const UPSTREAM: PlatformUpstream = {
  platform: 'linkpage',
  defaultBaseUrl: WEB_ORIGIN,
  hosts: [
    // The app shell and its /js/ bundles.
    'pillar.io',
    // API hosts of the platform: the GraphQL endpoint the bundle names must be one of them. A
    // hosted endpoint on a provider's domain (where anyone can register a name) is refused
    // (EXTRACTION_FAILED): its exact host would have to be added here once seen live.
    '.pillar.io',
  ],
  headers: {},
};

/** A page of the app that loads the vendors bundle (the marketing home page does not). */
export const APP_SHELL_PATH = '/login';

/** Image values are `cloudinary:<public id>` tokens or absolute URLs. */
export const IMAGE_BASE = 'https://res.cloudinary.com/pillario/image/upload/';

/** Custom links of the platform's own referral programme: not the creator's content. */
export const isReferralLink = (u: string) => {
  try {
    const parsed = new URL(u);
    return /(^|\.)pillar\.io$/.test(parsed.hostname) && parsed.pathname.startsWith('/referral');
  } catch {
    return false;
  }
};

const USERNAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The lower-cased username of a creator page URL (it keys the cache), or null. */
export function pageUsername(raw: string): string | null {
  const u = parseHostUrl(raw, PUBLIC_HOSTS);
  const m = u?.pathname.match(/^\/([^/]+)\/?$/);
  const name = m?.[1];
  if (!name || !USERNAME.test(name) || /^\.+$/.test(name)) return null;
  return name.toLowerCase();
}

export const pageUrlParam = parsedBy(pageUsername, 'Must be a creator page URL: https://pillar.io/<username>');
