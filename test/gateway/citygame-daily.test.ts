import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { balance } from '../../shared/accounting/teams';
import { ledger } from '../../shared/accounting/ledger';
import { LogCapture } from '../support/logs';
import { type Harness, withGateway } from '../support/harness';

/**
 * Operation 4, /v1/citygame/daily, through the local gateway, on a source the deployer names
 * (CITYGAME_SOURCE_URL, CITYGAME_FIELDS). The source here is a small server of this file on the
 * loopback address, as a test may name one (a deployment requires https).
 */
const DAILY = '/v1/citygame/daily';
const BULLETIN = { date: '2026-03-02', weekday: 'Monday', weather: 'Light rain, 14°C', headline: 'Tram line 4 reopens', tip: 'Buy bread before noon' };

interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body: string | object;
}
/** The source: answers each path as told; records every request it gets. */
const source = {
  server: http.createServer(),
  routes: new Map<string, Reply>(),
  requests: [] as { path: string; accept: string | undefined }[],
  get origin() {
    return `http://127.0.0.1:${(source.server.address() as AddressInfo).port}`;
  },
  on(path: string, reply: Reply) {
    source.routes.set(path, reply);
  },
};
source.server.on('request', (req, res) => {
  source.requests.push({ path: req.url ?? '', accept: req.headers.accept });
  const r: Reply = source.routes.get(req.url ?? '') ?? { status: 404, body: { error: 'no such document' } };
  const json = typeof r.body !== 'string';
  res.writeHead(r.status ?? 200, { 'content-type': json ? 'application/json' : 'text/html; charset=utf-8', ...r.headers });
  res.end(json ? JSON.stringify(r.body) : r.body);
});

const configure = (path: string | undefined, fields?: object) => {
  if (path === undefined) delete process.env.CITYGAME_SOURCE_URL;
  else process.env.CITYGAME_SOURCE_URL = path.startsWith('http') ? path : `${source.origin}${path}`;
  if (fields) process.env.CITYGAME_FIELDS = JSON.stringify(fields);
  else delete process.env.CITYGAME_FIELDS;
};

let h: Harness;
let key: string;
let teamId: string;
withGateway(100, (g) => void ({ h, key, teamId } = g));
beforeAll(async () => {
  await new Promise<void>((resolve) => source.server.listen(0, '127.0.0.1', resolve));
  // The source URL itself names the test's server: no platform override in between.
  delete process.env.UPSTREAM_CITYGAME_URL;
});
afterAll(async () => {
  source.server.closeAllConnections();
  await new Promise<void>((resolve) => source.server.close(() => resolve()));
  configure(undefined);
});
beforeEach(() => {
  source.routes.clear();
  source.requests.length = 0;
  delete process.env.UPSTREAM_CITYGAME_URL;
});

/** A live call (no cache_max_age) and what it cost. */
async function daily(query: Record<string, string> = {}) {
  const before = await balance(teamId);
  const res = await h.call(DAILY, query, { key });
  return { res, spent: before - (await balance(teamId)) };
}

describe('no source, or an unusable one: 503 PLATFORM_UNAVAILABLE saying so, 0 credits, nothing requested', () => {
  test('no CITYGAME_SOURCE_URL', async () => {
    configure(undefined);
    const { res, spent } = await daily();
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'PLATFORM_UNAVAILABLE', message: expect.stringContaining('This deployment names no citygame source') });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(spent).toBe(0);
    expect(source.requests).toEqual([]);
  });

  test('no source is a choice of the deployment, logged as a WARN; a misconfigured one is an ERROR', async () => {
    const logs = new LogCapture();
    logs.start('INFO');
    try {
      configure(undefined);
      expect((await daily()).res.status).toBe(503);
      configure('http://bulletin.example/today.json');
      expect((await daily()).res.status).toBe(503);
    } finally {
      logs.stop();
    }
    const failed = logs.records().filter((r) => r.message === 'request failed');
    expect(failed.map((r) => [r.level, r.code, r.cause])).toEqual([
      ['WARN', 'PLATFORM_UNAVAILABLE', 'CITYGAME_SOURCE_URL is not set'],
      ['ERROR', 'PLATFORM_UNAVAILABLE', expect.stringContaining('must be an https URL')],
    ]);
  });

  test.each([
    ['plain http off the loopback address', 'http://bulletin.example/today.json', undefined],
    ['fields that are not JSON', '/today.json', 'not json'],
  ])('%s', async (_what, url, fields) => {
    configure(url);
    if (fields) process.env.CITYGAME_FIELDS = fields;
    const { res, spent } = await daily();
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'PLATFORM_UNAVAILABLE', message: expect.stringContaining('citygame source is misconfigured') });
    expect(spent).toBe(0);
    expect(source.requests).toEqual([]);
  });
});

describe('the bulletin, where the deployer said it is', () => {
  test('a JSON source with the five names at the top level (the default fields): 200, one request, 1 credit', async () => {
    source.on('/today.json', { body: { ...BULLETIN, mayor: 'not asked for' } });
    configure('/today.json');
    const { res, spent } = await daily();
    expect(res.status).toBe(200);
    const { fetchedAt, ...data } = res.body.data;
    expect(data).toEqual(BULLETIN);
    expect(Date.parse(fetchedAt)).toBeLessThanOrEqual(Date.now());
    expect(res.body.meta).toMatchObject({ creditsCharged: 1, cached: false });
    expect(spent).toBe(1);
    expect(source.requests).toEqual([{ path: '/today.json', accept: 'application/json' }]);
  });

  test('a JSON source read through JSON Pointers', async () => {
    source.on('/city/bulletin?lang=en', {
      body: { bulletin: { day: { iso: BULLETIN.date, name: BULLETIN.weekday }, weather: BULLETIN.weather, stories: [{ title: BULLETIN.headline }], tip: { text: BULLETIN.tip } } },
    });
    configure('/city/bulletin?lang=en', { date: '/bulletin/day/iso', weekday: '/bulletin/day/name', weather: '/bulletin/weather', headline: '/bulletin/stories/0/title', tip: '/bulletin/tip/text' });
    const { res } = await daily();
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject(BULLETIN);
  });

  test('an HTML page read through CSS selectors (text content, trimmed), asked for as a page', async () => {
    source.on('/daily', {
      body: `<!doctype html><html><head><title>City daily</title></head><body><article class="bulletin">
        <time datetime="2026-03-02">2026-03-02</time> <span class="day"> Monday </span>
        <div class="weather">Light rain, <b>14°C</b></div><h2>Tram line 4 reopens</h2><p class="tip">Buy bread before noon</p>
      </article></body></html>`,
    });
    configure('/daily', { date: '.bulletin time', weekday: '.bulletin .day', weather: '.weather', headline: 'article h2', tip: 'p.tip' });
    const { res } = await daily();
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject(BULLETIN);
    expect(source.requests).toEqual([{ path: '/daily', accept: expect.stringMatching(/^text\/html/) }]);
  });

  test('an https source as a deployment names it, reached through UPSTREAM_CITYGAME_URL (keeping the path)', async () => {
    source.on('/v2/today.json', { body: BULLETIN });
    configure('https://bulletin.example/v2/today.json');
    process.env.UPSTREAM_CITYGAME_URL = source.origin;
    const { res } = await daily();
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject(BULLETIN);
    expect(source.requests.map((r) => r.path)).toEqual(['/v2/today.json']);
  });

  test("a redirect on the source's host is followed", async () => {
    source.on('/today.json', { status: 302, headers: { location: '/2026/03/02.json' }, body: '' });
    source.on('/2026/03/02.json', { body: BULLETIN });
    configure('/today.json');
    const { res } = await daily();
    expect(res.status).toBe(200);
    expect(source.requests.map((r) => r.path)).toEqual(['/today.json', '/2026/03/02.json']);
  });
});

describe('a source without the bulletin\'s date: 503 EXTRACTION_FAILED naming it in the log, 0 credits; without another field: that field null, named in the log', () => {
  const logs = new LogCapture();
  beforeEach(() => {
    logs.clear();
    logs.start('INFO');
  });
  afterEach(() => logs.stop());
  const causes = () => logs.records().filter((r) => r.message === 'request failed').map((r) => r.cause);

  test('a field other than the date missing: null, named in the log with where it was looked for', async () => {
    source.on('/today.json', { body: { ...BULLETIN, tip: undefined } });
    configure('/today.json');
    const { res, spent } = await daily();
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ ...BULLETIN, tip: null });
    expect(spent).toBe(1);
    expect(logs.records().filter((r) => r.level === 'WARN').map((r) => r.missing)).toEqual([['tip (JSON Pointer /tip)']]);
  });

  test('a selector that finds no date on the page', async () => {
    source.on('/daily', { body: '<!doctype html><html><body><h2>Tram line 4 reopens</h2></body></html>' });
    configure('/daily', { date: 'time', weekday: '.day', weather: '.weather', headline: 'h2', tip: 'p.tip' });
    const { res, spent } = await daily();
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('EXTRACTION_FAILED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(spent).toBe(0);
    expect(causes()).toEqual(['the upstream answer has no date (CSS selector time)']);
  });

  test('a date that is not YYYY-MM-DD', async () => {
    source.on('/today.json', { body: { ...BULLETIN, date: 'Monday 2 March' } });
    configure('/today.json');
    const { res, spent } = await daily();
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('EXTRACTION_FAILED');
    expect(spent).toBe(0);
    expect(causes()).toEqual(['citygame source\'s date is not YYYY-MM-DD: "Monday 2 March" (JSON Pointer /date)']);
  });

  test('a JSON document answered with another status', async () => {
    source.on('/today.json', { status: 404, body: { error: 'no bulletin today' } });
    configure('/today.json');
    const { res } = await daily();
    expect(res.body.error.code).toBe('EXTRACTION_FAILED');
    expect(causes()).toEqual([expect.stringContaining('citygame daily bulletin: 404')]);
  });
});

describe('source failures map like every platform', () => {
  test.each([
    ['a 5xx', { status: 502, body: { error: 'bad gateway' } }, 'PLATFORM_UNAVAILABLE', undefined],
    ['a rate limit with its Retry-After', { status: 429, headers: { 'retry-after': '90' }, body: { error: 'slow down' } }, 'UPSTREAM_BLOCKED', '90'],
    ['a challenge page', { status: 403, body: '<!doctype html><html><head><title>Just a moment...</title></head><body></body></html>' }, 'UPSTREAM_BLOCKED', undefined],
  ] as const)('%s', async (_what, reply, code, retryAfter) => {
    source.on('/today.json', reply);
    configure('/today.json');
    const { res, spent } = await daily();
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe(code);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    if (retryAfter) expect(res.headers['retry-after']).toBe(retryAfter);
    expect(spent).toBe(0);
  });

  test("a redirect off the source's host is never followed (UPSTREAM_BLOCKED)", async () => {
    const elsewhere = `http://localhost:${(source.server.address() as AddressInfo).port}/today.json`;
    source.on('/today.json', { status: 302, headers: { location: elsewhere }, body: '' });
    configure('/today.json');
    const { res } = await daily();
    expect(res.body.error.code).toBe('UPSTREAM_BLOCKED');
    expect(source.requests.map((r) => r.path)).toEqual(['/today.json']);
  });
});

describe('routed like every operation', () => {
  beforeEach(() => {
    source.on('/today.json', { body: BULLETIN });
    configure('/today.json');
  });

  test('401 without a key or with a wrong one', async () => {
    expect((await h.call(DAILY, {})).body.error.code).toBe('UNAUTHORIZED');
    expect((await h.call(DAILY, {}, { key: 'A'.repeat(28) })).status).toBe(401);
    expect(source.requests).toEqual([]);
  });

  test('402 without credit', async () => {
    const broke = await h.team(0);
    const res = await h.call(DAILY, {}, { key: broke.key });
    expect(res.status).toBe(402);
    expect(res.body.error.code).toBe('INSUFFICIENT_CREDITS');
  });

  test('422 for any parameter but cache_max_age, and for a malformed cache_max_age (the common rule; not in the spec\'s list for op 4)', async () => {
    const unknown = await h.call(DAILY, { date: '2026-03-02' }, { key });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details).toEqual([{ path: 'date', message: expect.any(String) }]);
    const malformed = await h.call(DAILY, { cache_max_age: '2d' }, { key });
    expect(malformed.body.error.details).toEqual([{ path: 'cache_max_age', message: expect.any(String) }]);
    expect(source.requests).toEqual([]);
  });

  test('the cache key is the operation itself: a cache hit costs 0 credits and asks the source nothing', async () => {
    const team = await h.team(5);
    // Without cache_max_age a request is always live, and its result becomes the one cache entry.
    const live = await h.call(DAILY, {}, { key: team.key });
    expect(live.body.meta).toMatchObject({ cached: false, creditsCharged: 1, creditsRemaining: 4 });
    source.requests.length = 0;
    const hit = await h.call(DAILY, { cache_max_age: '7d' }, { key: team.key });
    expect(hit.status).toBe(200);
    expect(hit.body.meta).toMatchObject({ cached: true, creditsCharged: 0, creditsRemaining: 4, cachedAt: live.body.data.fetchedAt });
    expect(hit.body.data).toEqual(live.body.data);
    expect(source.requests).toEqual([]);
    expect(await balance(team.teamId)).toBe(4);
    expect((await ledger(team.teamId)).map((e) => e.operation)).toEqual(['citygame-daily']);
  });
});

describe('429 over the rate limit', () => {
  let limited: Harness;
  let limitedKey: string;
  withGateway(10, (g) => void ({ h: limited, key: limitedKey } = g), { burst: 2, ratePerMinute: 1 });

  test('the third request in a burst of two is 429 with Retry-After', async () => {
    source.on('/today.json', { body: BULLETIN });
    configure('/today.json');
    const statuses: number[] = [];
    let last: Awaited<ReturnType<Harness['call']>> | undefined;
    for (let i = 0; i < 3; i++) {
      last = await limited.call(DAILY, { cache_max_age: '1d' }, { key: limitedKey });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(last!.body.error.code).toBe('RATE_LIMITED');
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
  });
});
