import { ApiClientError, OPERATIONS, SocialDataClient, apiBase } from '../../../client';
import { attempt } from '../../../shared/monitors/deliver';
import { logger } from '../../../shared/runtime/log';
import { scenarios } from '../../contract/scenarios';
import { startHarness, type Harness } from '../../support/harness';
import { forward, stageProxy, startServer } from './servers';

/** The typed client against the local gateway (the same gateway `npm start` serves) and the fake upstream. */
let h: Harness;
let key: string;
let api: SocialDataClient;
beforeAll(async () => {
  h = await startHarness();
  ({ key } = await h.team(100));
  api = new SocialDataClient({ baseUrl: h.gateway.url, apiKey: key });
});
afterAll(async () => h?.stop());
beforeEach(() => h.fake.reset());

test('one typed method per operation: data and meta of the envelope', async () => {
  scenarios['livestream-clip']!.routes(h.fake);
  const { data, meta } = await api.livestreamClip({ url: scenarios['livestream-clip']!.query.url! });
  expect(data.clip.id).toMatch(/^clip_/);
  expect(typeof data.fetchedAt).toBe('string');
  expect(meta).toMatchObject({ cached: false, creditsCharged: 1 });
});

test('cacheMaxAge: a cached result for 0 credits; bearer keys work too', async () => {
  scenarios['livestream-clip']!.routes(h.fake);
  const url = scenarios['livestream-clip']!.query.url!;
  await api.livestreamClip({ url });
  const bearer = new SocialDataClient({ baseUrl: h.gateway.url, apiKey: key, bearer: true, cacheMaxAge: '1d' });
  const hit = await bearer.livestreamClip({ url });
  expect(hit.meta).toMatchObject({ cached: true, creditsCharged: 0 });
});

test('status(): the public status document, typed, with the operations the client knows', async () => {
  const doc = await api.status();
  expect(Date.parse(doc.generatedAt)).toBeGreaterThan(0);
  expect(doc.operations.map((o) => o.path).sort()).toEqual(Object.values(OPERATIONS).map((o) => o.path).sort());
  expect(doc.operations.find((o) => o.path === OPERATIONS.citygameDaily.path)!.state).toBe('not configured');
});

test('errors are typed: code, requestId, details', async () => {
  const err = await api.livestreamClip({ url: 'https://evil.example/x' }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(ApiClientError);
  expect(err).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', requestId: expect.any(String), details: [{ path: 'url', message: expect.any(String) }] });
  const unauthorized = await new SocialDataClient({ baseUrl: h.gateway.url, apiKey: 'A'.repeat(28) }).livestreamClip({ url: 'https://kick.com/a/clips/clip_01JQ7ZK3M8W4TYV5R2N6P9XBCD' }).catch((e: unknown) => e);
  expect(unauthorized).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
});

test('429 and 503 are retried after Retry-After (bounded); retry: false gives the error at once', async () => {
  scenarios['livestream-clip']!.routes(h.fake);
  const url = scenarios['livestream-clip']!.query.url!;
  let calls = 0;
  const flaky: typeof fetch = async (input, init) => {
    calls += 1;
    if (calls === 1) return new Response(JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'slow down', requestId: 'r1' } }), { status: 429, headers: { 'retry-after': '1' } });
    return fetch(input, init);
  };
  const started = Date.now();
  const ok = await new SocialDataClient({ baseUrl: h.gateway.url, apiKey: key, fetch: flaky }).livestreamClip({ url });
  expect(ok.data.clip.id).toMatch(/^clip_/);
  expect(calls).toBe(2);
  expect(Date.now() - started).toBeGreaterThanOrEqual(900);

  calls = 0;
  const noRetry = new SocialDataClient({ baseUrl: h.gateway.url, apiKey: key, fetch: flaky, retry: false });
  await expect(noRetry.livestreamClip({ url })).rejects.toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: 1 });
  expect(calls).toBe(1);
});

test('beforeRequest is awaited before every attempt (retries included) and onResponse sees every answer with its headers', async () => {
  scenarios['livestream-clip']!.routes(h.fake);
  const url = scenarios['livestream-clip']!.query.url!;
  let calls = 0;
  const flaky: typeof fetch = async (input, init) => {
    calls += 1;
    if (calls === 1) return new Response(JSON.stringify({ error: { code: 'RATE_LIMITED', message: 'slow down', requestId: 'r1' } }), { status: 429, headers: { 'retry-after': '1' } });
    return fetch(input, init);
  };
  const events: string[] = [];
  const hooked = new SocialDataClient({
    baseUrl: h.gateway.url,
    apiKey: key,
    fetch: flaky,
    beforeRequest: async (target) => {
      events.push(`before ${target.pathname} (fetches so far: ${calls})`);
    },
    onResponse: (res) => events.push(`answer ${res.status} retry-after=${res.headers.get('retry-after')} ratelimit-remaining=${res.headers.get('ratelimit-remaining') !== null}`),
  });
  await hooked.livestreamClip({ url });
  expect(events).toEqual([
    'before /v1/livestream/clip (fetches so far: 0)',
    'answer 429 retry-after=1 ratelimit-remaining=false',
    'before /v1/livestream/clip (fetches so far: 1)',
    // The local gateway's own limiter sends RateLimit-* with its answers.
    'answer 200 retry-after=null ratelimit-remaining=true',
  ]);
});

test('for await walks every page of a cursor operation and stops at the last', async () => {
  const s = scenarios['microblog-c-user-posts']!;
  s.routes(h.fake);
  const pages = [];
  for await (const page of api.pages.microblogCUserPosts({ handle: s.query.handle! })) pages.push(page);
  // Page 1 is filled to 20 from the upstream's further pages (issue 19.2), so the walk may end on a
  // page that finds nothing more; what matters is that it walks on while there is a cursor and stops.
  expect(pages.length).toBeGreaterThanOrEqual(2);
  expect(pages[0]!.data.hasMore).toBe(true);
  expect(pages.at(-1)!.data).toMatchObject({ cursor: null, hasMore: false });
  expect(pages.flatMap((p) => p.data.posts).length).toBeGreaterThan(0);
});

describe('base URL and redirects', () => {
  const clipUrl = () => scenarios['livestream-clip']!.query.url!;

  test('a base URL with a stage path (the stack\'s ApiUrl output) keeps its path', async () => {
    scenarios['livestream-clip']!.routes(h.fake);
    const proxy = await stageProxy(h.gateway.url);
    try {
      for (const baseUrl of [`${proxy.url}/prod`, `${proxy.url}/prod/`]) {
        const { data } = await new SocialDataClient({ baseUrl, apiKey: key }).livestreamClip({ url: clipUrl() });
        expect(data.clip.id).toMatch(/^clip_/);
      }
      expect(proxy.requests.map((r) => r.url.split('?')[0])).toEqual(['/prod/v1/livestream/clip', '/prod/v1/livestream/clip']);
    } finally {
      await proxy.close();
    }
  });

  test('without a scheme the base is https; plain http only for this machine', async () => {
    const seen: string[] = [];
    const capture: typeof fetch = async (input) => {
      seen.push(String(input));
      return new Response(JSON.stringify({ data: {}, meta: {} }), { status: 200 });
    };
    await new SocialDataClient({ baseUrl: 'abc.execute-api.eu-west-1.amazonaws.com/prod', apiKey: key, fetch: capture }).livestreamClip({ url: 'u' });
    await new SocialDataClient({ baseUrl: 'https://api.example.com/prod', apiKey: key, fetch: capture }).livestreamClip({ url: 'u' });
    expect(seen).toEqual(['https://abc.execute-api.eu-west-1.amazonaws.com/prod/v1/livestream/clip?url=u', 'https://api.example.com/prod/v1/livestream/clip?url=u']);
    expect(() => new SocialDataClient({ baseUrl: 'http://api.example.com/prod', apiKey: key })).toThrow(/use https:\/\/api\.example\.com\/prod/);
    expect(() => new SocialDataClient({ baseUrl: 'ftp://api.example.com', apiKey: key })).toThrow(/https/);
    expect(() => new SocialDataClient({ baseUrl: 'https://user:pw@api.example.com', apiKey: key })).toThrow(/no user/);
    for (const local of ['http://localhost:3000', 'http://127.0.0.1:3000/', 'http://[::1]:3000']) expect(apiBase(local).protocol).toBe('http:');
  });

  test('a redirect to another origin is not followed: the key never reaches it (x-api-key or Bearer)', async () => {
    const elsewhere = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: { clip: { id: 'clip_stolen' } }, meta: {} }));
    });
    const redirecting = await startServer((req, res) => {
      res.writeHead(302, { location: `${elsewhere.url.replace('127.0.0.1', 'localhost')}${req.url}` });
      res.end();
    });
    try {
      for (const bearer of [false, true]) {
        const client = new SocialDataClient({ baseUrl: redirecting.url, apiKey: key, bearer, retry: false });
        await expect(client.livestreamClip({ url: clipUrl() })).rejects.toThrow(/another origin \(http:\/\/localhost:\d+\); the API key is not sent there/);
      }
      expect(redirecting.requests).toHaveLength(2);
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await Promise.all([elsewhere.close(), redirecting.close()]);
    }
  });

  test('a redirect within the same origin is followed, with the key', async () => {
    scenarios['livestream-clip']!.routes(h.fake);
    const moved = await startServer((req, res) => {
      const url = req.url ?? '/';
      if (url.startsWith('/new/')) return forward(req, res, h.gateway.url, url.slice('/new'.length));
      res.writeHead(307, { location: `/new${url}` });
      res.end();
    });
    try {
      const { data } = await new SocialDataClient({ baseUrl: moved.url, apiKey: key }).livestreamClip({ url: clipUrl() });
      expect(data.clip.id).toMatch(/^clip_/);
      expect(moved.requests.map((r) => [r.url.split('?')[0], r.headers['x-api-key']])).toEqual([
        ['/v1/livestream/clip', key],
        ['/new/v1/livestream/clip', key],
      ]);
    } finally {
      await moved.close();
    }
  });
});

describe("the team's own account, with the client's key (free)", () => {
  test('credits, usage (errors by code) and requests, x-api-key or Bearer; every page of the history; typed errors', async () => {
    const team = await h.team(3);
    const mine = new SocialDataClient({ baseUrl: h.gateway.url, apiKey: team.key, cacheMaxAge: '1d' });
    const bearer = new SocialDataClient({ baseUrl: h.gateway.url, apiKey: team.key, bearer: true });
    scenarios['livestream-clip']!.routes(h.fake);
    const url = scenarios['livestream-clip']!.query.url!;
    await bearer.livestreamClip({ url });
    await mine.livestreamClip({ url }); // a cache hit (the client's default cacheMaxAge), which the account reads do not send
    await mine.livestreamClip({ url: 'https://evil.example/x' }).catch(() => undefined);

    const credits = await mine.account.credits();
    expect(credits.data.balance).toBe(2);
    const usage = await bearer.account.usage({ days: 1 });
    expect(usage.data.totals).toMatchObject({ requests: 3, live: 1, hits: 1, errorCount: 1, byCode: { VALIDATION_ERROR: 1 } });
    const errors = await mine.account.requests({ status: 'error' });
    expect(errors.data.requests.map((r) => [r.status, r.code, r.keyName])).toEqual([[422, 'VALIDATION_ERROR', 'test']]);

    const pages = [];
    for await (const page of mine.account.requestPages({ limit: 2 })) pages.push(page.data.requests.map((r) => r.status));
    expect(pages).toEqual([[422, 200], [200]]);
    expect(await mine.account.credits()).toEqual(credits); // reading costs nothing

    const bad = await mine.account.requests({ limit: 0 }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', details: [{ path: 'limit' }] });
    const unknown = await new SocialDataClient({ baseUrl: h.gateway.url, apiKey: 'A'.repeat(28), retry: false }).account.credits().catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});

describe("the team's monitors, with the client's key (free)", () => {
  let receiver: Awaited<ReturnType<typeof startServer>>;
  beforeAll(async () => {
    process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
    receiver = await startServer((_req, res) => void res.writeHead(204).end());
  });
  afterAll(async () => {
    delete process.env.WEBHOOK_ALLOW_LOOPBACK;
    await receiver.close();
  });

  test('create (the secret once) → list → get → pause → test → deliveries → resume, interval and webhook → rotate → redeliver → remove', async () => {
    const team = await h.team(5);
    const mine = new SocialDataClient({ baseUrl: h.gateway.url, apiKey: team.key });
    const created = await mine.monitors.create({ operation: 'microblog-a-user-posts', params: { handle: 'someone.bsky.social' }, intervalSeconds: 300, webhookUrl: `${receiver.url}/hook` });
    const { id, secret } = created.data.monitor;
    expect(secret).toMatch(/^whsec_/);
    expect(created.data.monitor).toMatchObject({ operation: 'microblog-a-user-posts', status: 'active', intervalSeconds: 300 });
    expect((await mine.monitors.list()).data.monitors.map((m) => m.id)).toEqual([id]);
    const got = await mine.monitors.get(id);
    expect(got.data.monitor.id).toBe(id);
    expect(got.data.monitor).not.toHaveProperty('secret');
    expect((await mine.monitors.pause(id)).data.monitor).toMatchObject({ status: 'paused', pausedReason: 'by_request', nextPollAt: null });

    // Queued (sent even while paused: asked for by hand); the delivery worker's attempt sends it.
    const sent = await mine.monitors.test(id);
    expect(sent.data.delivery).toMatchObject({ type: 'monitor.test', state: 'pending', attempts: 0 });
    expect(await attempt(team.teamId, id, sent.data.delivery.eventId, Date.now(), logger)).toMatchObject({ state: 'delivered', attempts: 1, lastStatus: 204 });
    const { deliveries } = (await mine.monitors.deliveries(id)).data;
    expect(deliveries.map((d) => [d.eventId, d.type])).toEqual([[sent.data.delivery.eventId, 'monitor.test']]);
    expect(receiver.requests.map((r) => [r.method, r.url, r.headers['webhook-id']])).toEqual([['POST', '/hook', sent.data.delivery.eventId]]);

    expect((await mine.monitors.resume(id)).data.monitor).toMatchObject({ status: 'active', pausedReason: null });
    expect((await mine.monitors.update(id, { intervalSeconds: 600, webhookUrl: `${receiver.url}/other` })).data.monitor).toMatchObject({ intervalSeconds: 600, webhookUrl: `${receiver.url}/other` });
    const rotated = await mine.monitors.rotateSecret(id);
    expect(rotated.data.monitor.secret).toMatch(/^whsec_/);
    expect(rotated.data.monitor.secret).not.toBe(secret);
    const again = await mine.monitors.redeliver(id, sent.data.delivery.eventId);
    expect(again.data.delivery).toMatchObject({ eventId: sent.data.delivery.eventId, state: 'pending', attempts: 1 });

    expect((await mine.monitors.remove(id)).data).toEqual({ deleted: true, id });
    expect((await mine.monitors.list()).data.monitors).toEqual([]);
  });

  test("another team's monitor is a typed 404; a 422 carries its details; no key is 401", async () => {
    const [a, b] = [await h.team(1), await h.team(1)];
    const ours = new SocialDataClient({ baseUrl: h.gateway.url, apiKey: a.key });
    const theirs = new SocialDataClient({ baseUrl: h.gateway.url, apiKey: b.key, bearer: true });
    const { id } = (await ours.monitors.create({ operation: 'shortvideo-user-live', params: { handle: 'someone' }, intervalSeconds: 60, webhookUrl: `${receiver.url}/hook` })).data.monitor;
    for (const attempt of [theirs.monitors.get(id), theirs.monitors.pause(id), theirs.monitors.remove(id), theirs.monitors.deliveries(id), theirs.monitors.redeliver(id, 'evt_x')]) {
      const err = await attempt.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiClientError);
      expect(err).toMatchObject({ status: 404, code: 'NOT_FOUND', requestId: expect.any(String) });
    }
    expect((await ours.monitors.get(id)).data.monitor.status).toBe('active'); // untouched

    const invalid = await ours.monitors.create({ operation: 'microblog-a-user-posts', params: {}, intervalSeconds: 300, webhookUrl: `${receiver.url}/hook` }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ApiClientError);
    expect(invalid).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', details: [{ path: 'params.handle', message: expect.any(String) }] });
    const interval = await ours.monitors.update(id, { intervalSeconds: 10 }).catch((e: unknown) => e);
    expect(interval).toMatchObject({ status: 422, details: [{ path: 'intervalSeconds' }] });
    const anonymous = await new SocialDataClient({ baseUrl: h.gateway.url, apiKey: 'A'.repeat(28), retry: false }).monitors.list().catch((e: unknown) => e);
    expect(anonymous).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    await ours.monitors.remove(id);
  });

  test('a POST is not retried on 503 (it may have run); a GET is, after Retry-After', async () => {
    let calls = 0;
    const unavailable: typeof fetch = async () => {
      calls += 1;
      return new Response(JSON.stringify({ error: { code: 'SERVICE_UNAVAILABLE', message: 'busy', requestId: 'r' } }), { status: 503, headers: { 'retry-after': '1' } });
    };
    const flaky = new SocialDataClient({ baseUrl: h.gateway.url, apiKey: key, fetch: unavailable, retry: { attempts: 2 } });
    await expect(flaky.monitors.create({ operation: 'citygame-daily', intervalSeconds: 3600, webhookUrl: 'https://hooks.example.com/x' })).rejects.toMatchObject({ status: 503 });
    expect(calls).toBe(1);
    calls = 0;
    await expect(flaky.monitors.list()).rejects.toMatchObject({ status: 503 });
    expect(calls).toBe(2);
  });
});
