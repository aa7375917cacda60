/**
 * How a platform describes its upstream: plain data, no HTTP library, so the operation table and the
 * parameter parsers (which name the platforms' hosts) never pull the HTTP client into a bundle.
 */
import { upstreamOverride } from '../runtime/config';

/** A current desktop Chrome; platforms add Referer / Origin / Sec-Fetch-* of their own. */
export const BROWSER_USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36';
export const BROWSER_HEADERS: Record<string, string> = {
  'user-agent': BROWSER_USER_AGENT,
  'accept-language': 'en-US,en;q=0.9',
  'accept-encoding': 'gzip, deflate, br',
  'sec-ch-ua': '"Chromium";v="142", "Google Chrome";v="142", "Not_A Brand";v="99"',
  'sec-ch-ua-mobile': '?0',
  'sec-ch-ua-platform': '"Windows"',
};

/**
 * Headers for an XHR/fetch call from the platform's own web page at `origin` (`site`: 'same-site'
 * when the API answers on a sibling host of the page).
 */
export function sameOriginApiHeaders(origin: string, referer = `${origin}/`, site: 'same-origin' | 'same-site' = 'same-origin'): Record<string, string> {
  return {
    accept: 'application/json, text/plain, */*',
    origin,
    referer,
    'sec-fetch-dest': 'empty',
    'sec-fetch-mode': 'cors',
    'sec-fetch-site': site,
  };
}

/** Headers of a page the browser navigates to (an address typed in, not a call from a page). */
export const NAVIGATION_HEADERS: Readonly<Record<string, string>> = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'sec-fetch-dest': 'document',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-site': 'none',
};

export interface PlatformUpstream {
  /** Neutral platform name: names the UPSTREAM_<PLATFORM>_URL and SCRAPER_PROXY_URL_<PLATFORM> variables. */
  platform: string;
  /** Where a bare path ("/api/…") goes; only platform upstream modules name real hosts. */
  defaultBaseUrl: string;
  /**
   * Every host this platform's requests may reach (api, web, CDN alike): "x.com" is that host
   * exactly, ".x.com" any subdomain of it (only of a domain the platform owns: never a hosting
   * provider's, where anyone can register a name). A URL on any other host is never requested,
   * and a redirect to one is never followed. They are reached over https on the default port only.
   */
  hosts: readonly string[];
  headers: Record<string, string>;
  /**
   * An origin that replaces every origin of this upstream, as UPSTREAM_<PLATFORM>_URL does (which wins
   * over it): for a source a deployer or a test names by a loopback http URL (citygame), never for a
   * platform's own hosts. Its address is exempt from the public-address check, like the variable's.
   */
  override?: string;
}

export function isPlatformHost(def: Pick<PlatformUpstream, 'hosts'>, hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return def.hosts.some((h) => (h.startsWith('.') ? host.endsWith(h) && host.length > h.length : host === h));
}

/** https, on the default port, no credentials, on one of the platform's hosts. */
const onPlatform = (def: Pick<PlatformUpstream, 'hosts'>, u: URL) => u.protocol === 'https:' && u.port === '' && !u.username && !u.password && isPlatformHost(def, u.hostname);

/** Whether `raw` is an absolute URL the platform's requests may reach (a URL read from an upstream answer, say). */
export function isPlatformUrl(def: Pick<PlatformUpstream, 'hosts'>, raw: string): boolean {
  try {
    return onPlatform(def, new URL(raw));
  } catch {
    return false;
  }
}

/**
 * Where a request for `pathOrUrl` really goes. A path is taken on the platform's default base; an
 * absolute URL must be https on the default port of one of the platform's hosts (else null: not
 * requested). With UPSTREAM_<PLATFORM>_URL set, every origin of the platform is replaced by that
 * one, keeping the path and query, so one fake upstream serves the whole platform (`overridden`);
 * likewise an upstream's own `override`.
 */
export function resolveUpstream(def: PlatformUpstream, pathOrUrl: string): { real: URL; target: URL; overridden: boolean } | null {
  let real: URL;
  try {
    real = pathOrUrl.startsWith('/') ? new URL(def.defaultBaseUrl.replace(/\/+$/, '') + pathOrUrl) : new URL(pathOrUrl);
  } catch {
    return null;
  }
  if (!onPlatform(def, real)) return null;
  const override = upstreamOverride(def.platform) ?? def.override;
  if (!override) return { real, target: real, overridden: false };
  const base = new URL(override);
  const target = new URL(base.origin + base.pathname.replace(/\/+$/, '') + real.pathname + real.search);
  return { real, target, overridden: true };
}
