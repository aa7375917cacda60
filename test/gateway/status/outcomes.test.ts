import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { fixture } from '../../../dev/upstream/fake';
import { config } from '../../../shared/runtime/config';
import { balance } from '../../../shared/accounting/teams';
import { db } from '../../../shared/db/client';
import { logger } from '../../../shared/runtime/log';
import { LATENCY_BUCKETS_MS, bucketOf, percentile, readFigures, type Outcome } from '../../../shared/status/outcomes';
import { outcomeUpdate } from '../../../shared/accounting/outcome-counts';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startHarness, type Harness } from '../../support/harness';

/** Outcome counts of real traffic (one write per answer, issue 28), and the accounting headers. */
const OP = 'microblog-a-user-posts';
const PATH = '/v1/microblog-a/user/posts';
const PROFILE = '/xrpc/app.bsky.actor.getProfile';
const FEED = '/xrpc/app.bsky.feed.getAuthorFeed';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.stop());
beforeEach(() => {
  h.fake.reset();
  h.fake.on(PROFILE, (req) =>
    req.query.actor === 'nobody-here.bsky.social' ? { status: 400, body: fixture('microblog-a/error-not-found.json') } : { body: fixture('microblog-a/profile.json') },
  );
  h.fake.on(FEED, { body: fixture('microblog-a/feed-page1.json') });
});

const counterItemsOf = async (op: string) =>
  ((await db().send(new ScanCommand({ TableName: config.cacheTable }))).Items ?? []).filter((i) => String(i.pk).startsWith(`OUT#${op}#`));
const counterItems = () => counterItemsOf(OP);

describe('a mix of requests, counted by status and code (issue 20, done when)', () => {
  test('a live 200, a cache hit, a 404, a 422 and an upstream 503 each land in the 15-minute and 24-hour figures', async () => {
    const { key, teamId } = await h.team(10);
    const before = await readFigures([OP], '15m');
    const live = await h.call(PATH, { handle: 'counted-one.bsky.social', cache_max_age: '1d' }, { key });
    const hit = await h.call(PATH, { handle: 'counted-one.bsky.social', cache_max_age: '1d' }, { key });
    const missing = await h.call(PATH, { handle: 'nobody-here.bsky.social' }, { key });
    const invalid = await h.call(PATH, { handle: 'bad handle!' }, { key });
    h.fake.on(FEED, { status: 502, body: { error: 'InternalServerError' } });
    const down = await h.call(PATH, { handle: 'counted-two.bsky.social' }, { key });
    expect([live.status, hit.status, missing.status, invalid.status, down.status]).toEqual([200, 200, 404, 422, 503]);
    expect(hit.body.meta.cached).toBe(true);

    for (const window of ['15m', '24h'] as const) {
      const f = (await readFigures([OP], window))[OP]!;
      if (window === '15m') {
        const was = before[OP]!;
        expect(f.answers - was.answers).toBe(5);
        expect((f.byStatus['200'] ?? 0) - (was.byStatus['200'] ?? 0)).toBe(2);
        for (const s of ['404', '422', '503']) expect((f.byStatus[s] ?? 0) - (was.byStatus[s] ?? 0)).toBe(1);
        expect((f.byCode.NOT_FOUND ?? 0) - (was.byCode.NOT_FOUND ?? 0)).toBe(1);
        expect((f.byCode.VALIDATION_ERROR ?? 0) - (was.byCode.VALIDATION_ERROR ?? 0)).toBe(1);
        expect((f.byCode.PLATFORM_UNAVAILABLE ?? 0) - (was.byCode.PLATFORM_UNAVAILABLE ?? 0)).toBe(1);
        expect(f.cacheHits - was.cacheHits).toBe(1);
        expect(f.live - was.live).toBe(1);
        expect(f.histogram.reduce((a, b) => a + b, 0)).toBe(f.live);
        expect(f.lastSuccessAt).toBeGreaterThanOrEqual(Date.parse(hit.body.data.fetchedAt));
      } else {
        expect(f.answers).toBeGreaterThanOrEqual(5);
        expect(f.byCode.PLATFORM_UNAVAILABLE).toBeGreaterThanOrEqual(1);
      }
    }
    // Each minute item with its expiry beyond the 24-hour window.
    const items = (await counterItems()).filter((i) => String(i.pk).includes('#m#'));
    expect(items.length).toBeGreaterThanOrEqual(1);
    for (const i of items) expect(Number(i.expiresAt)).toBeGreaterThan(Date.now() / 1000 + 24 * 3600 - 3600);

    // x-credits-* equal meta on successes; errors say 0 charged and the balance.
    expect(live.headers['x-credits-charged']).toBe('1');
    expect(live.headers['x-credits-remaining']).toBe(String(live.body.meta.creditsRemaining));
    expect(hit.headers['x-credits-charged']).toBe('0');
    expect(hit.headers['x-credits-remaining']).toBe(String(hit.body.meta.creditsRemaining));
    const now = String(await balance(teamId));
    for (const err of [missing, invalid, down]) {
      expect(err.headers['x-credits-charged']).toBe('0');
      expect(err.headers['x-credits-remaining']).toBe(now);
    }
  });

  test('a failing counter never fails the request; it is logged', async () => {
    const { key } = await h.team(10);
    const lines: string[] = [];
    const capture = (chunk: any) => {
      lines.push(String(chunk));
      return true;
    };
    const spies = [jest.spyOn(process.stdout, 'write').mockImplementation(capture), jest.spyOn(process.stderr, 'write').mockImplementation(capture)];
    logger.setLogLevel('WARN');
    const table = process.env.CACHE_TABLE;
    process.env.CACHE_TABLE = 'no-such-table';
    try {
      // The cache table is gone for this request: the settle goes on without the cache entry, the count fails.
      const res = await h.call(PATH, { handle: 'uncounted.bsky.social' }, { key });
      expect(res.status).toBe(200);
      expect(res.body.meta.creditsCharged).toBe(1);
    } finally {
      process.env.CACHE_TABLE = table;
      logger.setLogLevel('SILENT');
      for (const spy of spies) spy.mockRestore();
    }
    expect(lines.some((l) => l.includes('answer not fully recorded') && l.includes('outcome'))).toBe(true);
  });
});

describe('drift in the status (issue 31)', () => {
  test('a page with one item the platform sent without its uri: 200 with the others, the item counted as dropped in /v1/status', async () => {
    const { key } = await h.team(5);
    const page = fixture('microblog-a/feed-page1.json') as { feed: { post: Record<string, unknown> }[] };
    const total = page.feed.length;
    delete page.feed[1]!.post.uri;
    h.fake.on(FEED, { body: page });
    const before = (await readFigures([OP], '15m'))[OP]!;
    const res = await h.call(PATH, { handle: 'drifting.bsky.social' }, { key });
    expect(res.status).toBe(200);
    expect(res.body.data.count).toBe(res.body.data.posts.length);
    expect(res.body.data.posts.length).toBeLessThan(total);
    const status = await h.call('/v1/status', {});
    const mine = status.body.operations.find((o: { operation: string }) => o.operation === OP);
    expect(mine.last15m.droppedItems).toBeGreaterThanOrEqual(1);
    expect((await readFigures([OP], '15m'))[OP]!.dropped - before.dropped).toBeGreaterThanOrEqual(1);
  });
});

describe('the local gateway states its own rate-limit figures', () => {
  test('RateLimit-Limit, -Remaining and -Reset on operation answers, counting down', async () => {
    const { key } = await h.team(10);
    const a = await h.call(PATH, { handle: 'bad handle!' }, { key });
    const b = await h.call(PATH, { handle: 'bad handle!' }, { key });
    expect(a.headers['ratelimit-limit']).toBe('100');
    expect(Number(b.headers['ratelimit-remaining'])).toBeLessThan(Number(a.headers['ratelimit-remaining']));
    expect(Number(b.headers['ratelimit-reset'])).toBeGreaterThanOrEqual(1);
  });
});

describe('counters, directly', () => {
  const outcome = (over: Partial<Outcome>): Outcome => ({ operation: 'status-unit-op', status: 200, cached: false, live: true, ms: 120, upstreamCalls: 2, at: Date.now(), ...over });

  const count = (o: Outcome) => db().send(new UpdateCommand(outcomeUpdate(o)));

  test('one item write per answer, read back by status, code, cache hit, latency and dropped items', async () => {
    const op = 'status-unit-op';
    await Promise.all([
      count(outcome({ operation: op })),
      count(outcome({ operation: op, status: 200, cached: true, live: false, ms: 5 })),
      count(outcome({ operation: op, status: 503, code: 'SERVICE_UNAVAILABLE', live: false })),
      count(outcome({ operation: op, dropped: 2 })),
    ]);
    for (const window of ['15m', '24h'] as const) {
      const f = (await readFigures([op], window))[op]!;
      expect(f).toMatchObject({ answers: 4, cacheHits: 1, live: 2, dropped: 2, byStatus: { '200': 3, '503': 1 }, byCode: { SERVICE_UNAVAILABLE: 1 } });
      expect(f.histogram[bucketOf(120)]).toBe(2);
    }
  });

  test('the 24-hour window: a finished hour is summed once into its own item, then read from it', async () => {
    const op = 'status-unit-op-hours';
    const now = Date.now();
    const hourAgo = now - 3_600_000;
    const twoHoursAgo = now - 2 * 3_600_000;
    await Promise.all([count(outcome({ operation: op, at: hourAgo })), count(outcome({ operation: op, at: twoHoursAgo, status: 404, code: 'NOT_FOUND', live: false })), count(outcome({ operation: op, at: now }))]);
    const first = (await readFigures([op], '24h', now))[op]!;
    expect(first).toMatchObject({ answers: 3, live: 2, byStatus: { '200': 2, '404': 1 } });
    const hourItems = (await counterItemsOf(op)).filter((i) => String(i.pk).includes('#h#'));
    // The previous hour is folded only once it is a minute past its end; the one before certainly is.
    expect(hourItems.length).toBeGreaterThanOrEqual(1);
    expect((await readFigures([op], '24h', now))[op]).toEqual(first);
    // Not counted in the 15-minute window.
    expect((await readFigures([op], '15m', now))[op]).toMatchObject({ answers: 1 });
  });

  test('the histogram reads back percentiles as bucket bounds', () => {
    const hist = LATENCY_BUCKETS_MS.map(() => 0).concat(0);
    for (let i = 0; i < 90; i++) hist[bucketOf(80)]! += 1;
    for (let i = 0; i < 10; i++) hist[bucketOf(2500)]! += 1;
    expect(percentile(hist, 0.5)).toBe(100);
    expect(percentile(hist, 0.95)).toBe(3000);
    expect(percentile(hist.map(() => 0), 0.5)).toBeNull();
    expect(bucketOf(99_999)).toBe(LATENCY_BUCKETS_MS.length);
  });
});
