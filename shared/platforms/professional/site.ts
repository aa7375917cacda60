import { NAVIGATION_HEADERS, type PlatformUpstream } from '../../scrape/upstream';
import { parseHostUrl, parsedBy } from '../../http/validation';

/**
 * professional: the professional network's logged-out post and article pages.
 * Public URL forms (with or without www., on regional <cc>. hosts, with tracking query strings):
 *   https://www.linkedin.com/posts/<vanity>_<words>-activity-<id>-<4 chars>
 *   https://www.linkedin.com/posts/<vanity>_<words>-ugcPost-<id>-<4 chars>
 *   https://www.linkedin.com/pulse/<slug>-<5 chars>
 * Upstream: one GET of the canonical page (https://www.linkedin.com/posts|pulse/<slug>), no cookies.
 */
export const PUBLIC_HOSTS = ['linkedin.com'] as const;
export const WEB_ORIGIN = 'https://www.linkedin.com';

export const UPSTREAM: PlatformUpstream = {
  platform: 'professional',
  defaultBaseUrl: WEB_ORIGIN,
  // The page and every redirect it may give (www., regional hosts, /authwall, /uas/login). Media
  // hosts are never requested: their URLs are returned, not fetched.
  hosts: ['linkedin.com', '.linkedin.com'],
  headers: { ...NAVIGATION_HEADERS, 'upgrade-insecure-requests': '1' },
};

/** Placeholder ("ghost") images of the page chrome: never a content image. */
export const isPlaceholderImage = (u: string) => {
  try {
    return new URL(u).hostname === 'static.licdn.com';
  } catch {
    return true;
  }
};

/** A post's permanent address by activity id (the page's lnkd:url form). */
export const activityUrl = (activityId: string) => `${WEB_ORIGIN}/feed/update/urn:li:activity:${activityId}`;

/** Where a logged-out visitor is sent instead of the content: the auth wall, sign-up, login, checkpoints. */
export const SIGN_IN_PATH = /^\/(authwall|signup|uas\/login|login|checkpoint)(\/|$)/;

/**
 * A wall served in place of the content, by its content: the auth wall or a checkpoint/login page
 * (their page keys), the login form, or the 999 page's script that sends the browser to /authwall.
 */
export const WALL_PAGE = /<meta\s+name="pageKey"\s+content="(d_checkpoint_|d_authwall)|class="[^"]*\blogin__form\b|["']\/authwall\?trk=/;

/** What the caller is told when the page is only shown to signed-in members (or to no robot). */
export const SIGN_IN_MESSAGE =
  'The professional network asked for a sign-in instead of showing this page to a logged-out visitor; it cannot be read logged out right now. Try again later.';

/** Regional hosts (fr., de., il., …): two letters before the platform host. */
const REGIONAL = /^[a-z]{2}\.linkedin\.com$/;
/** A slug: percent-encoded letters allowed, never an encoded slash, backslash or a dot-only segment. */
const SLUG = /^[A-Za-z0-9%_.~-]{1,400}$/;
const ENCODED_SEPARATOR = /%(2f|5c|00)/i;

export type ContentKind = 'post' | 'article';

/**
 * The canonical URL of a post or article (https://www.linkedin.com/posts|pulse/<slug>, no query, no
 * trailing slash), or null for anything else. It is both what is fetched and the cache key.
 */
export function canonicalContentUrl(raw: string): string | null {
  let u = parseHostUrl(raw, PUBLIC_HOSTS);
  if (!u) {
    // Regional hosts serve the same pages: read them as the main host (credentials, ports and
    // schemes are checked by parseHostUrl on the rewritten URL).
    let candidate: URL;
    try {
      candidate = new URL(raw.trim());
    } catch {
      return null;
    }
    if (!REGIONAL.test(candidate.hostname.toLowerCase())) return null;
    candidate.hostname = PUBLIC_HOSTS[0];
    u = parseHostUrl(candidate.toString(), PUBLIC_HOSTS);
    if (!u) return null;
  }
  const m = u.pathname.match(/^\/(posts|pulse)\/([^/]+)\/?$/);
  const slug = m?.[2];
  if (!m || !slug || !SLUG.test(slug) || ENCODED_SEPARATOR.test(slug) || /^\.+$/.test(slug)) return null;
  return `${WEB_ORIGIN}/${m[1]}/${slug}`;
}

export const kindOf = (canonical: string): ContentKind => (new URL(canonical).pathname.startsWith('/pulse/') ? 'article' : 'post');

export const contentUrlParam = parsedBy(
  canonicalContentUrl,
  'Must be a post (https://www.linkedin.com/posts/<slug>) or article (https://www.linkedin.com/pulse/<slug>) URL',
);
