import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { balance } from '../../../shared/accounting/teams';
import { runDue } from '../../../shared/monitors/scheduler';
import { resolveNamesWith } from '../../../shared/scrape/address';
import { logger } from '../../../shared/runtime/log';
import { invokeInProcess } from '../../../dev/monitors';
import { fixture } from '../../../dev/upstream/fake';
import { type Harness, startHarness } from '../../support/harness';
import { routesOfOneMonitor } from '../../support/monitors';

/**
 * Monitors end to end on the local stack: the API through the local gateway, polls through the
 * operation's own pipeline (microblog-a user posts against the fake upstream), deliveries to a
 * local receiver verified with the `standardwebhooks` package. Time is the tests' own: each
 * "run due work now" (runDue) is given its clock.
 */
process.env.MONITOR_MIN_INTERVAL_SECONDS = '1';

const PROFILE = '/xrpc/app.bsky.actor.getProfile';
const FEED = '/xrpc/app.bsky.feed.getAuthorFeed';
const HANDLE = 'marlowe-tern.bsky.social';
type Feed = { feed: { post: { uri: string; cid: string } }[]; cursor?: string };
const baseFeed = () => JSON.parse(JSON.stringify(fixture('microblog-a/feed-page1.json'))) as Feed;
let feed: Feed;

interface Received {
  headers: Record<string, string>;
  body: string;
}
class Receiver {
  received: Received[] = [];
  statuses: number[] = [];
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(this.statuses.shift() ?? 200).end();
    });
  });
  url = '';
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }
  events() {
    return this.received.map((r) => JSON.parse(r.body) as { type: string; data: { items?: { id: string }[] } });
  }
}

let h: Harness;
const receiver = new Receiver();
let clock = Date.now();
const tick = (seconds: number) => runDue((clock += seconds * 1000), logger, invokeInProcess);

async function api(method: string, path: string, key: string, body?: unknown) {
  const res = await fetch(h.gateway.url + path, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}
/** Every monitor a test made, deleted after it: each test sees only its own monitors' work. */
const made: { key: string; id: string }[] = [];
async function create(key: string, over: Record<string, unknown> = {}) {
  const res = await api('POST', '/v1/monitors', key, { operation: 'microblog-a-user-posts', params: { handle: HANDLE }, intervalSeconds: 1, webhookUrl: receiver.url, ...over });
  if (res.status === 201) made.push({ key, id: res.body.data.monitor.id });
  return res;
}
afterEach(async () => {
  for (const { key, id } of made.splice(0)) await api('DELETE', `/v1/monitors/${id}`, key);
});

beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  h = await startHarness();
  await receiver.start();
});
afterAll(async () => {
  await new Promise((r) => receiver.server.close(r));
  await h.stop();
});
beforeEach(async () => {
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  // Whatever earlier tests left due is run now, so each test sees only its own monitor's work.
  await tick(100_000);
  receiver.received = [];
  receiver.statuses = [];
  feed = baseFeed();
  h.fake.reset();
  h.fake.on(PROFILE, { body: fixture('microblog-a/profile.json') });
  h.fake.on(FEED, () => ({ body: feed }));
});

describe('the monitor resource', () => {
  test('create answers 201 with the signing secret once; get and list never show it', async () => {
    const { key } = await h.team(10);
    const res = await create(key);
    expect(res.status).toBe(201);
    const m = res.body.data.monitor;
    expect(m).toMatchObject({ operation: 'microblog-a-user-posts', params: { handle: HANDLE }, intervalSeconds: 1, status: 'active' });
    expect(m.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    const got = await api('GET', `/v1/monitors/${m.id}`, key);
    expect(got.status).toBe(200);
    expect(got.body.data.monitor.secret).toBeUndefined();
    const list = await api('GET', '/v1/monitors', key);
    expect(list.body.data.monitors.map((x: { id: string }) => x.id)).toEqual([m.id]);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
  });

  test('bad input is a 4xx in the spec error shape: operation, params by the operation\'s own rules, interval, URL', async () => {
    const { key } = await h.team(10);
    const bad = async (over: Record<string, unknown>, path: string) => {
      const res = await create(key, over);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details[0].path).toBe(path);
    };
    await bad({ operation: 'professional-post' }, 'operation');
    await bad({ params: { handle: 'no spaces allowed here' } }, 'params.handle');
    await bad({ params: {} }, 'params.handle');
    await bad({ params: { handle: HANDLE, cursor: 'x' } }, 'params.cursor');
    await bad({ intervalSeconds: 0 }, 'intervalSeconds');
    await bad({ intervalSeconds: 86_401 }, 'intervalSeconds');
    await bad({ webhookUrl: 'ftp://example.com/x' }, 'webhookUrl');
    const notJson = await fetch(`${h.gateway.url}/v1/monitors`, { method: 'POST', headers: { 'x-api-key': key }, body: '[' });
    expect(notJson.status).toBe(400);
    expect(((await notJson.json()) as { error: { code: string } }).error.code).toBe('BAD_REQUEST');
  });

  test('a create or update wrong in several ways is told every problem at once (issue 37)', async () => {
    const { key } = await h.team(10);
    const res = await create(key, { params: { handle: 'no spaces allowed here' }, intervalSeconds: 0, webhookUrl: 'ftp://example.com/x' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Invalid request body' });
    expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual(['params.handle', 'intervalSeconds', 'webhookUrl']);
    for (const d of res.body.error.details) expect(Object.keys(d).sort()).toEqual(['message', 'path']);

    const id = (await create(key)).body.data.monitor.id;
    const update = await api('PATCH', `/v1/monitors/${id}`, key, { status: 'sleeping', intervalSeconds: 86_401, webhookUrl: 'ftp://example.com/x' });
    expect(update.status).toBe(422);
    expect(update.body.error.details.map((d: { path: string }) => d.path)).toEqual(['intervalSeconds', 'webhookUrl', 'status']);
    expect((await api('GET', `/v1/monitors/${id}`, key)).body.data.monitor).toMatchObject({ status: 'active', intervalSeconds: 1 });

    // Many problems: at most 20 details, the last one counting those left out.
    const many = await create(key, { params: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, i])) });
    expect(many.status).toBe(422);
    expect(many.body.error.details).toHaveLength(20);
    expect(many.body.error.details[19].path).toBe('*');
  });

  test("another team's monitor is 404 on every route; no key is 401", async () => {
    const owner = await h.team(10);
    const other = await h.team(10);
    const id = (await create(owner.key)).body.data.monitor.id;
    await tick(0);
    const eventId = (await api('GET', `/v1/monitors/${id}/deliveries`, owner.key)).body.data.deliveries[0].eventId;
    const routes = routesOfOneMonitor(id, eventId);
    for (const [method, path, body] of routes) {
      const res = await api(method, path, other.key, body);
      expect({ method, path, status: res.status, code: res.body.error?.code }).toEqual({ method, path, status: 404, code: 'NOT_FOUND' });
    }
    expect((await api('GET', '/v1/monitors', other.key)).body.data.monitors).toEqual([]);
    expect((await fetch(`${h.gateway.url}/v1/monitors`)).status).toBe(401);
    expect((await api('GET', `/v1/monitors/${id}`, owner.key)).body.data.monitor.status).toBe('active');
  });

  test('two PATCHes at once each change only what they name: both are kept', async () => {
    const { key } = await h.team(10);
    const m = (await create(key)).body.data.monitor;
    const other = receiver.url.replace('/hook', '/other');
    const [a, b] = await Promise.all([api('PATCH', `/v1/monitors/${m.id}`, key, { intervalSeconds: 120 }), api('PATCH', `/v1/monitors/${m.id}`, key, { webhookUrl: other })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect((await api('GET', `/v1/monitors/${m.id}`, key)).body.data.monitor).toMatchObject({ intervalSeconds: 120, webhookUrl: other, status: 'active' });
  });

  test('at most MONITORS_PER_TEAM per team', async () => {
    const { key } = await h.team(10);
    process.env.MONITORS_PER_TEAM = '2';
    try {
      expect((await create(key)).status).toBe(201);
      expect((await create(key)).status).toBe(201);
      const third = await create(key);
      expect(third.status).toBe(400);
      expect(third.body.error.code).toBe('BAD_REQUEST');
    } finally {
      delete process.env.MONITORS_PER_TEAM;
      for (const m of (await api('GET', '/v1/monitors', key)).body.data.monitors) await api('DELETE', `/v1/monitors/${m.id}`, key);
    }
  });
});

describe('polls, events and deliveries', () => {
  test('first poll: monitor.ready; a new item is delivered once, signed as standardwebhooks verifies; a re-ranked old one is not new again', async () => {
    const { key } = await h.team(10);
    const m = (await create(key)).body.data.monitor;
    const wh = new Webhook(m.secret);
    await tick(0);
    expect(receiver.events().map((e) => e.type)).toEqual(['monitor.ready']);

    // A new post on top, and the old ones re-ranked (reversed).
    const added = JSON.parse(JSON.stringify(feed.feed[8])) as Feed['feed'][number];
    added.post.uri = added.post.uri.replace(/[^/]+$/, '3lbrandnew01a');
    added.post.cid = `${added.post.cid}x`;
    feed.feed = [added, ...feed.feed.slice().reverse()];
    await tick(2);
    const events = receiver.events();
    expect(events.map((e) => e.type)).toEqual(['monitor.ready', 'items.new']);
    expect(events[1]!.data.items!.map((i) => i.id)).toEqual(['3lbrandnew01a']);
    for (const r of receiver.received) expect(() => wh.verify(r.body, r.headers)).not.toThrow();
    expect(() => wh.verify(receiver.received[1]!.body.replace('3lbrandnew01a', '3lbrandnew01b'), receiver.received[1]!.headers)).toThrow();

    // The same list again, re-ranked once more: nothing new, nothing sent.
    feed.feed.reverse();
    await tick(2);
    expect(receiver.received).toHaveLength(2);
  });

  test('a receiver answering 500 then 200 gets the event on a retry with the same webhook-id', async () => {
    const { key } = await h.team(10);
    const m = (await create(key)).body.data.monitor;
    receiver.statuses = [500];
    await tick(0);
    expect(receiver.received).toHaveLength(1);
    const [d] = (await api('GET', `/v1/monitors/${m.id}/deliveries`, key)).body.data.deliveries;
    expect(d).toMatchObject({ type: 'monitor.ready', state: 'pending', attempts: 1, lastStatus: 500 });
    expect(Date.parse(d.nextRetryAt) - clock).toBeLessThanOrEqual(30_000);
    // Paused: no new polls, and its pending delivery is held (the retry is not sent) until it is resumed.
    await api('PATCH', `/v1/monitors/${m.id}`, key, { status: 'paused' });
    await tick(30);
    expect(receiver.received).toHaveLength(1);
    const [held] = (await api('GET', `/v1/monitors/${m.id}/deliveries`, key)).body.data.deliveries;
    expect(held).toMatchObject({ state: 'pending', held: true, attempts: 1, nextRetryAt: null });
    await api('PATCH', `/v1/monitors/${m.id}`, key, { status: 'active' });
    await tick(1);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    expect(() => new Webhook(m.secret).verify(receiver.received[1]!.body, receiver.received[1]!.headers)).not.toThrow();
    const [after] = (await api('GET', `/v1/monitors/${m.id}/deliveries`, key)).body.data.deliveries;
    expect(after).toMatchObject({ state: 'delivered', attempts: 2, lastStatus: 200, nextRetryAt: null });
  });

  test('a pause made while a poll is running is not undone by the poll', async () => {
    const { key } = await h.team(10);
    const m = (await create(key)).body.data.monitor;
    await runDue((clock += 1000), logger, async (id, event) => {
      await api('PATCH', `/v1/monitors/${m.id}`, key, { status: 'paused' });
      return invokeInProcess(id, event);
    });
    expect((await api('GET', `/v1/monitors/${m.id}`, key)).body.data.monitor).toMatchObject({ status: 'paused', pausedReason: 'by_request', lastPollStatus: 200 });
  });

  test('test event, rotate-secret and redeliver', async () => {
    const { key } = await h.team(10);
    const m = (await create(key)).body.data.monitor;
    await api('PATCH', `/v1/monitors/${m.id}`, key, { intervalSeconds: 86_400 });
    await tick(0); // its first poll (monitor.ready), then no other for a day
    receiver.received = [];
    const sent = await api('POST', `/v1/monitors/${m.id}/test`, key, {});
    expect(sent.status).toBe(202);
    // Queued, not sent inside the request: the scheduler's next run sends it.
    expect(sent.body.data.delivery).toMatchObject({ type: 'monitor.test', state: 'pending' });
    expect(receiver.received).toHaveLength(0);
    await tick(0);
    expect(receiver.events().map((e) => e.type)).toEqual(['monitor.test']);
    const rotated = (await api('POST', `/v1/monitors/${m.id}/rotate-secret`, key, {})).body.data.monitor.secret;
    expect(rotated).not.toBe(m.secret);
    // One test or redelivery per monitor every 5 s: 429 with Retry-After, in the spec's error shape.
    const redeliver = () => fetch(`${h.gateway.url}/v1/monitors/${m.id}/deliveries/${sent.body.data.delivery.eventId}/redeliver`, { method: 'POST', headers: { 'x-api-key': key } });
    const limited = await redeliver();
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
    const wait = Number(limited.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(5);
    await new Promise((r) => setTimeout(r, wait * 1000));
    expect((await redeliver()).status).toBe(202);
    await tick(0);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(receiver.received[0]!.headers['webhook-id']);
    expect(() => new Webhook(rotated).verify(receiver.received[1]!.body, receiver.received[1]!.headers)).not.toThrow();
    // Within the rotation's overlap the old secret verifies too (the second signature).
    expect(() => new Webhook(m.secret).verify(receiver.received[1]!.body, receiver.received[1]!.headers)).not.toThrow();
  });
});

describe('credits', () => {
  test('a live poll costs 1 credit exactly once, a poll within half the interval takes the cache for 0, deliveries are free; polls are marked in history', async () => {
    const { key, teamId } = await h.team(10);
    // A handle of its own: no other test's poll has cached it.
    const m = (await create(key, { intervalSeconds: 120, params: { handle: 'credits-only.bsky.social' } })).body.data.monitor;
    await tick(0);
    expect(await balance(teamId)).toBe(9);
    expect(h.fake.requestsTo(FEED)).toHaveLength(1);
    await tick(120); // the cached answer is seconds old (real time), under the 60 s half interval
    expect(await balance(teamId)).toBe(9);
    expect(h.fake.requestsTo(FEED)).toHaveLength(1);
    await api('POST', `/v1/monitors/${m.id}/test`, key, {});
    expect(await balance(teamId)).toBe(9);
    const history = (await api('GET', '/v1/account/requests', key)).body.data.requests;
    expect(history).toHaveLength(2);
    for (const r of history) expect(r).toMatchObject({ operation: 'microblog-a-user-posts', source: 'monitor', monitorId: m.id, status: 200 });
    expect(history.map((r: { cached: boolean; credits: number }) => [r.cached, r.credits]).sort()).toEqual([[false, 1], [true, 0]]);
  });

  test('a team at zero credits gets one monitor.paused and no further upstream request', async () => {
    const { key, teamId } = await h.team(1);
    const m = (await create(key)).body.data.monitor;
    await tick(0);
    expect(await balance(teamId)).toBe(0);
    const upstream = h.fake.requests.length;
    await tick(2);
    await tick(2);
    expect(h.fake.requests.length).toBe(upstream);
    expect(receiver.events().map((e) => e.type)).toEqual(['monitor.ready', 'monitor.paused']);
    expect(receiver.events()[1]!.data).toMatchObject({ reason: 'no_credits' });
    expect((await api('GET', `/v1/monitors/${m.id}`, key)).body.data.monitor).toMatchObject({ status: 'paused', pausedReason: 'no_credits' });
  });
});

describe('monitor.paused', () => {
  test('the watched thing gone (404): one monitor.paused, and no more polls', async () => {
    const { key } = await h.team(10);
    const m = (await create(key)).body.data.monitor;
    await tick(0);
    h.fake.on(PROFILE, { status: 400, body: fixture('microblog-a/error-not-found.json') });
    h.fake.on(FEED, { status: 400, body: fixture('microblog-a/error-not-found.json') });
    await tick(2);
    const upstream = h.fake.requests.length;
    await tick(2);
    expect(h.fake.requests.length).toBe(upstream);
    expect(receiver.events().map((e) => e.type)).toEqual(['monitor.ready', 'monitor.paused']);
    expect(receiver.events()[1]!.data).toMatchObject({ reason: 'not_found' });
    expect((await api('GET', `/v1/monitors/${m.id}`, key)).body.data.monitor).toMatchObject({ status: 'paused', pausedReason: 'not_found' });
  });

  test('deliveries failing for 3 days pause the monitor; resuming by hand polls again', async () => {
    const { key } = await h.team(10);
    const m = (await create(key, { intervalSeconds: 3600 })).body.data.monitor;
    receiver.statuses = Array(100).fill(500);
    await tick(0);
    await tick(3 * 86_400 + 60);
    expect((await api('GET', `/v1/monitors/${m.id}`, key)).body.data.monitor).toMatchObject({ status: 'paused', pausedReason: 'deliveries_failing' });
    const types = (await api('GET', `/v1/monitors/${m.id}/deliveries`, key)).body.data.deliveries.map((d: { type: string }) => d.type);
    expect(types).toContain('monitor.paused');
    receiver.statuses = [];
    const resumed = await api('PATCH', `/v1/monitors/${m.id}`, key, { status: 'active' });
    expect(resumed.body.data.monitor).toMatchObject({ status: 'active', pausedReason: null });
  });
});

describe('where a webhook may go', () => {
  let restore: () => void;
  const names: Record<string, string> = { 'hooks.loop.test': '127.0.0.1', 'hooks.private.test': '10.1.2.3', 'hooks.meta.test': '169.254.169.254', 'hooks.public.test': '93.184.216.34' };
  beforeEach(() => {
    restore = resolveNamesWith((host, _o, cb) => (names[host] ? cb(null, [{ address: names[host]!, family: 4 }]) : cb(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }), [])));
  });
  afterEach(() => restore());

  test('private, loopback, link-local and metadata addresses are refused when set (names resolving to them included)', async () => {
    delete process.env.WEBHOOK_ALLOW_LOOPBACK;
    const { key } = await h.team(10);
    for (const url of [receiver.url, 'https://127.0.0.1/x', 'https://10.0.0.1/x', 'https://[::1]/x', 'https://169.254.169.254/latest', 'https://hooks.loop.test/x', 'https://hooks.private.test/x', 'https://hooks.meta.test/x', 'http://hooks.public.test/x']) {
      const res = await create(key, { webhookUrl: url });
      expect({ url, status: res.status, path: res.body.error?.details?.[0]?.path }).toEqual({ url, status: 422, path: 'webhookUrl' });
    }
    expect((await create(key, { webhookUrl: 'https://hooks.public.test/x' })).status).toBe(201);
    // With the loopback setting, a private address is still refused.
    process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
    expect((await create(key, { webhookUrl: 'https://hooks.private.test/x' })).status).toBe(422);
  });

  test('no delivery reaches loopback without the setting, even when the name is rebound after the check', async () => {
    delete process.env.WEBHOOK_ALLOW_LOOPBACK;
    const { key } = await h.team(10);
    const port = new URL(receiver.url).port;
    const m = (await create(key, { webhookUrl: `https://hooks.public.test:${port}/hook` })).body.data.monitor;
    names['hooks.public.test'] = '127.0.0.1';
    try {
      await tick(0);
      expect(receiver.received).toHaveLength(0);
      const [d] = (await api('GET', `/v1/monitors/${m.id}/deliveries`, key)).body.data.deliveries;
      expect(d).toMatchObject({ state: 'pending', attempts: 1, lastStatus: null });
      expect(d.lastError).toMatch(/public address/);
    } finally {
      names['hooks.public.test'] = '93.184.216.34';
      await api('DELETE', `/v1/monitors/${m.id}`, key);
    }
  });
});
