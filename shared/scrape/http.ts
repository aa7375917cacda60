import http from 'node:http';
import https from 'node:https';
import got, { type Got, RequestError } from 'got';
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import { config, proxyUrl } from '../config';
import { ApiError, blocked, extractionFailed, unavailable } from '../errors';
import { type AnswerRules, type Expectation, type ParsedAnswer, classify, parseAnswer } from './answers';
import { isChallengePage, upstreamRetryAfter } from './antibot';
import { ScrapeContext } from './context';
import type { CookieJar } from './cookies';
import { BROWSER_HEADERS, type PlatformUpstream, resolveUpstream } from './upstream';

export { ScrapeContext };
export type { PlatformUpstream };

/**
 * The one HTTP client set-up. Each platform describes its upstream once (hosts, base URL, headers)
 * and its answers once (`AnswerRules`); `upstreamClient` gives it:
 *   - browser-like headers, keep-alive or CONNECT-proxy agents (SCRAPER_PROXY_URL[_<PLATFORM>[_<SCOPE>]]);
 *   - requests only to the platform's own hosts (UPSTREAM_<PLATFORM>_URL replaces all of them);
 *     redirects are followed by hand, and only while they stay on those hosts: a redirect anywhere
 *     else is never followed and is UPSTREAM_BLOCKED;
 *   - retries with backoff for network errors and 5xx, inside the request's deadline;
 *   - anti-bot pages recognised by content, whatever their status;
 *   - `json`/`text`: the answer classified by the platform's rules into data or the spec's error.
 */
export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The real URL that answered (before UPSTREAM_<PLATFORM>_URL replaced its origin). */
  url: string;
}

export interface RequestOptions {
  method?: 'GET' | 'POST';
  searchParams?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string | undefined>;
  /** A request body (POST); `form` is sent urlencoded, `json` as JSON. */
  body?: string;
  form?: Record<string, string>;
  json?: unknown;
  /** Cookies to send, and to keep what the upstream sets on every hop. */
  jar?: CookieJar;
  /** A narrower proxy: SCRAPER_PROXY_URL_<PLATFORM>_<SCOPE> wins when set (e.g. a region). */
  proxyScope?: string;
  /** Follow same-platform redirects (default true). */
  followRedirects?: boolean;
}

export type ClassifiedOptions = RequestOptions & Expectation;

export interface UpstreamClient {
  readonly def: PlatformUpstream;
  readonly rules: AnswerRules;
  /** The raw answer for any status below 500 that is not an anti-bot page (after retries). */
  request(ctx: ScrapeContext, pathOrUrl: string, opts?: RequestOptions): Promise<UpstreamAnswer>;
  /** The parsed JSON of a usable answer; anything else throws the spec's error (see answers.ts). */
  json(ctx: ScrapeContext, pathOrUrl: string, opts: ClassifiedOptions): Promise<unknown>;
  /** As json, with the answer as well (headers, status). */
  answer(ctx: ScrapeContext, pathOrUrl: string, opts: ClassifiedOptions): Promise<ParsedAnswer>;
  /** The body of a usable text/HTML answer. */
  text(ctx: ScrapeContext, pathOrUrl: string, opts: Omit<ClassifiedOptions, 'json'>): Promise<ParsedAnswer>;
}

const keepAlive = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
const proxyAgents = new Map<string, { http: http.Agent; https: https.Agent }>();

function agentsFor(platform: string, scope?: string) {
  const proxy = proxyUrl(platform, scope);
  if (!proxy) return keepAlive;
  let agents = proxyAgents.get(proxy);
  if (!agents) {
    const opts = { keepAlive: true, proxy };
    agents = { http: new HttpProxyAgent(opts), https: new HttpsProxyAgent(opts) };
    proxyAgents.set(proxy, agents);
  }
  return agents;
}

const RETRY_BASE_MS = 150;
const MAX_REDIRECTS = 5;

let instance: Got | undefined;
const client = () =>
  (instance ??= got.extend({
    retry: { limit: 0 },
    throwHttpErrors: false,
    followRedirect: false,
    decompress: true,
    http2: false,
  }));

export function upstreamClient(def: PlatformUpstream, rules: AnswerRules): UpstreamClient {
  /** One hop: one URL, retried on transport errors and 5xx inside the deadline. */
  async function hop(ctx: ScrapeContext, target: URL, opts: RequestOptions, headers: Record<string, string>): Promise<Omit<UpstreamAnswer, 'url'>> {
    let attempt = 0;
    for (;;) {
      const budget = Math.min(config.upstreamTimeoutMs, ctx.remaining());
      if (budget < 50) throw unavailable(`deadline reached before ${def.platform} answered`);
      let res: Omit<UpstreamAnswer, 'url'> | undefined;
      let transportError: string | undefined;
      ctx.upstreamCalls += 1;
      try {
        const cookie = opts.jar?.header();
        const r = await client()(target, {
          method: opts.method ?? 'GET',
          headers: { ...headers, ...(cookie ? { cookie } : {}) },
          ...(opts.body !== undefined ? { body: opts.body } : opts.form ? { form: opts.form } : opts.json !== undefined ? { json: opts.json } : {}),
          agent: agentsFor(def.platform, opts.proxyScope),
          timeout: { request: budget },
          signal: ctx.signal,
        });
        res = { status: r.statusCode, headers: r.headers, body: r.body };
        opts.jar?.take(res);
      } catch (err) {
        if (ctx.signal?.aborted) throw unavailable(`${def.platform}: request abandoned by the pipeline`);
        transportError = err instanceof RequestError ? `${err.code}: ${err.message}` : String(err);
      }
      if (res && isChallengePage(res.body, res.headers)) {
        throw blocked(`${def.platform} answered ${res.status} with an anti-bot page`, upstreamRetryAfter(res.headers));
      }
      // Only 5xx is retried: a non-standard status above 599 (a 999 "request denied") is an answer
      // for the platform's rules, and asking again at once would only be refused again.
      if (res && (res.status < 500 || res.status > 599)) return res;
      const delay = RETRY_BASE_MS * 2 ** attempt * (0.5 + Math.random() / 2);
      if (attempt >= config.upstreamRetries || ctx.remaining() - delay < 250) {
        if (res) throw unavailable(`${def.platform} answered ${res.status}`, upstreamRetryAfter(res.headers));
        throw unavailable(`${def.platform} unreachable: ${transportError}`);
      }
      attempt += 1;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  async function request(ctx: ScrapeContext, pathOrUrl: string, opts: RequestOptions = {}): Promise<UpstreamAnswer> {
    const first = resolveUpstream(def, pathOrUrl);
    if (!first) throw new ApiError('EXTRACTION_FAILED', 'The source returned data in an unexpected shape', { internal: `${def.platform}: refused to request ${pathOrUrl}: not one of the platform's hosts` });
    for (const [k, v] of Object.entries(opts.searchParams ?? {})) {
      if (v !== undefined) {
        first.real.searchParams.set(k, String(v));
        first.target.searchParams.set(k, String(v));
      }
    }
    const headers: Record<string, string> = { ...BROWSER_HEADERS, ...def.headers };
    for (const [k, v] of Object.entries(opts.headers ?? {})) {
      if (v === undefined) delete headers[k];
      else headers[k] = v;
    }
    let real = first.real;
    let target = first.target;
    let method = opts.method;
    for (let redirects = 0; ; redirects++) {
      const res = await hop(ctx, target, { ...opts, method }, headers);
      const location = res.headers.location;
      if (res.status < 300 || res.status >= 400 || typeof location !== 'string') return { ...res, url: real.toString() };
      let next: URL;
      try {
        next = new URL(location, real);
      } catch {
        throw extractionFailed(`${def.platform} redirected to an unreadable location`);
      }
      const resolved = resolveUpstream(def, next.toString());
      // Off the platform's hosts: never followed, whoever asked, and the source is not answering as itself.
      if (!resolved) throw blocked(`${def.platform} answered ${res.status}: redirected off the platform to ${next.host || next.protocol} (not followed)`, upstreamRetryAfter(res.headers));
      if (opts.followRedirects === false) return { ...res, url: real.toString() };
      if (redirects >= MAX_REDIRECTS) throw extractionFailed(`${def.platform}: more than ${MAX_REDIRECTS} redirects`);
      real = resolved.real;
      target = resolved.target;
      // 301/302/303 turn a POST into a GET, as browsers do.
      if (res.status !== 307 && res.status !== 308) {
        method = 'GET';
        opts = { ...opts, body: undefined, form: undefined, json: undefined };
      }
    }
  }

  async function answer(ctx: ScrapeContext, pathOrUrl: string, opts: ClassifiedOptions): Promise<ParsedAnswer> {
    const parsed = parseAnswer(rules, await request(ctx, pathOrUrl, { ...opts, headers: { accept: 'application/json', ...(opts.headers ?? {}) } }));
    const err = classify(rules, parsed, opts);
    if (err) throw err;
    return parsed;
  }

  return {
    def,
    rules,
    request,
    answer,
    json: async (ctx, pathOrUrl, opts) => (await answer(ctx, pathOrUrl, opts)).data,
    async text(ctx, pathOrUrl, opts) {
      const parsed = parseAnswer(rules, await request(ctx, pathOrUrl, opts));
      const err = classify(rules, parsed, { ...opts, json: false });
      if (err) throw err;
      return parsed;
    },
  };
}
