import { blocked, unavailable } from '../../http/errors';
import type { ScrapeContext } from '../../scrape/context';
import { xBogus } from './xbogus';

/**
 * Who signs the web app's /api/* URLs. Two implementations, chosen by configuration:
 *   - built-in (default): the pure-TypeScript X-Bogus signer (xbogus.ts). It cannot make the
 *     newer X-Gnarly signature, which some endpoints have required since 2025; they then answer an
 *     empty body, reported as UPSTREAM_BLOCKED.
 *   - SHORTVIDEO_SIGNER_URL: an external signing service with the request/response contract of
 *     the common open-source signing servers (a headless browser running the platform's own SDK):
 *       POST <SHORTVIDEO_SIGNER_URL>  {"url": "<unsigned URL>", "userAgent": "<UA>"}
 *       -> {"status": "ok", "data": {"signed_url": "...", "navigator": {"user_agent": "..."},
 *           "cookies": "a=1; b=2"}}
 *     The signed URL is requested with that User-Agent and those cookies. The signed URL must stay
 *     on the platform's hosts (the HTTP client refuses any other).
 */
export interface SignedRequest {
  url: string;
  userAgent: string;
  /** Cookies the signature was made with (they are sent with the request). */
  cookies: Record<string, string>;
}

export interface Signer {
  readonly kind: 'built-in' | 'external';
  sign(ctx: ScrapeContext, url: string, userAgent: string): Promise<SignedRequest>;
}

export const builtInSigner: Signer = {
  kind: 'built-in',
  async sign(_ctx, url, userAgent) {
    const u = new URL(url);
    const query = u.search.replace(/^\?/, '');
    const signed = `${url}${query ? '&' : '?'}X-Bogus=${xBogus({ query, userAgent })}`;
    return { url: signed, userAgent, cookies: {} };
  },
};

export function parseCookieString(s: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof s !== 'string') return out;
  for (const part of s.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

export function externalSigner(endpoint: string): Signer {
  return {
    kind: 'external',
    async sign(ctx, url, userAgent) {
      const budget = Math.min(10_000, ctx.remaining() - 500);
      if (budget < 100) throw unavailable('deadline reached before the signing service answered');
      let res: Response;
      try {
        res = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ url, userAgent }),
          signal: AbortSignal.timeout(budget),
        });
      } catch (err) {
        throw unavailable(`shortvideo signing service unreachable: ${String(err)}`);
      }
      const text = await res.text();
      let body: { status?: unknown; data?: { signed_url?: unknown; navigator?: { user_agent?: unknown }; cookies?: unknown } } | undefined;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const signedUrl = body?.data?.signed_url;
      if (!res.ok || body?.status !== 'ok' || typeof signedUrl !== 'string') {
        throw blocked(`shortvideo signing service answered ${res.status}: ${text.slice(0, 200)}`);
      }
      const ua = body.data?.navigator?.user_agent;
      return { url: signedUrl, userAgent: typeof ua === 'string' && ua ? ua : userAgent, cookies: parseCookieString(body.data?.cookies) };
    },
  };
}

/** SHORTVIDEO_SIGNER_URL set: the external service; unset: the built-in X-Bogus signer. */
export function configuredSigner(): Signer {
  const url = process.env.SHORTVIDEO_SIGNER_URL;
  return url ? externalSigner(url) : builtInSigner;
}
