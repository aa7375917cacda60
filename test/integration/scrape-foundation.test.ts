import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { ApiError } from '../../shared/http/errors';
import { redactValue } from '../../shared/runtime/log';
import { isChallengePage, looksLikeHtml, upstreamRetryAfter } from '../../shared/scrape/antibot';
import { htmlToText, jsonLd, metaContent, parseDocument, scriptJson } from '../../shared/scrape/html';
import { ScrapeContext, upstreamClient } from '../../shared/scrape/http';
import { count, get, int, isoDate, list, str, url } from '../../shared/scrape/map';
import { FakeUpstream } from '../../dev/upstream/fake';

describe('mapping helpers', () => {
  test('get never throws on wrong types', () => {
    const o = { a: [{ b: 1 }], s: 'x' };
    expect(get(o, 'a', 0, 'b')).toBe(1);
    expect(get(o, 'a', -1, 'b')).toBe(1);
    expect(get(o, 's', 'length')).toBeUndefined();
    expect(get(null, 'a')).toBeUndefined();
    expect(get(o, 'a', 'b')).toBeUndefined();
  });
  test('coercers', () => {
    expect([str(''), str(5), str({})]).toEqual([null, '5', null]);
    expect([int('45013036'), int('4.5'), int(7.9), int('x')]).toEqual([45013036, null, 7, null]);
    expect([count(-1), count('12'), count(0)]).toEqual([null, 12, 0]);
    expect(isoDate('0001-01-01T00:00:00Z')).toBeNull();
    expect(isoDate('2025-01-02T03:37:13.559618Z')).toBe('2025-01-02T03:37:13.559Z');
    expect(isoDate(1_700_000_000)).toBe('2023-11-14T22:13:20.000Z');
    expect(isoDate(1_700_000_000_000)).toBe('2023-11-14T22:13:20.000Z');
    expect([url('javascript:alert(1)'), url('not a url'), url('https://a.example/x')]).toEqual([null, null, 'https://a.example/x']);
    expect(list([1, 'a', 2], (x) => (typeof x === 'number' ? x * 2 : null))).toEqual([2, 4]);
  });
  test('HTML to text keeps line breaks and decodes entities', () => {
    expect(htmlToText('<p>Hello &amp; welcome<br/>second line</p><p>Next <a href="https://x.example">link</a></p>')).toBe(
      'Hello & welcome\nsecond line\n\nNext link',
    );
  });
  test('JSON-LD and embedded script JSON', () => {
    const doc = parseDocument(
      '<html><head><meta property="og:title" content="Title A"><meta name="empty" content=""><script type="application/ld+json">{"@type":"Article","name":"A"}</script><script type="application/ld+json">{broken</script><script id="__DATA__" type="application/json">{"x":1}</script></head></html>',
    );
    expect(jsonLd(doc)).toEqual([{ '@type': 'Article', name: 'A' }]);
    expect(scriptJson(doc, 'script#__DATA__')).toEqual({ x: 1 });
    expect(scriptJson(doc, 'script#missing')).toBeNull();
    expect([metaContent(doc, 'og:title'), metaContent(doc, 'empty'), metaContent(doc, 'missing')]).toEqual(['Title A', null, null]);
  });
});

describe('anti-bot recognition by content', () => {
  test.each([
    '<!DOCTYPE html><html><head><title>Just a moment...</title></head></html>',
    '<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/chl_page/v1"></script>',
    '<title>Attention Required! | Cloudflare</title>',
    '<h1>Sorry, you have been blocked</h1>',
    'Example.com needs to review the security of your connection before proceeding.',
  ])('challenge: %s', (body) => expect(isChallengePage(body, {})).toBe(true));
  test('cf-mitigated header', () => expect(isChallengePage('', { 'cf-mitigated': 'challenge' })).toBe(true));
  test('ordinary bodies are not challenges', () => {
    expect(isChallengePage('{"error":"Too many requests"}', {})).toBe(false);
    expect(isChallengePage('<html><title>Profile</title></html>', {})).toBe(false);
  });
  test('HTML where JSON was expected', () => {
    expect(looksLikeHtml('  <!doctype html><html>')).toBe(true);
    expect(looksLikeHtml('{"a":1}')).toBe(false);
  });
  test('Retry-After from seconds, dates and rate-limit reset headers', () => {
    const now = Date.parse('2026-11-22T00:00:00Z');
    expect(upstreamRetryAfter({ 'retry-after': '120' }, now)).toBe(120);
    expect(upstreamRetryAfter({ 'retry-after': 'Sun, 22 Nov 2026 00:01:00 GMT' }, now)).toBe(60);
    expect(upstreamRetryAfter({ 'x-ratelimit-reset': '2026-11-22T00:05:00.000Z' }, now)).toBe(300);
    expect(upstreamRetryAfter({ 'ratelimit-reset': String(now / 1000 + 30) }, now)).toBe(30);
    expect(upstreamRetryAfter({}, now)).toBeUndefined();
  });
});

describe('upstream client', () => {
  const fake = new FakeUpstream();
  const client = upstreamClient({ platform: 'unit-test', defaultBaseUrl: 'https://never.invalid', hosts: ['never.invalid'], headers: { referer: 'https://site.example/' } }, { platform: 'unit-test' });
  beforeAll(async () => {
    await fake.start();
    process.env.UPSTREAM_UNIT_TEST_URL = fake.url;
  });
  afterAll(async () => fake.stop());
  beforeEach(() => fake.reset());

  const codeOf = async (p: Promise<unknown>) => {
    try {
      await p;
      return 'ok';
    } catch (e) {
      return (e as ApiError).code;
    }
  };

  test('UPSTREAM_<PLATFORM>_URL overrides the base URL; browser-like headers are sent', async () => {
    fake.on('/x', { body: { ok: true } });
    const ctx = ScrapeContext.withBudget(3000);
    const r = await client.answer(ctx, '/x', { what: 'test', searchParams: { a: 1, skip: undefined } });
    expect(r.data).toEqual({ ok: true });
    expect(fake.requests[0]!.query).toEqual({ a: '1' });
    expect(fake.requests[0]!.headers).toMatchObject({ 'user-agent': expect.stringContaining('Chrome/'), 'accept-language': expect.any(String), referer: 'https://site.example/' });
    expect(ctx.upstreamCalls).toBe(1);
  });

  test('5xx is retried with backoff, then PLATFORM_UNAVAILABLE', async () => {
    fake.on('/down', { status: 502, body: { error: 'bad gateway' } });
    const ctx = ScrapeContext.withBudget(5000);
    expect(await codeOf(client.answer(ctx, '/down', { what: 'test' }))).toBe('PLATFORM_UNAVAILABLE');
    expect(ctx.upstreamCalls).toBe(3); // 1 + UPSTREAM_RETRIES (2)
  });

  test("the service's own backoff between attempts: 150 ms, then 300 ms, each jittered to 50–100%", async () => {
    const saved = process.env.UPSTREAM_RETRY_BASE_MS;
    delete process.env.UPSTREAM_RETRY_BASE_MS; // the tests' short wait (per-file-env.ts) off: the default
    const at: number[] = [];
    fake.on('/down-timed', () => {
      at.push(performance.now());
      return { status: 503, body: {} };
    });
    try {
      expect(await codeOf(client.answer(ScrapeContext.withBudget(5000), '/down-timed', { what: 'test' }))).toBe('PLATFORM_UNAVAILABLE');
    } finally {
      process.env.UPSTREAM_RETRY_BASE_MS = saved;
    }
    expect(at).toHaveLength(3);
    // Lower bounds only: a busy machine can make the waits longer, never shorter.
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(75 - 5);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(150 - 5);
  });

  test('a 5xx then a 200 succeeds', async () => {
    let n = 0;
    fake.on('/flaky', () => (n++ === 0 ? { status: 503, body: {} } : { body: { ok: 1 } }));
    expect((await client.answer(ScrapeContext.withBudget(5000), '/flaky', { what: 'test' })).data).toEqual({ ok: 1 });
  });

  test('challenge pages are UPSTREAM_BLOCKED whatever the status, and never retried', async () => {
    for (const status of [200, 403, 404, 503]) {
      fake.reset();
      fake.on('/cf', { status, body: '<html><head><title>Just a moment...</title></head></html>' });
      expect(await codeOf(client.answer(ScrapeContext.withBudget(3000), '/cf', { what: 'test' }))).toBe('UPSTREAM_BLOCKED');
      expect(fake.requests).toHaveLength(1);
    }
  });

  test('403 and 429 are UPSTREAM_BLOCKED with the upstream Retry-After', async () => {
    fake.on('/limited', { status: 429, headers: { 'retry-after': '42' }, body: { error: 'Too many requests' } });
    const err = await client.answer(ScrapeContext.withBudget(3000), '/limited', { what: 'test' }).catch((e: unknown) => e as ApiError);
    expect(err).toMatchObject({ code: 'UPSTREAM_BLOCKED', retryAfter: 42 });
    fake.on('/edge', { status: 403, body: { error: 'forbidden' } });
    expect(await codeOf(client.answer(ScrapeContext.withBudget(3000), '/edge', { what: 'test' }))).toBe('UPSTREAM_BLOCKED');
  });

  test('HTML body where JSON was expected: a sign-in page is UPSTREAM_BLOCKED, another page and junk EXTRACTION_FAILED', async () => {
    fake.on('/html', { status: 200, body: '<!doctype html><html><head><title>Sign in</title></head><body><form action="/login"></form></body></html>' });
    expect(await codeOf(client.answer(ScrapeContext.withBudget(3000), '/html', { what: 'test' }))).toBe('UPSTREAM_BLOCKED');
    fake.on('/page', { status: 200, body: '<!doctype html><html><head><title>Home</title></head><body>Welcome</body></html>' });
    expect(await codeOf(client.answer(ScrapeContext.withBudget(3000), '/page', { what: 'test' }))).toBe('EXTRACTION_FAILED');
    fake.on('/junk', { status: 200, body: 'not json' });
    expect(await codeOf(client.answer(ScrapeContext.withBudget(3000), '/junk', { what: 'test' }))).toBe('EXTRACTION_FAILED');
  });

  test('the deadline bounds every attempt: a hanging upstream is PLATFORM_UNAVAILABLE within the budget', async () => {
    // The reply would come after 5 s; the 600 ms budget ends the scrape long before (jest would time out otherwise).
    fake.on('/slow', { delayMs: 5000, body: {} });
    expect(await codeOf(client.answer(ScrapeContext.withBudget(600), '/slow', { what: 'test' }))).toBe('PLATFORM_UNAVAILABLE');
  });

  test('connection refused is PLATFORM_UNAVAILABLE', async () => {
    // UPSTREAM_<PLATFORM>_URL may name a loopback address (a port nothing listens on here).
    process.env.UPSTREAM_UNIT_CLOSED_URL = 'http://127.0.0.1:9';
    try {
      const other = upstreamClient({ platform: 'unit-closed', defaultBaseUrl: 'https://closed.example', hosts: ['closed.example'], headers: {} }, { platform: 'unit-closed' });
      expect(await codeOf(other.answer(ScrapeContext.withBudget(2000), '/x', { what: 'test' }))).toBe('PLATFORM_UNAVAILABLE');
    } finally {
      delete process.env.UPSTREAM_UNIT_CLOSED_URL;
    }
  });

  test('SCRAPER_PROXY_URL_<PLATFORM> routes the platform through a CONNECT proxy without a code change', async () => {
    // A tunnelling proxy that sends every CONNECT to the fake upstream, whatever host was asked for.
    const tunnels: string[] = [];
    const proxy = http.createServer();
    proxy.on('connect', (req, clientSocket: import('node:net').Socket, head) => {
      tunnels.push(req.url ?? '');
      const target = new URL(fake.url);
      const upstream = net.connect(Number(target.port), target.hostname, () => {
        clientSocket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(clientSocket);
        clientSocket.pipe(upstream);
      });
      upstream.on('error', () => clientSocket.destroy());
      clientSocket.on('error', () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    process.env.SCRAPER_PROXY_URL_UNIT_PROXIED = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    process.env.UPSTREAM_UNIT_PROXIED_URL = 'http://upstream.invalid';
    fake.on('/through', { body: { via: 'tunnel' } });
    try {
      const proxied = upstreamClient({ platform: 'unit-proxied', defaultBaseUrl: 'https://never.invalid', hosts: ['never.invalid'], headers: {} }, { platform: 'unit-proxied' });
      const r = await proxied.answer(ScrapeContext.withBudget(3000), '/through', { what: 'test' });
      expect(r.data).toEqual({ via: 'tunnel' });
      // The name was resolved by the proxy, never locally (.invalid cannot resolve here).
      expect(tunnels).toEqual(['upstream.invalid:80']);
    } finally {
      delete process.env.SCRAPER_PROXY_URL_UNIT_PROXIED;
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
  });
});

test('log redaction: secret-looking keys and URL credentials', () => {
  expect(redactValue('x-api-key', 'abc')).toBe('[REDACTED]');
  expect(redactValue('Authorization', 'Bearer abc')).toBe('[REDACTED]');
  expect(redactValue('proxyUrl', 'http://u:p@h')).toBe('[REDACTED]');
  expect(redactValue('cause', 'connect to http://user:pass@proxy.example:8080 failed')).toBe('connect to http://[REDACTED]@proxy.example:8080 failed');
  expect(redactValue('handle', 'alice')).toBe('alice');
});
