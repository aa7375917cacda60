import type { ApiError } from '../../../shared/errors';
import { CookieJar } from '../../../shared/scrape/cookies';
import { ScrapeContext, upstreamClient } from '../../../shared/scrape/http';
import { FakeUpstream } from '../../../dev/upstream/fake';

/**
 * Requests only to the platform's hosts (shared/scrape/http.ts): UPSTREAM_<P>_URL sends every host
 * of the platform to the one fake upstream; redirects are followed by hand only while they stay on
 * those hosts; an absolute URL on any other host is refused before any request is made.
 */
const fake = new FakeUpstream();
const client = upstreamClient(
  { platform: 'unit-hosts', defaultBaseUrl: 'https://api.unit.example', hosts: ['api.unit.example', '.cdn.unit.example'], headers: {} },
  { platform: 'unit-hosts' },
);
const ctx = () => ScrapeContext.withBudget(3000);
const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e as ApiError);

beforeAll(async () => {
  await fake.start();
  process.env.UPSTREAM_UNIT_HOSTS_URL = fake.url;
});
afterAll(() => fake.stop());
beforeEach(() => fake.reset());

describe('redirects', () => {
  test('a redirect to another host of the platform is followed, on the fake (UPSTREAM_<P>_URL), and the answer names the real URL', async () => {
    fake.on('/start', { status: 302, headers: { location: 'https://img.cdn.unit.example/final?size=2' } });
    fake.on('/final', { body: { ok: true } });
    const c = ctx();
    const a = await client.answer(c, '/start', { what: 'redirect' });
    expect(a.data).toEqual({ ok: true });
    expect(a.url).toBe('https://img.cdn.unit.example/final?size=2');
    expect(fake.requests.map((r) => [r.path, r.query])).toEqual([
      ['/start', {}],
      ['/final', { size: '2' }],
    ]);
    expect(c.upstreamCalls).toBe(2);
  });

  test('a relative redirect stays on the host that answered', async () => {
    fake.on('/old', { status: 301, headers: { location: '/new' } });
    fake.on('/new', { body: { moved: true } });
    const a = await client.answer(ctx(), 'https://img.cdn.unit.example/old', { what: 'redirect' });
    expect(a.url).toBe('https://img.cdn.unit.example/new');
    expect(fake.requests.map((r) => r.path)).toEqual(['/old', '/new']);
  });

  test('a redirect to a foreign host is not followed: UPSTREAM_BLOCKED, and no request reaches it', async () => {
    // The foreign location is the fake itself under a host that is not the platform's: were the
    // redirect followed, the fake would record it.
    fake.on('/start', { status: 302, headers: { location: `${fake.url}/steal` } });
    fake.on('/steal', { body: { stolen: true } });
    const err = await failure(client.answer(ctx(), '/start', { what: 'redirect' }));
    expect(err).toMatchObject({ code: 'UPSTREAM_BLOCKED', internal: expect.stringContaining('127.0.0.1') });
    expect(fake.requests.map((r) => r.path)).toEqual(['/start']);
    // A raw request, and one that follows no redirect, are refused the same way.
    expect(await failure(client.request(ctx(), '/start'))).toMatchObject({ code: 'UPSTREAM_BLOCKED' });
    expect(await failure(client.request(ctx(), '/start', { followRedirects: false }))).toMatchObject({ code: 'UPSTREAM_BLOCKED' });
    expect(fake.requestsTo('/steal')).toHaveLength(0);
  });

  test('a look-alike host is foreign too', async () => {
    fake.on('/start', { status: 302, headers: { location: 'https://api.unit.example.evil.example/x' } });
    expect(await failure(client.answer(ctx(), '/start', { what: 'redirect' }))).toMatchObject({ code: 'UPSTREAM_BLOCKED' });
    expect(fake.requests).toHaveLength(1);
  });

  test('a redirect loop ends with EXTRACTION_FAILED after 5 redirects', async () => {
    fake.on('/loop', { status: 302, headers: { location: '/loop' } });
    expect(await failure(client.answer(ctx(), '/loop', { what: 'loop' }))).toMatchObject({ code: 'EXTRACTION_FAILED' });
    expect(fake.requests).toHaveLength(6);
  });

  test('303 turns a POST into a GET without the body; 307 keeps the method', async () => {
    fake.on('/post303', { status: 303, headers: { location: '/after' } });
    fake.on('/post307', { status: 307, headers: { location: '/after' } });
    fake.on('/after', { body: {} });
    await client.answer(ctx(), '/post303', { what: 'post', method: 'POST', form: { a: '1' } });
    await client.answer(ctx(), '/post307', { what: 'post', method: 'POST', form: { a: '1' } });
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /post303', 'GET /after', 'POST /post307', 'POST /after']);
  });

  test('cookies set on a hop are sent on the next one, and kept in the jar', async () => {
    const jar = new CookieJar();
    jar.set('seen', '1');
    fake.on('/login', { status: 302, headers: { location: '/home', 'set-cookie': 'session=abc; Path=/; HttpOnly' } });
    fake.on('/home', { body: {} });
    await client.answer(ctx(), '/login', { what: 'cookies', jar });
    expect(fake.requests.map((r) => r.headers.cookie)).toEqual(['seen=1', 'seen=1; session=abc']);
    expect(jar.get('session')).toBe('abc');
  });

  test('followRedirects: false returns the redirect itself', async () => {
    fake.on('/start', { status: 302, headers: { location: '/final' } });
    const raw = await client.request(ctx(), '/start', { followRedirects: false });
    expect(raw).toMatchObject({ status: 302, headers: { location: '/final' } });
    expect(fake.requests).toHaveLength(1);
  });
});

describe('only the platform\'s hosts are ever requested', () => {
  test.each([
    ['an absolute URL on a foreign host', 'https://evil.example/x'],
    ['the fake upstream\'s own address', 'http://127.0.0.1:1/x'],
    ['a look-alike host', 'https://api.unit.example.evil.example/x'],
    ['a bare parent of a subdomain rule', 'https://cdn.unit.example/x'],
    ['credentials in the URL', 'https://user:pw@api.unit.example/x'],
    ['another scheme', 'ftp://api.unit.example/x'],
    ['no URL at all', 'not a url'],
  ])('%s is refused without any request', async (_what, target) => {
    const c = ctx();
    expect(await failure(client.request(c, target))).toMatchObject({ code: 'EXTRACTION_FAILED', internal: expect.stringContaining('refused') });
    expect(fake.requests).toHaveLength(0);
    expect(c.upstreamCalls).toBe(0);
  });

  test('absolute URLs on the platform\'s hosts (exact and subdomain) go to the fake', async () => {
    fake.on('/a', { body: { a: 1 } });
    await client.answer(ctx(), 'https://api.unit.example/a', { what: 'abs' });
    await client.answer(ctx(), 'https://x.cdn.unit.example/a', { what: 'abs' });
    expect(fake.requests).toHaveLength(2);
  });
});
