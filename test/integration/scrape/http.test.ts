import type { ApiError } from '../../../shared/http/errors';
import type { AnswerRules, Signal } from '../../../shared/scrape/answers';
import { CookieJar } from '../../../shared/scrape/cookies';
import { type Repair, ScrapeContext, upstreamClient } from '../../../shared/scrape/http';
import { get } from '../../../shared/scrape/map';
import { FakeUpstream, type RecordedRequest } from '../../../dev/upstream/fake';

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

/**
 * answer -> repair -> retry -> classify (shared/scrape/http.ts): a request's repairs may mend what
 * made an answer fail and have it sent again, at most once per kind and never past the deadline;
 * whatever answers last is classified by the platform's rules.
 */
describe('repairs', () => {
  const rules: AnswerRules = { platform: 'unit-repair', code: (d) => get(d, 'code') as number | undefined, notFound: [{ code: 34 }] };
  const api = upstreamClient({ platform: 'unit-repair', defaultBaseUrl: 'https://api.repair.example', hosts: ['api.repair.example'], headers: {} }, rules);
  const TOKEN_REFUSED: Signal[] = [{ status: 401 }];
  /** A token the fake accepts only once it is "fresh"; the repair swaps it in. */
  const tokenRepair = (log: string[]): Repair => ({
    kind: 'token',
    when: TOKEN_REFUSED,
    async mend(a, retry) {
      log.push(`mend ${a.status}`);
      retry.opts.headers = { ...retry.opts.headers, authorization: 'fresh' };
      return 'retry';
    },
  });
  const guarded = (body: unknown) => (req: RecordedRequest) => (req.headers.authorization === 'fresh' ? { body } : { status: 401, body: { code: 89 } });

  beforeAll(() => {
    process.env.UPSTREAM_UNIT_REPAIR_URL = fake.url;
  });

  test('a mended request is sent again with what the repair changed, and its answer is the result', async () => {
    fake.on('/data', guarded({ ok: true }));
    const log: string[] = [];
    const a = await api.answer(ctx(), '/data', { what: 'data', headers: { authorization: 'stale' }, repairs: [tokenRepair(log)] });
    expect(a.data).toEqual({ ok: true });
    expect(log).toEqual(['mend 401']);
    expect(fake.requests.map((r) => r.headers.authorization)).toEqual(['stale', 'fresh']);
  });

  test('a repair can send the retry elsewhere (a new query id in the path)', async () => {
    fake.on('/v1/old', { status: 404, body: '' });
    fake.on('/v2/new', { body: { moved: true } });
    const repair: Repair = {
      kind: 'query id',
      when: [{ status: 404, test: (a) => a.data === undefined }],
      mend: async (_a, retry) => {
        retry.url = '/v2/new';
        return 'retry';
      },
    };
    expect(await api.json(ctx(), '/v1/old', { what: 'moved', repairs: [repair] })).toEqual({ moved: true });
    expect(fake.requests.map((r) => r.path)).toEqual(['/v1/old', '/v2/new']);
  });

  test('at most one retry per kind: refused again, the answer is classified (401 -> UPSTREAM_BLOCKED), no loop', async () => {
    fake.on('/data', { status: 401, body: { code: 89 } });
    const log: string[] = [];
    expect(await failure(api.answer(ctx(), '/data', { what: 'data', repairs: [tokenRepair(log)] }))).toMatchObject({ code: 'UPSTREAM_BLOCKED' });
    expect(log).toEqual(['mend 401']);
    expect(fake.requests).toHaveLength(2);
  });

  test('each kind has its own retry: two kinds mend one after the other (three requests)', async () => {
    fake.on('/data', (req) => (req.headers.authorization !== 'fresh' ? { status: 401, body: {} } : req.headers['x-id'] !== 'new' ? { status: 404, body: '' } : { body: { both: true } }));
    const log: string[] = [];
    const idRepair: Repair = {
      kind: 'query id',
      when: [{ status: 404 }],
      async mend(_a, retry) {
        log.push('id');
        retry.opts.headers = { ...retry.opts.headers, 'x-id': 'new' };
        return 'retry';
      },
    };
    expect(await api.json(ctx(), '/data', { what: 'data', repairs: [tokenRepair(log), idRepair] })).toEqual({ both: true });
    expect(log).toEqual(['mend 401', 'id']);
    expect(fake.requests).toHaveLength(3);
  });

  test('a repair that cannot mend (says nothing) leaves the answer to the rules; one that does not match is not asked', async () => {
    fake.on('/data', { status: 401, body: { code: 89 } });
    const asked: string[] = [];
    const cannot: Repair = { kind: 'token', when: TOKEN_REFUSED, mend: async () => void asked.push('token') };
    const unrelated: Repair = { kind: 'other', when: [{ status: 418 }], mend: async () => (asked.push('other'), 'retry') };
    expect(await failure(api.answer(ctx(), '/data', { what: 'data', repairs: [unrelated, cannot] }))).toMatchObject({ code: 'UPSTREAM_BLOCKED' });
    expect(asked).toEqual(['token']);
    expect(fake.requests).toHaveLength(1);
  });

  test('the retried answer is classified by the platform\'s rules: not found, and not JSON', async () => {
    fake.on('/gone', (req) => (req.headers.authorization === 'fresh' ? { status: 404, body: { code: 34 } } : { status: 401, body: {} }));
    expect(await failure(api.answer(ctx(), '/gone', { what: 'gone', repairs: [tokenRepair([])] }))).toMatchObject({ code: 'NOT_FOUND' });
    fake.on('/words', guarded('plain words'));
    expect(await failure(api.answer(ctx(), '/words', { what: 'words', repairs: [tokenRepair([])] }))).toMatchObject({ code: 'EXTRACTION_FAILED', internal: expect.stringMatching(/not JSON/) });
    // The same answer through text(): usable.
    expect((await api.text(ctx(), '/words', { what: 'words', repairs: [tokenRepair([])] })).body).toBe('plain words');
    expect(fake.requestsTo('/words')).toHaveLength(4);
  });

  test('no retry past the deadline: a repair that runs out the time ends in PLATFORM_UNAVAILABLE without another request', async () => {
    fake.on('/data', guarded({ ok: true }));
    const slow: Repair = {
      kind: 'token',
      when: TOKEN_REFUSED,
      async mend(_a, retry) {
        await new Promise((r) => setTimeout(r, retry.ctx.remaining() + 20));
        retry.opts.headers = { authorization: 'fresh' };
        return 'retry';
      },
    };
    const err = await failure(api.answer(ScrapeContext.withBudget(400), '/data', { what: 'data', repairs: [slow] }));
    expect(err).toMatchObject({ code: 'PLATFORM_UNAVAILABLE', internal: expect.stringMatching(/deadline.*token/) });
    expect(fake.requests).toHaveLength(1);
  });

  test('note sees every answer; afterRetry runs once the retry answered (single-use cookies leave the jar)', async () => {
    const jar = new CookieJar();
    fake.on('/page', (req) => (String(req.headers.cookie ?? '').includes('proof=1') ? { body: { ok: true } } : { status: 401, body: {} }));
    const seen: number[] = [];
    const proof: Repair = {
      kind: 'challenge',
      when: TOKEN_REFUSED,
      note: (a) => void seen.push(a.status),
      async mend(_a, retry) {
        retry.opts.jar?.set('proof', '1');
        return 'retry';
      },
      afterRetry: (retry) => retry.opts.jar?.delete('proof'),
    };
    expect(await api.json(ctx(), '/page', { what: 'page', jar, repairs: [proof] })).toEqual({ ok: true });
    expect(seen).toEqual([401, 200]);
    expect(jar.has('proof')).toBe(false);
    expect(fake.requests.map((r) => r.headers.cookie ?? null)).toEqual([null, 'proof=1']);
  });
});
