import http from 'node:http';
import https from 'node:https';
import got, { type Got, RequestError } from 'got';
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import { config, proxyUrl, upstreamBaseUrl } from '../config';
import { blocked, extractionFailed, unavailable } from '../errors';
import { isChallengePage, looksLikeHtml, upstreamRetryAfter } from './antibot';
import { ScrapeContext } from './context';
import { BROWSER_HEADERS, type PlatformUpstream } from './upstream';

export { ScrapeContext };
export type { PlatformUpstream };

/**
 * The one HTTP client set-up. Each platform describes its upstream once (base URL, headers);
 * `upstreamClient` gives it a got instance with browser-like headers, keep-alive or proxy agents,
 * and a request function that retries network errors and 5xx with backoff inside the deadline,
 * counts calls, and turns transport failures and anti-bot answers into the spec's errors.
 */

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  url: string;
}

export interface RequestOptions {
  searchParams?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
}

export interface UpstreamClient {
  readonly baseUrl: string;
  /** Raw text response for any status below 500 that is not an anti-bot answer. */
  get(ctx: ScrapeContext, path: string, opts?: RequestOptions): Promise<UpstreamResponse>;
  /** As get, and the body must be JSON: an HTML page where JSON was expected is a block. */
  getJson(ctx: ScrapeContext, path: string, opts?: RequestOptions): Promise<{ status: number; data: unknown; res: UpstreamResponse }>;
}

const keepAlive = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

function agentsFor(platform: string) {
  const proxy = proxyUrl(platform);
  if (!proxy) return keepAlive;
  const opts = { keepAlive: true, proxy };
  return { http: new HttpProxyAgent(opts), https: new HttpsProxyAgent(opts) };
}

const RETRY_BASE_MS = 150;

export function upstreamClient(def: PlatformUpstream): UpstreamClient {
  // Configuration is read when first used, not at import, so a process can set its environment first.
  let instance: Got | undefined;
  const client = () =>
    (instance ??= got.extend({
      headers: { ...BROWSER_HEADERS, ...def.headers },
      agent: agentsFor(def.platform),
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: true,
      maxRedirects: 5,
      decompress: true,
      http2: false,
    }));

  async function get(ctx: ScrapeContext, path: string, opts: RequestOptions = {}): Promise<UpstreamResponse> {
    const target = new URL(upstreamBaseUrl(def.platform, def.defaultBaseUrl) + path);
    for (const [k, v] of Object.entries(opts.searchParams ?? {})) {
      if (v !== undefined) target.searchParams.set(k, String(v));
    }
    let attempt = 0;
    for (;;) {
      const budget = Math.min(config.upstreamTimeoutMs, ctx.remaining());
      if (budget < 50) throw unavailable(`deadline reached before ${def.platform} answered`);
      let res: UpstreamResponse | undefined;
      let transportError: string | undefined;
      ctx.upstreamCalls += 1;
      try {
        const r = await client().get(target, { headers: opts.headers, timeout: { request: budget }, signal: ctx.signal });
        res = { status: r.statusCode, headers: r.headers, body: r.body, url: r.url };
      } catch (err) {
        if (ctx.signal?.aborted) throw unavailable(`${def.platform}: request abandoned by the pipeline`);
        transportError = err instanceof RequestError ? `${err.code}: ${err.message}` : String(err);
      }
      if (res && isChallengePage(res.body, res.headers)) {
        throw blocked(`${def.platform} answered ${res.status} with an anti-bot page`, upstreamRetryAfter(res.headers));
      }
      const retryable = transportError !== undefined || (res !== undefined && res.status >= 500);
      if (!retryable) {
        const r = res as UpstreamResponse;
        if (r.status === 403) throw blocked(`${def.platform} answered 403`, upstreamRetryAfter(r.headers));
        if (r.status === 429) throw blocked(`${def.platform} rate-limited us (429)`, upstreamRetryAfter(r.headers) ?? 60);
        return r;
      }
      const delay = RETRY_BASE_MS * 2 ** attempt * (0.5 + Math.random() / 2);
      if (attempt >= config.upstreamRetries || ctx.remaining() - delay < 250) {
        if (res) throw unavailable(`${def.platform} answered ${res.status}`, upstreamRetryAfter(res.headers));
        throw unavailable(`${def.platform} unreachable: ${transportError}`);
      }
      attempt += 1;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  async function getJson(ctx: ScrapeContext, path: string, opts: RequestOptions = {}) {
    const res = await get(ctx, path, {
      ...opts,
      headers: { accept: 'application/json', ...(opts.headers ?? {}) },
    });
    if (looksLikeHtml(res.body)) {
      throw blocked(`${def.platform} answered ${res.status} with an HTML page where JSON was expected`, upstreamRetryAfter(res.headers));
    }
    let data: unknown;
    try {
      data = res.body === '' ? null : JSON.parse(res.body);
    } catch {
      throw extractionFailed(`${def.platform} answered ${res.status} with a body that is not JSON`);
    }
    return { status: res.status, data, res };
  }

  return {
    get baseUrl() {
      return upstreamBaseUrl(def.platform, def.defaultBaseUrl);
    },
    get,
    getJson,
  };
}
