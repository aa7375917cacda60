import { randomBytes, randomInt } from 'node:crypto';
import { blocked, extractionFailed } from '../../http/errors';
import type { Log } from '../../runtime/log';
import type { AnswerRules, ParsedAnswer, Signal } from '../../scrape/answers';
import { CookieJar } from '../../scrape/cookies';
import { type Repair, type ScrapeContext, upstreamClient } from '../../scrape/http';
import { get, isObject, str } from '../../scrape/map';
import { BROWSER_USER_AGENT, NAVIGATION_HEADERS, sameOriginApiHeaders } from '../../scrape/upstream';
import { keptWarm } from '../../scrape/warm';
import { type Signer, configuredSigner } from './signer';
import { UPSTREAM, WEB_ORIGIN } from './site';
import { parseWafChallenge, solveWafChallenge } from './waf';

/**
 * shortvideo upstream plumbing, shared by the platform's operations:
 *   GET https://www.tiktok.com/                     home page: primes the jar (ttwid, msToken, tt_chain_token)
 *   GET https://www.tiktok.com/api/comment/list/    comments of a video (signed)
 *   GET https://www.tiktok.com/api/challenge/detail/     a hashtag (signed)
 *   GET https://www.tiktok.com/api/challenge/item_list/  a hashtag's videos (signed)
 *   GET https://www.tiktok.com/@<handle>             profile page (rehydration JSON: the account)
 *   GET https://www.tiktok.com/api/user/detail/      an account by handle or id (signed)
 *   GET https://www.tiktok.com/api/user/list/        accounts an account follows (signed, scene=21)
 *   GET https://www.tiktok.com/api-live/user/room/    an account's live room and status (unsigned)
 *   GET https://webcast.tiktok.com/webcast/room/info/ a live room (unsigned)
 * Every /api/ call carries the web app's base query parameters, generated to agree with the
 * User-Agent (the signatures cover both), a random device id per session, and msToken from the jar.
 * The WAF proof-of-work page is solved (waf.ts) and the page requested again, inside the deadline.
 */

// ---- the answers, in one literal -----------------------------------------------------------------

const LOGIN = 'The source requires a logged-in session for this, which the service does not use';
/** The WAF proof-of-work page (waf.ts): solved once by the request's repair; back again, it is a block. */
const WAF_PAGE: Signal = { test: (a) => parseWafChallenge(a.body) !== null };
export const RULES: AnswerRules = {
  platform: 'shortvideo',
  code: (d) => (get(d, 'statusCode') ?? get(d, 'status_code') ?? get(d, 'code')) as string | number | undefined,
  message: (d) => str(get(d, 'statusMsg')) ?? str(get(d, 'status_msg')) ?? str(get(d, 'message')),
  blocked: [
    WAF_PAGE,
    { code: 10000, say: 'The source asked for a captcha (code 10000); try again later' },
    { test: (a) => get(a.data, 'type') === 'verify', say: 'The source asked for a captcha (verify); try again later' },
    { test: (a) => a.headers['bdturing-verify'] !== undefined, say: 'The source asked for a captcha (bdturing-verify); try again later' },
    { code: [10101, 10102], say: LOGIN },
    { status: [301, 302, 303, 307, 308], test: (a) => /\/login\b/.test(String(a.headers.location)), say: LOGIN },
    {
      status: 200,
      body: /^\s*$/,
      say: 'The source answered with an empty body: it refused the request signature (X-Bogus/X-Gnarly) or msToken. Configure SHORTVIDEO_SIGNER_URL for a signing service, or try again later',
    },
  ],
  // 10201: an invalid parameter; for a request that carried the caller's cursor, that cursor.
  badCursor: [{ code: 10201 }],
  notFound: [
    { code: [10202, 10204, 10221], say: 'The content does not exist or was removed' },
    // api-live/user/room: {"data": null, "message": "user_not_found", "statusCode": 19881007}
    { code: 19881007, say: 'No such account' },
    { code: [10216, 10222], say: 'The content is private' },
    { code: 10231, say: 'The content is not available in this region' },
  ],
};

/**
 * The web pages: a WAF page that comes back after it was solved is a block; 401, 403 and 429 are
 * blocks (the shared defaults); any other status is the caller's to read (a profile page says why
 * in its data).
 */
const PAGE_RULES: AnswerRules = { platform: 'shortvideo', blocked: [WAF_PAGE] };

const api = upstreamClient(UPSTREAM, RULES);
const web = upstreamClient(UPSTREAM, PAGE_RULES);

// ---- the session: User-Agent, device, cookies ----------------------------------------------------

/** What the base parameters say about the browser, read from its User-Agent. */
export function browserOf(userAgent: string) {
  const mac = /Macintosh|Mac OS X/.test(userAgent);
  return {
    browser_name: 'Mozilla',
    // What the web app sends: everything after "Mozilla/" (URL-encoded by the query string).
    browser_version: userAgent.replace(/^Mozilla\//, ''),
    browser_platform: mac ? 'MacIntel' : 'Win32',
    os: mac ? 'mac' : 'windows',
  };
}

/** device_id as the web app draws it (a 19-digit number in the range public clients use). */
export function randomDeviceId(): string {
  const lo = 7250000000000000000n;
  const span = 75099899999994577n;
  const r = BigInt(`0x${randomBytes(8).toString('hex')}`) % span;
  return (lo + r).toString();
}

const randomMsToken = () => randomBytes(96).toString('base64url').slice(0, 128);

export class Session {
  readonly jar = new CookieJar();
  deviceId = randomDeviceId();
  verifyFp = `verify_${randomBytes(4).toString('hex').slice(0, 7)}`;
  userAgent = BROWSER_USER_AGENT;
  primed = false;
  private priming?: Promise<void>;

  /** The upstream keeps answering the same page: a new device, as the web app would be. */
  renewDevice(): void {
    this.deviceId = randomDeviceId();
    this.verifyFp = `verify_${randomBytes(4).toString('hex').slice(0, 7)}`;
  }

  /** The first request of a warm function fetches the home page for the jar's cookies (once). */
  prime(ctx: ScrapeContext, log: Log): Promise<void> {
    if (this.primed) return Promise.resolve();
    this.priming ??= fetchPage(ctx, log, `${WEB_ORIGIN}/`, 'home page', { session: this })
      .then(() => {
        this.primed = true;
        log.debug('shortvideo jar primed', { cookies: ['ttwid', 'msToken', 'tt_chain_token'].filter((c) => this.jar.has(c)) });
      })
      .finally(() => (this.priming = undefined));
    return this.priming;
  }

  /** The web app's base query parameters, consistent with this session's User-Agent. */
  baseParams(region: string, fromPage: string): Record<string, string> {
    return {
      aid: '1988',
      app_language: 'en',
      app_name: 'tiktok_web',
      browser_language: 'en-US',
      ...browserOf(this.userAgent),
      browser_online: 'true',
      channel: 'tiktok_web',
      cookie_enabled: 'true',
      data_collection_enabled: 'true',
      device_id: this.deviceId,
      device_platform: 'web_pc',
      focus_state: 'true',
      from_page: fromPage,
      history_len: String(randomInt(2, 15)),
      is_fullscreen: 'false',
      is_page_visible: 'true',
      language: 'en',
      priority_region: region,
      referer: '',
      region: region || 'US',
      root_referer: `${WEB_ORIGIN}/`,
      screen_height: '1080',
      screen_width: '1920',
      tz_name: 'UTC',
      user_is_login: 'false',
      verifyFp: this.verifyFp,
      webcast_language: 'en',
      msToken: this.jar.get('msToken') ?? (this.jar.set('msToken', randomMsToken()), this.jar.get('msToken')!),
    };
  }
}

/** One session per warm function (the jar and device id live as long as the container). */
export let session = new Session();

/** The signer SHORTVIDEO_SIGNER_URL names when the container starts (built-in when unset). */
let signer: Signer | undefined;
const currentSigner = () => (signer ??= configuredSigner());

keptWarm('shortvideo', () => {
  session = new Session();
  signer = undefined;
});

// ---- requests ------------------------------------------------------------------------------------

/**
 * The WAF proof-of-work page, served instead of a page or an API answer: solved inside the deadline,
 * and the request sent again once with the answer cookies, which are single-use (the next request
 * gets a challenge of its own if needed).
 */
const solveWaf = (log: Log, what: string): Repair => {
  let answered: string[] = [];
  return {
    kind: 'WAF challenge',
    when: [WAF_PAGE],
    async mend(answer, retry) {
      const started = Date.now();
      const cookies = solveWafChallenge(parseWafChallenge(answer.body)!, retry.ctx.deadline - 500);
      if (!cookies) throw blocked(`shortvideo ${what}: WAF challenge not solved before the deadline`);
      log.info('shortvideo WAF challenge solved', { what, ms: Date.now() - started });
      answered = Object.keys(cookies);
      for (const [k, v] of Object.entries(cookies)) retry.opts.jar?.set(k, v);
      return 'retry';
    },
    afterRetry(retry) {
      for (const name of answered) retry.opts.jar?.delete(name);
    },
  };
};

export interface PageCall {
  /** The answers that mean the page's subject does not exist (else any status is the caller's to read). */
  notFound?: readonly Signal[];
  session?: Session;
}

/** A public web page of the platform, with the session's cookies (the WAF challenge solved when it is served instead). */
export function fetchPage(ctx: ScrapeContext, log: Log, url: string, what: string, { notFound, session: s = session }: PageCall = {}): Promise<ParsedAnswer> {
  return web.text(ctx, url, {
    headers: { ...NAVIGATION_HEADERS, 'user-agent': s.userAgent },
    jar: s.jar,
    what,
    anyStatus: true,
    notFound,
    repairs: [solveWaf(log, what)],
  });
}

export interface ApiCall {
  /** Path under `origin` (default https://www.tiktok.com), e.g. /api/comment/list/. */
  path: string;
  origin?: string;
  /** Signed with X-Bogus (default); the live endpoints are called unsigned. */
  signed?: boolean;
  /** Prime the session's jar first (default); the live endpoints need none of its cookies. */
  prime?: boolean;
  /** Cookies to send instead of the session's jar. */
  jar?: CookieJar;
  /** The endpoint's own parameters (added after the base parameters). */
  params: Record<string, string | number>;
  /** The web page the call is made from (Referer). */
  referer: string;
  fromPage: string;
  region?: string;
  what: string;
  /** The request carries the caller's cursor: an invalid-parameter answer is a bad cursor (400). */
  cursor?: boolean;
}

export interface ApiAnswer {
  data: Record<string, unknown>;
  /** The jar's tt_chain_token after this answer (media URLs need it). */
  chainToken: string | undefined;
}

/**
 * A signed GET of one /api/ endpoint: the jar primed first (once per warm function), base
 * parameters + the endpoint's, signed, sent with the jar's cookies (and the region's proxy), a WAF
 * page solved, then classified by RULES; a 200 whose status code is not 0 is an unknown shape.
 */
export async function apiGet(ctx: ScrapeContext, log: Log, call: ApiCall, s: Session = session): Promise<ApiAnswer> {
  if (call.prime !== false) await s.prime(ctx, log);
  const jar = call.jar ?? s.jar;
  const query = new URLSearchParams({ ...s.baseParams(call.region ?? '', call.fromPage) });
  for (const [k, v] of Object.entries(call.params)) query.set(k, String(v));
  const unsigned = `${call.origin ?? WEB_ORIGIN}${call.path}?${query.toString()}`;
  const signed = call.signed === false ? { url: unsigned, userAgent: s.userAgent, cookies: {} } : await currentSigner().sign(ctx, unsigned, s.userAgent);
  for (const [k, v] of Object.entries(signed.cookies)) jar.set(k, v);
  if (signed.userAgent !== s.userAgent) s.userAgent = signed.userAgent; // later calls agree with the signer's browser

  const parsed = await api.answer(ctx, signed.url, {
    headers: { ...sameOriginApiHeaders(WEB_ORIGIN, call.referer), 'user-agent': signed.userAgent },
    jar,
    // The API never redirects an answer it gives; a redirect is a login wall (RULES), not followed.
    followRedirects: false,
    proxyScope: call.region || undefined,
    what: call.what,
    cursor: call.cursor,
    repairs: [solveWaf(log, call.what)],
  });
  const code = parsed.code;
  // Every answer of the web API carries its status code (0 = OK): an object without one is not the
  // API answering as itself (an interstitial, a changed shape), never an empty success.
  if (code === undefined || code === null) throw extractionFailed(`shortvideo ${call.what}: an answer without a status code`);
  if (String(code) !== '0') {
    throw extractionFailed(`shortvideo ${call.what}: status code ${String(code)} "${parsed.message ?? ''}"`);
  }
  if (!isObject(parsed.data)) throw extractionFailed(`shortvideo ${call.what}: the answer is not an object`);
  return { data: parsed.data, chainToken: jar.get('tt_chain_token') };
}
