/**
 * How a platform describes its upstream: plain data, no HTTP library, so the operation table and the
 * parameter parsers (which name the platforms' hosts) never pull the HTTP client into a bundle.
 */
/** A current desktop Chrome; platforms add Referer / Origin / Sec-Fetch-* of their own. */
export const BROWSER_HEADERS: Record<string, string> = {
  'user-agent':
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36',
  'accept-language': 'en-US,en;q=0.9',
  'accept-encoding': 'gzip, deflate, br',
  'sec-ch-ua': '"Chromium";v="142", "Google Chrome";v="142", "Not_A Brand";v="99"',
  'sec-ch-ua-mobile': '?0',
  'sec-ch-ua-platform': '"Windows"',
};

/** Headers for an XHR/fetch call from the platform's own web page. */
export function sameOriginApiHeaders(origin: string, referer = `${origin}/`): Record<string, string> {
  return {
    accept: 'application/json, text/plain, */*',
    origin,
    referer,
    'sec-fetch-dest': 'empty',
    'sec-fetch-mode': 'cors',
    'sec-fetch-site': 'same-origin',
  };
}

export interface PlatformUpstream {
  /** Neutral platform name: names the UPSTREAM_<PLATFORM>_URL and SCRAPER_PROXY_URL_<PLATFORM> variables. */
  platform: string;
  /** The real upstream base URL; only platform upstream modules name real hosts. */
  defaultBaseUrl: string;
  headers: Record<string, string>;
}
