/**
 * Recognising anti-bot answers by their content, not only their status: a Cloudflare (or similar)
 * challenge or block page is UPSTREAM_BLOCKED even when it arrives as a 200, a 404 or a 503.
 */
const CHALLENGE_MARKERS = [
  /<title>\s*just a moment/i,
  /\/cdn-cgi\/challenge-platform\//i,
  /cf-browser-verification|cf_chl_opt|cf-chl-/i,
  /attention required!?\s*\|\s*cloudflare/i,
  /sorry, you have been blocked/i,
  /you are unable to access/i,
  /needs to review the security of your connection/i,
  /checking (if the site connection is secure|your browser before accessing)/i,
  /enable javascript and cookies to continue/i,
  /unavailable in your (area|country|region)/i,
  /<title>\s*access denied/i,
  /captcha-delivery\.com|geo\.captcha|px-captcha|_incapsula_resource/i,
];

export function isChallengePage(body: string, headers: Record<string, string | string[] | undefined>): boolean {
  if (String(headers['cf-mitigated'] ?? '').toLowerCase() === 'challenge') return true;
  const head = body.slice(0, 20_000);
  return CHALLENGE_MARKERS.some((re) => re.test(head));
}

/**
 * A sign-in or sign-up page: a password field, a form posting to a login path, or a title saying
 * so. Positive evidence of a login wall; an HTML page without it is only a page without the data.
 */
const SIGN_IN_MARKERS = [
  /<input\b[^>]*\btype\s*=\s*["']?password\b/i,
  /<form\b[^>]*\baction\s*=\s*["'][^"']*(log-?in|sign-?in|sign-?up|authwall|checkpoint)/i,
  /<title>[^<]*\b(log ?in|sign ?in|sign ?up)\b[^<]*<\/title>/i,
];

export function isSignInPage(body: string): boolean {
  const head = body.slice(0, 50_000);
  return SIGN_IN_MARKERS.some((re) => re.test(head));
}

/** The <title> of an HTML page, for logs ("" without one). */
export function pageTitle(body: string): string {
  return (/<title[^>]*>([^<]*)<\/title>/i.exec(body.slice(0, 50_000))?.[1] ?? '').replace(/\s+/g, ' ').trim().slice(0, 120);
}

/** Does a body that should be JSON look like an HTML page instead? */
export function looksLikeHtml(body: string): boolean {
  const start = body.trimStart().slice(0, 200).toLowerCase();
  return start.startsWith('<!doctype html') || start.startsWith('<html') || /^<(head|body|title|meta|script|div)\b/.test(start);
}

/** Retry-After in seconds from an upstream's headers (Retry-After seconds/date, or x-ratelimit-reset / x-rate-limit-reset). */
export function upstreamRetryAfter(headers: Record<string, string | string[] | undefined>, now = Date.now()): number | undefined {
  const ra = headers['retry-after'];
  if (typeof ra === 'string') {
    if (/^\d+$/.test(ra)) return clamp(Number(ra));
    const t = Date.parse(ra);
    if (!Number.isNaN(t)) return clamp((t - now) / 1000);
  }
  const reset = headers['x-ratelimit-reset'] ?? headers['x-rate-limit-reset'] ?? headers['ratelimit-reset'];
  if (typeof reset === 'string') {
    if (/^\d+$/.test(reset)) {
      const n = Number(reset);
      // epoch seconds vs. seconds-from-now
      return clamp(n > 1e9 ? n - now / 1000 : n);
    }
    const t = Date.parse(reset);
    if (!Number.isNaN(t)) return clamp((t - now) / 1000);
  }
  return undefined;
}

const clamp = (s: number) => Math.min(3600, Math.max(1, Math.ceil(s)));
