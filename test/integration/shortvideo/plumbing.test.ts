import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { ApiError } from '../../../shared/http/errors';
import { logger } from '../../../shared/runtime/log';
import { ScrapeContext } from '../../../shared/scrape/http';
import { isPlatformHost, resolveUpstream } from '../../../shared/scrape/upstream';
import { Session, apiGet, browserOf, randomDeviceId } from '../../../shared/platforms/shortvideo/client';
import { startCold } from '../../../shared/scrape/warm';
import { UPSTREAM } from '../../../shared/platforms/shortvideo/site';
import { builtInSigner, externalSigner, parseCookieString } from '../../../shared/platforms/shortvideo/signer';
import { MAX_WAF_ANSWER, parseWafChallenge, solveWafChallenge } from '../../../shared/platforms/shortvideo/waf';
import { readXBogus, xBogus } from '../../../shared/platforms/shortvideo/xbogus';
import { FakeUpstream, type RecordedRequest } from '../../../dev/upstream/fake';

const ctx = () => ScrapeContext.withBudget(5000);

// ---- X-Bogus -------------------------------------------------------------------------------------

describe('X-Bogus signer (published vectors)', () => {
  // Vector published in the README of github.com/B1gM8c/X-Bogus (commit 8258f8d6, "接口调用方法"):
  // the query of https://www.douyin.com/aweme/v1/web/aweme/detail/?aweme_id=7190049956269444386&…
  // signed for a Chrome 109 User-Agent gives DFSzswSLfwUANnEftawINt9WcBj3. The time and canvas
  // fingerprint it was made with are read back from the value itself (they are carried in it, and
  // that build's User-Agent key is [0, 0, 0]); the rest must be computed exactly.
  const PUBLISHED = {
    query: 'aweme_id=7190049956269444386&aid=1128&version_name=23.5.0&device_platform=android&os_version=2333',
    userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36',
    xBogus: 'DFSzswSLfwUANnEftawINt9WcBj3',
  };

  it('reproduces the published value byte for byte', () => {
    const fields = readXBogus(PUBLISHED.xBogus)!;
    expect(fields).toMatchObject({ uaKey: [0, 0, 0], time: 1677742816, canvas: 0 });
    expect(xBogus({ query: PUBLISHED.query, userAgent: PUBLISHED.userAgent, time: fields.time, canvas: fields.canvas, uaKey: fields.uaKey })).toBe(PUBLISHED.xBogus);
  });

  it('a different query, User-Agent or time gives a different value', () => {
    const { time, canvas, uaKey } = readXBogus(PUBLISHED.xBogus)!;
    const base = { query: PUBLISHED.query, userAgent: PUBLISHED.userAgent, time, canvas, uaKey };
    expect(xBogus({ ...base, query: PUBLISHED.query.replace('7190049956269444386', '7190049956269444387') })).not.toBe(PUBLISHED.xBogus);
    expect(xBogus({ ...base, userAgent: PUBLISHED.userAgent.replace('109', '110') })).not.toBe(PUBLISHED.xBogus);
    expect(xBogus({ ...base, time: time + 1 })).not.toBe(PUBLISHED.xBogus);
  });

  // A real browser capture published in github.com/Johnserf-Seed/TikTokDownload issue #542
  // (2023-09-08): the web app's own X-Bogus for this query. Its query digest bytes must be ours.
  it("reads a real browser capture: its query digest is the one we compute for the capture's query", () => {
    const query =
      'device_platform=webapp&aid=6383&channel=channel_pc_web&publish_video_strategy_type=2&source=channel_pc_web&sec_user_id=MS4wLjABAAAArEguk4UmgcNDiCSPKjfA7kAL5HIvZDp1XaTU8uTMDis&pc_client_type=1&version_code=170400&version_name=17.4.0&cookie_enabled=true&screen_width=2560&screen_height=1440&browser_language=zh-CN&browser_platform=Win32&browser_name=Edge&browser_version=116.0.1938.69&browser_online=true&engine_name=Blink&engine_version=116.0.0.0&os_name=Windows&os_version=10&cpu_core_num=8&device_memory=8&platform=PC&downlink=10&effective_type=4g&round_trip_time=50&webid=7276300432619243066&msToken=Zi1Q-ET0UjUKUO-_OBhovr-AKkjeO68zD-pNDfVkoYEykQ7vtdvcFRS544ugB0uBsKQaRDlsMhzrboU3SAcOS5-OL5AWqWKJAuwbm7_YEhpLjiOn7g5NmLPp0dE=';
    const fields = readXBogus('DFSzswVYIl0ANt4xtyG2Wf85lWMH')!;
    expect(fields).not.toBeNull();
    const ours = readXBogus(xBogus({ query, userAgent: 'any', time: fields.time }))!;
    expect(ours.queryTail).toEqual(fields.queryTail);
    expect(new Date(fields.time * 1000).toISOString().slice(0, 7)).toBe('2023-09');
  });

  it('the built-in signer appends X-Bogus for the exact query sent, with the default User-Agent key [0, 1, 12]', async () => {
    const url = 'https://www.tiktok.com/api/comment/list/?aid=1988&aweme_id=7301234567890123456&count=40&cursor=0';
    const signed = await builtInSigner.sign(ctx(), url, 'UA/1');
    const sig = new URL(signed.url).searchParams.get('X-Bogus')!;
    expect(signed.url).toBe(`${url}&X-Bogus=${sig}`);
    expect(sig).toMatch(/^[A-Za-z0-9/+=-]{28}$/);
    const fields = readXBogus(sig)!;
    expect(fields.uaKey).toEqual([0, 1, 12]);
    expect(Math.abs(fields.time - Date.now() / 1000)).toBeLessThan(5);
    expect(xBogus({ query: new URL(url).search.slice(1), userAgent: 'UA/1', time: fields.time })).toBe(sig);
  });
});

// ---- the external signing service -----------------------------------------------------------------

describe('external signing service (SHORTVIDEO_SIGNER_URL)', () => {
  const fake = new FakeUpstream();
  beforeAll(() => fake.start());
  afterEach(() => fake.reset());
  afterAll(() => fake.stop());

  it('posts the URL and User-Agent; returns the signed URL, its User-Agent and cookies', async () => {
    fake.on('/signature', (req) => ({
      body: {
        status: 'ok',
        data: {
          signed_url: `https://www.tiktok.com/api/x/?a=1&X-Bogus=SIG&X-Gnarly=G&ua=${encodeURIComponent(String(req.headers['content-type']))}`,
          navigator: { user_agent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) Safari' },
          cookies: 'msToken=abc; ttwid=1%7Cxyz',
        },
      },
    }));
    const s = externalSigner(`${fake.url}/signature`);
    const out = await s.sign(ctx(), 'https://www.tiktok.com/api/x/?a=1', 'UA/1');
    expect(out).toEqual({
      url: 'https://www.tiktok.com/api/x/?a=1&X-Bogus=SIG&X-Gnarly=G&ua=application%2Fjson',
      userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) Safari',
      cookies: { msToken: 'abc', ttwid: '1%7Cxyz' },
    });
    expect(fake.requests[0]!.method).toBe('POST');
  });

  it('a refusal of the service is UPSTREAM_BLOCKED; an unreachable service PLATFORM_UNAVAILABLE', async () => {
    fake.on('/signature', { status: 500, body: { status: 'error', message: 'Timeout waiting for signed URL' } });
    await expect(externalSigner(`${fake.url}/signature`).sign(ctx(), 'https://www.tiktok.com/api/x/', 'UA')).rejects.toMatchObject({ code: 'UPSTREAM_BLOCKED' });
    await expect(externalSigner('http://127.0.0.1:9/signature').sign(ctx(), 'https://www.tiktok.com/api/x/', 'UA')).rejects.toMatchObject({ code: 'PLATFORM_UNAVAILABLE' });
  });

  it('parses cookie strings', () => {
    expect(parseCookieString('a=1; b=x=y;;c')).toEqual({ a: '1', b: 'x=y' });
    expect(parseCookieString(undefined)).toEqual({});
  });
});

// ---- WAF proof of work ----------------------------------------------------------------------------

/** A WAF page as the platform serves it, for a puzzle whose answer is `answer`. */
export function wafPage(answer: number, opts: { rci?: boolean } = {}) {
  const prefix = randomBytes(16);
  const digest = createHash('sha256').update(prefix).update(String(answer)).digest();
  const data = { v: { a: prefix.toString('base64'), b: 'x', c: digest.toString('base64') }, s: 'sig', e: 1770000000 };
  const cs = Buffer.from(JSON.stringify(data)).toString('base64');
  const html = `<!DOCTYPE html><html><head><title>Please wait...</title></head><body>
<p id="cs" class="${cs}"></p><p id="wci" class="_wafchallengeid"></p>${opts.rci ? '<p id="rci" class="waforiginalreid"></p><p id="rs" class="r-123"></p>' : ''}
<script>/* solver */</script></body></html>`;
  return { html, data };
}

describe('WAF proof-of-work page', () => {
  it('is recognised and solved: the cookie carries the puzzle with d = base64 of the answer', () => {
    const answer = 1 + Math.floor(Math.random() * 300_000);
    const { html, data } = wafPage(answer, { rci: true });
    const ch = parseWafChallenge(html)!;
    expect(ch.cookieName).toBe('_wafchallengeid');
    const cookies = solveWafChallenge(ch)!;
    const sent = JSON.parse(Buffer.from(cookies._wafchallengeid!, 'base64').toString('utf8'));
    expect(sent).toEqual({ ...data, d: Buffer.from(String(answer)).toString('base64') });
    expect(cookies.waforiginalreid).toBe('r-123');
  });

  it('an ordinary page is not a challenge; an unsolvable one gives up (no answer, or past the deadline)', () => {
    expect(parseWafChallenge('<html><body><p id="cs">x</p></body></html>')).toBeNull();
    expect(parseWafChallenge('{"statusCode":0}')).toBeNull();
    const ch = parseWafChallenge(wafPage(MAX_WAF_ANSWER + 5).html)!;
    expect(solveWafChallenge(ch, Date.now() - 1)).toBeNull();
  });
});

// ---- the client: session, base parameters, answers ------------------------------------------------

describe('shortvideo client', () => {
  const fake = new FakeUpstream();
  beforeAll(async () => {
    await fake.start();
    process.env.UPSTREAM_SHORTVIDEO_URL = fake.url;
  });
  beforeEach(() => {
    delete process.env.SHORTVIDEO_SIGNER_URL;
    startCold('shortvideo');
  });
  afterEach(() => fake.reset());
  afterAll(() => fake.stop());

  const home = { headers: { 'set-cookie': 'ttwid=1%7Cabc; Path=/; Domain=.tiktok.com' } as Record<string, string>, body: '<!DOCTYPE html><html><body>home</body></html>' };
  const call = { path: '/api/comment/list/', params: { aweme_id: '7301234567890123456', count: 40, cursor: 0 }, referer: 'https://www.tiktok.com/@a/video/1', fromPage: 'video', what: 'comments' };
  const run = () => apiGet(ctx(), logger, call);

  it('UPSTREAM.hosts covers www, m and webcast: one override serves them all', () => {
    for (const h of ['www.tiktok.com', 'm.tiktok.com', 'webcast.tiktok.com', 'tiktok.com']) expect(isPlatformHost(UPSTREAM, h)).toBe(true);
    expect(isPlatformHost(UPSTREAM, 'evil.com')).toBe(false);
    for (const u of ['https://webcast.tiktok.com/webcast/room/info/?room_id=1', 'https://m.tiktok.com/v/1.html']) {
      const r = resolveUpstream(UPSTREAM, u)!;
      expect(r.target.origin).toBe(fake.url);
      expect(r.target.pathname + r.target.search).toBe(new URL(u).pathname + new URL(u).search);
    }
  });

  it('primes the jar from the home page once, then sends signed base parameters agreeing with the User-Agent', async () => {
    fake.on('/', home);
    fake.on('/api/comment/list/', { headers: { 'set-cookie': 'tt_chain_token=chain1; Path=/' }, body: { status_code: 0, comments: [] } });
    const first = await run();
    expect(first.chainToken).toBe('chain1');
    await run();
    expect(fake.requestsTo('/')).toHaveLength(1);
    const [a, b] = fake.requestsTo('/api/comment/list/') as [RecordedRequest, RecordedRequest];
    const ua = String(a.headers['user-agent']);
    expect(a.query).toMatchObject({ aid: '1988', app_name: 'tiktok_web', ...browserOf(ua), device_platform: 'web_pc', user_is_login: 'false', aweme_id: '7301234567890123456', count: '40', cursor: '0' });
    expect(a.query.browser_version).toBe(ua.replace('Mozilla/', ''));
    expect(a.query.device_id).toMatch(/^\d{19}$/);
    expect(b.query.device_id).toBe(a.query.device_id);
    expect(a.query.msToken).toBeTruthy();
    // The signature covers the query exactly as sent (everything before X-Bogus).
    const raw = new URLSearchParams(a.query);
    const sig = raw.get('X-Bogus')!;
    raw.delete('X-Bogus');
    expect(xBogus({ query: raw.toString(), userAgent: ua, time: readXBogus(sig)!.time })).toBe(sig);
    expect(a.headers.cookie).toContain('ttwid=1%7Cabc');
    expect(b.headers.cookie).toContain('tt_chain_token=chain1');
    expect(a.headers.referer).toBe(call.referer);
  });

  it('a Mac User-Agent gives MacIntel/mac; device ids are 19 digits in the public range', () => {
    expect(browserOf('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) Safari')).toMatchObject({ browser_platform: 'MacIntel', os: 'mac' });
    for (let i = 0; i < 20; i++) {
      const id = BigInt(randomDeviceId());
      expect(id >= 7250000000000000000n && id < 7325099899999994577n).toBe(true);
    }
  });

  it('solves the WAF page served instead of the home page, then fetches the page again', async () => {
    const answer = 4242;
    const { html } = wafPage(answer);
    fake.on('/', (req) => (String(req.headers.cookie ?? '').includes('_wafchallengeid=') ? home : { body: html }));
    fake.on('/api/comment/list/', (req) => ({ body: { status_code: 0, sent: String(req.headers.cookie ?? '') } }));
    const { data } = await run();
    expect(fake.requestsTo('/')).toHaveLength(2);
    const proof = /_wafchallengeid=([^;]+)/.exec(String(fake.requestsTo('/')[1]!.headers.cookie))![1]!;
    expect(JSON.parse(Buffer.from(proof, 'base64').toString()).d).toBe(Buffer.from(String(answer)).toString('base64'));
    // The single-use answer cookie is not sent on afterwards.
    expect(String(data.sent)).not.toContain('_wafchallengeid');
    expect(String(data.sent)).toContain('ttwid=');
  });

  it('solves a WAF page served instead of an API answer, and asks once more', async () => {
    const { html } = wafPage(777);
    fake.on('/', home);
    fake.on('/api/comment/list/', (req) => (String(req.headers.cookie ?? '').includes('_wafchallengeid=') ? { body: { status_code: 0, ok: true } } : { body: html }));
    const { data } = await run();
    expect(data.ok).toBe(true);
    expect(fake.requestsTo('/api/comment/list/')).toHaveLength(2);
  });

  it('renewDevice gives the session a new device id for the next calls', async () => {
    fake.on('/', home);
    fake.on('/api/comment/list/', { body: { status_code: 0 } });
    const s = new Session();
    await apiGet(ctx(), logger, call, s);
    s.renewDevice();
    await apiGet(ctx(), logger, call, s);
    const [a, b] = fake.requestsTo('/api/comment/list/');
    expect(a!.query.device_id).not.toBe(b!.query.device_id);
  });

  it.each([
    ['captcha code 10000', { body: { code: 10000, from: '', type: 'verify' } }, 'UPSTREAM_BLOCKED', /captcha/],
    ['verify type', { body: { type: 'verify', code: '10000' } }, 'UPSTREAM_BLOCKED', /captcha/],
    ['bdturing-verify header', { headers: { 'bdturing-verify': '{"code":"10000"}' }, body: { status_code: 0 } }, 'UPSTREAM_BLOCKED', /captcha/],
    ['not logged in 10101', { body: { status_code: 10101, status_msg: 'login required' } }, 'UPSTREAM_BLOCKED', /logged-in session/],
    ['empty 200 body', { body: '' }, 'UPSTREAM_BLOCKED', /empty body.*signature/],
    ['user not found 10221', { body: { statusCode: 10221, statusMsg: 'user not found' } }, 'NOT_FOUND', /does not exist/],
    ['item unavailable 10204', { body: { status_code: 10204 } }, 'NOT_FOUND', /does not exist/],
    ['private post 10216', { body: { status_code: 10216 } }, 'NOT_FOUND', /private/],
    ['private account 10222', { body: { statusCode: 10222 } }, 'NOT_FOUND', /private/],
    ['region locked 10231', { body: { statusCode: 10231 } }, 'NOT_FOUND', /region/],
    ['an unknown status code', { body: { status_code: 4242, status_msg: 'new thing' } }, 'EXTRACTION_FAILED', /unexpected shape/],
    ['not JSON', { body: 'plain words', headers: { 'content-type': 'text/plain' } }, 'EXTRACTION_FAILED', /unexpected shape/],
    ['a 5xx', { status: 502, body: 'bad gateway' }, 'PLATFORM_UNAVAILABLE', /unavailable/],
  ])('classifies %s', async (_name, reply, code, message) => {
    fake.on('/', home);
    fake.on('/api/comment/list/', reply);
    const err = await run().then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect({ code: (err as ApiError).code, message: (err as ApiError).message }).toEqual({ code, message: expect.stringMatching(message) });
  });

  it('a redirect to the login page is a login wall (UPSTREAM_BLOCKED saying so)', async () => {
    fake.on('/', home);
    fake.on('/api/comment/list/', { status: 302, headers: { location: 'https://www.tiktok.com/login?redirect_url=x' }, body: '' });
    fake.on('/login', { body: '<!DOCTYPE html><html><body>Log in</body></html>' });
    await expect(run()).rejects.toMatchObject({ code: 'UPSTREAM_BLOCKED', message: expect.stringMatching(/logged-in session/) });
  });

  it('10201 (invalid parameter) is a bad cursor only when the request carried the caller\'s cursor', async () => {
    fake.on('/', home);
    fake.on('/api/comment/list/', { body: { status_code: 10201, status_msg: 'invalid parameter' } });
    await expect(apiGet(ctx(), logger, { ...call, cursor: true })).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(run()).rejects.toMatchObject({ code: 'EXTRACTION_FAILED' });
  });

  it('with SHORTVIDEO_SIGNER_URL the signing service signs, and its User-Agent and cookies are used', async () => {
    fake.on('/', home);
    fake.on('/sign', (req) => ({ body: { status: 'ok', data: { signed_url: `https://www.tiktok.com/api/comment/list/?signed=1&X-Gnarly=g`, navigator: { user_agent: 'SignerBrowser/1.0' }, cookies: 'msToken=fromsigner', req: req.path } } }));
    fake.on('/api/comment/list/', { body: { status_code: 0 } });
    process.env.SHORTVIDEO_SIGNER_URL = `${fake.url}/sign`;
    startCold('shortvideo');
    await run();
    const sent = fake.requestsTo('/api/comment/list/')[0]!;
    expect(sent.query).toEqual({ signed: '1', 'X-Gnarly': 'g' });
    expect(sent.headers['user-agent']).toBe('SignerBrowser/1.0');
    expect(sent.headers.cookie).toContain('msToken=fromsigner');
  });
});

// ---- per-region proxies ----------------------------------------------------------------------------

describe('per-region proxy (proxyScope = region)', () => {
  const fake = new FakeUpstream();
  const tunnels: Record<string, number> = { region: 0, platform: 0 };
  const proxies: http.Server[] = [];
  // A CONNECT proxy (as the HTTP client speaks to proxies) that counts its tunnels and relays them.
  const proxy = (name: string) =>
    new Promise<string>((resolve) => {
      const server = http.createServer();
      server.on('connect', (req, client) => {
        tunnels[name]! += 1;
        const [host, port] = String(req.url).split(':');
        const upstream = net.connect(Number(port), host, () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('error', () => client.destroy());
        client.on('error', () => upstream.destroy());
      });
      proxies.push(server);
      server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
    });

  beforeAll(async () => {
    await fake.start();
    process.env.UPSTREAM_SHORTVIDEO_URL = fake.url;
    process.env.SCRAPER_PROXY_URL_SHORTVIDEO_NG = await proxy('region');
    process.env.SCRAPER_PROXY_URL_SHORTVIDEO = await proxy('platform');
  });
  afterAll(async () => {
    delete process.env.SCRAPER_PROXY_URL_SHORTVIDEO_NG;
    delete process.env.SCRAPER_PROXY_URL_SHORTVIDEO;
    for (const s of proxies) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    await fake.stop();
  });

  it('SCRAPER_PROXY_URL_SHORTVIDEO_<CC> carries the requests of region CC; others use SCRAPER_PROXY_URL_SHORTVIDEO', async () => {
    delete process.env.SHORTVIDEO_SIGNER_URL;
    startCold('shortvideo');
    fake.on('/', { body: '<html></html>' });
    fake.on('/api/challenge/item_list/', { body: { statusCode: 0 } });
    const base = { path: '/api/challenge/item_list/', params: { challengeID: '1' }, referer: 'https://www.tiktok.com/tag/x', fromPage: 'hashtag', what: 'videos' };
    await apiGet(ctx(), logger, { ...base, region: 'NG' });
    expect(tunnels.region).toBeGreaterThan(0);
    expect(tunnels.platform).toBeGreaterThan(0); // the home page (no region)
    const viaRegion = tunnels.region;
    await apiGet(ctx(), logger, { ...base, region: 'GH' });
    expect(tunnels.region).toBe(viaRegion);
    expect(fake.requestsTo('/api/challenge/item_list/').map((r) => r.query.region)).toEqual(['NG', 'GH']);
  });
});
