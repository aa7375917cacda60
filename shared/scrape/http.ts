import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import got, { type Got, RequestError } from 'got';
import { HttpProxyAgent, HttpsProxyAgent } from 'hpagent';
import { config, proxyUrl } from '../runtime/config';
import { ApiError, blocked, extractionFailed, unavailable } from '../http/errors';
import { type AnswerRules, type Expectation, type ParsedAnswer, type Signal, type UpstreamAnswer, classify, firstMatch, parseAnswer } from './answers';
import { NOT_PUBLIC, guardedLookup, isPublicAddress, overrideLookup } from './address';
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
 *   - requests only to the platform's own hosts, over https on the default port
 *     (UPSTREAM_<PLATFORM>_URL replaces all of them); redirects are followed by hand, and only while
 *     they stay there: a redirect anywhere else is never followed and is UPSTREAM_BLOCKED; a
 *     redirect to another host of the platform is sent without credentials or cookies;
 *   - direct connections only to public addresses, whatever a platform name resolves to
 *     (address.ts; the UPSTREAM_<PLATFORM>_URL address aside; through a proxy, the proxy resolves);
 *   - retries with backoff for network errors and 5xx, inside the request's deadline;
 *   - anti-bot pages recognised by content, whatever their status;
 *   - `json` / `answer` / `text`: answer -> repair -> retry -> classify, here and nowhere else. The
 *     answer is parsed; the request's repairs (`Repair`: a refused token replaced, a challenge page
 *     solved) may mend what made it fail and have it sent again, at most once per kind and never
 *     past the deadline; the last answer is classified by the platform's rules into data or the
 *     spec's error (answers.ts).
 */

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

/** What the retry will send: a repair may point it elsewhere (a new query id) or change its headers. */
export interface Retry {
  readonly ctx: ScrapeContext;
  url: string;
  opts: RequestOptions;
}

/**
 * How one thing a request depends on (a guest token, a query id, a challenge cookie) is mended when
 * an answer says it no longer holds. A platform declares its repairs with the request; the client
 * asks them, in the order given, before the answer is classified.
 */
export interface Repair {
  /** What is mended ("guest token"): a request is retried at most once per kind. */
  kind: string;
  /** The answers that call for it, in the vocabulary of `AnswerRules`. */
  when: readonly Signal[];
  /**
   * Mend it (obtain a new token, solve the page, change what `retry` sends) and say 'retry'; say
   * nothing when it cannot be mended: the answer is then classified as it is. May throw the spec's error.
   */
  mend(answer: ParsedAnswer, retry: Retry): Promise<'retry' | void>;
  /** Sees every answer of the request first, whatever it says (bookkeeping: a token's remaining quota). */
  note?(answer: ParsedAnswer): void;
  /** After the retry answered: undo what held for that one retry (single-use cookies). */
  afterRetry?(retry: Retry): void;
}

export type ClassifiedOptions = RequestOptions & Expectation & { repairs?: readonly Repair[] };

export interface UpstreamClient {
  readonly def: PlatformUpstream;
  readonly rules: AnswerRules;
  /**
   * The raw answer for any status below 500 that is not an anti-bot page (after retries), neither
   * repaired nor classified: the transport alone, for its own tests. Platforms use json/answer/text.
   */
  request(ctx: ScrapeContext, pathOrUrl: string, opts?: RequestOptions): Promise<UpstreamAnswer>;
  /** The parsed JSON of a usable answer; anything else throws the spec's error (see answers.ts). */
  json(ctx: ScrapeContext, pathOrUrl: string, opts: ClassifiedOptions): Promise<unknown>;
  /** As json, with the answer as well (headers, status). */
  answer(ctx: ScrapeContext, pathOrUrl: string, opts: ClassifiedOptions): Promise<ParsedAnswer>;
  /** A usable text/HTML answer (the body need not be JSON). */
  text(ctx: ScrapeContext, pathOrUrl: string, opts: Omit<ClassifiedOptions, 'jsonAnswer'>): Promise<ParsedAnswer>;
}

const keepAlive = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
const proxyAgents = new Map<string, { http: http.Agent; https: https.Agent }>();

function agentsFor(platform: string, scope?: string): { agents: { http: http.Agent; https: https.Agent }; proxied: boolean } {
  const proxy = proxyUrl(platform, scope);
  if (!proxy) return { agents: keepAlive, proxied: false };
  let agents = proxyAgents.get(proxy);
  if (!agents) {
    const opts = { keepAlive: true, proxy };
    agents = { http: new HttpProxyAgent(opts), https: new HttpsProxyAgent(opts) };
    proxyAgents.set(proxy, agents);
  }
  return { agents, proxied: true };
}

/**
 * Headers that carry credentials (Authorization, tokens, session and CSRF values, cookies): never
 * sent on a redirect to another host, even one of the platform's.
 */
const CREDENTIAL_HEADER = /^(authorization|proxy-authorization|cookie)$|token|auth|csrf|session|secret|api-?key/i;

/** Below this much time left no request is sent: it could not answer in time. */
const MIN_BUDGET_MS = 50;
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
  async function hop(ctx: ScrapeContext, target: URL, overridden: boolean, opts: RequestOptions, headers: Record<string, string>): Promise<Omit<UpstreamAnswer, 'url'>> {
    const { agents, proxied } = agentsFor(def.platform, opts.proxyScope);
    // A direct connection goes to public addresses only (a name is checked as it resolves); through
    // a proxy, the proxy resolves the name. UPSTREAM_<PLATFORM>_URL's address is the operator's.
    const literal = isIP(target.hostname.replace(/^\[|\]$/g, '')) !== 0;
    if (!overridden && !proxied && literal && !isPublicAddress(target.hostname)) {
      throw unavailable(`${def.platform}: refused to connect to ${target.hostname}: not a public address`);
    }
    const dnsLookup = proxied ? undefined : overridden ? overrideLookup : guardedLookup;
    let attempt = 0;
    for (;;) {
      const budget = Math.min(config.upstreamTimeoutMs, ctx.remaining());
      if (budget < MIN_BUDGET_MS) throw unavailable(`deadline reached before ${def.platform} answered`);
      let res: Omit<UpstreamAnswer, 'url'> | undefined;
      let transportError: string | undefined;
      ctx.upstreamCalls += 1;
      try {
        const cookie = opts.jar?.header();
        const r = await client()(target, {
          method: opts.method ?? 'GET',
          headers: { ...headers, ...(cookie ? { cookie } : {}) },
          ...(opts.body !== undefined ? { body: opts.body } : opts.form ? { form: opts.form } : opts.json !== undefined ? { json: opts.json } : {}),
          agent: agents,
          dnsLookup,
          timeout: { request: budget },
          signal: ctx.signal,
        });
        res = { status: r.statusCode, headers: r.headers, body: r.body };
        opts.jar?.take(res);
      } catch (err) {
        if (ctx.signal?.aborted) throw unavailable(`${def.platform}: request abandoned by the pipeline`);
        // The platform's name resolved to no public address: asking again would only be refused again.
        if ((err as { code?: string }).code === NOT_PUBLIC) throw unavailable(`${def.platform}: refused to connect: ${(err as Error).message}`);
        transportError = err instanceof RequestError ? `${err.code}: ${err.message}` : String(err);
      }
      if (res && isChallengePage(res.body, res.headers)) {
        throw blocked(`${def.platform} answered ${res.status} with an anti-bot page`, upstreamRetryAfter(res.headers));
      }
      // Only 5xx is retried: a non-standard status above 599 (a 999 "request denied") is an answer
      // for the platform's rules, and asking again at once would only be refused again.
      if (res && (res.status < 500 || res.status > 599)) return res;
      const delay = config.upstreamRetryBaseMs * 2 ** attempt * (0.5 + Math.random() / 2);
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
    let overridden = first.overridden;
    let method = opts.method;
    for (let redirects = 0; ; redirects++) {
      const res = await hop(ctx, target, overridden, { ...opts, method }, headers);
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
      // Another host, even one of the platform's: what proves who we are stays with the first.
      if (resolved.real.hostname !== real.hostname) {
        for (const name of Object.keys(headers)) if (CREDENTIAL_HEADER.test(name)) delete headers[name];
        opts = { ...opts, jar: undefined };
      }
      real = resolved.real;
      target = resolved.target;
      overridden = resolved.overridden;
      // 301/302/303 turn a POST into a GET, as browsers do.
      if (res.status !== 307 && res.status !== 308) {
        method = 'GET';
        opts = { ...opts, body: undefined, form: undefined, json: undefined };
      }
    }
  }

  /** answer -> repair -> retry -> classify. */
  async function classified(ctx: ScrapeContext, pathOrUrl: string, opts: ClassifiedOptions): Promise<ParsedAnswer> {
    const retry: Retry = { ctx, url: pathOrUrl, opts: { ...opts } };
    const repairs = opts.repairs ?? [];
    const spent = new Set<string>();
    let raw = await request(ctx, retry.url, retry.opts);
    for (;;) {
      const a = parseAnswer(rules, raw);
      for (const r of repairs) r.note?.(a);
      const mended = await firstMended(repairs, spent, a, retry);
      if (!mended) {
        const err = classify(rules, a, opts);
        if (err) throw err;
        return a;
      }
      spent.add(mended.kind);
      if (ctx.remaining() < MIN_BUDGET_MS) throw unavailable(`deadline reached before ${def.platform} ${opts.what} could be asked again (${mended.kind} mended)`);
      try {
        raw = await request(ctx, retry.url, retry.opts);
      } finally {
        mended.afterRetry?.(retry);
      }
    }
  }

  return {
    def,
    rules,
    request,
    answer: (ctx, pathOrUrl, opts) => classified(ctx, pathOrUrl, asJson(opts)),
    json: async (ctx, pathOrUrl, opts) => (await classified(ctx, pathOrUrl, asJson(opts))).data,
    text: (ctx, pathOrUrl, opts) => classified(ctx, pathOrUrl, { ...opts, jsonAnswer: false }),
  };
}

const asJson = (opts: ClassifiedOptions): ClassifiedOptions => ({ ...opts, headers: { accept: 'application/json', ...(opts.headers ?? {}) } });

/** The first repair, in order, that this answer calls for, that has not had its retry, and that mended it. */
async function firstMended(repairs: readonly Repair[], spent: ReadonlySet<string>, a: ParsedAnswer, retry: Retry): Promise<Repair | undefined> {
  for (const r of repairs) {
    if (spent.has(r.kind) || !firstMatch(r.when, a)) continue;
    if ((await r.mend(a, retry)) === 'retry') return r;
  }
  return undefined;
}
