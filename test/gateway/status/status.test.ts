import { fixture } from '../../../dev/upstream/fake';
import { routedOperations, operations } from '../../../shared/operations';
import type { CanaryRecord } from '../../../shared/status/canary-record';
import { emptyFigures, type Figures } from '../../../shared/status/outcomes';
import type { StatusDocument } from '../../../shared/status/page';
import { STATUS_RULES, stateOf, successShare } from '../../../shared/status/state';
import { startHarness, type Harness } from '../../support/harness';

/** Item 2 of issue 20: GET /v1/status, public, from real traffic, with the state rules written once. */
const OP = 'microblog-a-user-posts';
const PATH = '/v1/microblog-a/user/posts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.stop());

const status = async () => {
  const res = await h.call('/v1/status');
  expect(res.status).toBe(200);
  return { doc: res.body as StatusDocument, headers: res.headers };
};

test('without a key: every operation, in the table\'s order, "not configured" for one without a source, cacheable briefly', async () => {
  const { doc, headers } = await status();
  expect(doc.operations.map((o) => o.operation)).toEqual([...operations].sort((a, b) => a.number - b.number).map((o) => o.id));
  expect(doc.operations.find((o) => o.operation === 'citygame-daily')!.state).toBe('not configured');
  // Every other routed operation (a source of its own) has too little traffic yet.
  for (const o of doc.operations.filter((x) => x.operation !== 'citygame-daily' && routedOperations().some((r) => r.id === x.operation))) expect(o.state).toBe('unknown');
  expect(headers['cache-control']).toBe('public, max-age=5');
  expect(headers['x-request-id']).toEqual(expect.any(String));
});

test('a live 200, a cache hit, a 404, a 422 and an upstream 503 show within 10 s, by status and code, with latency and last success', async () => {
  await status(); // the function now keeps a document: what follows must still show within 10 s
  const { key } = await h.team(10);
  h.fake.reset();
  h.fake.on('/xrpc/app.bsky.actor.getProfile', (req) => (req.query.actor === 'nobody-here.bsky.social' ? { status: 400, body: fixture('microblog-a/error-not-found.json') } : { body: fixture('microblog-a/profile.json') }));
  h.fake.on('/xrpc/app.bsky.feed.getAuthorFeed', { body: fixture('microblog-a/feed-page1.json') });
  const started = Date.now();
  await h.call(PATH, { handle: 'status-one.bsky.social', cache_max_age: '1d' }, { key });
  await h.call(PATH, { handle: 'status-one.bsky.social', cache_max_age: '1d' }, { key });
  await h.call(PATH, { handle: 'nobody-here.bsky.social' }, { key });
  await h.call(PATH, { handle: 'bad handle!' }, { key });
  h.fake.on('/xrpc/app.bsky.feed.getAuthorFeed', { status: 502, body: { error: 'InternalServerError' } });
  await h.call(PATH, { handle: 'status-two.bsky.social' }, { key });

  let mine: StatusDocument['operations'][number] | undefined;
  while (Date.now() - started < 10_000) {
    mine = (await status()).doc.operations.find((o) => o.operation === OP)!;
    if (mine.last15m.answers >= 5) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  expect(Date.now() - started).toBeLessThan(10_000);
  expect(mine!.last15m).toMatchObject({
    answers: 5,
    byStatus: { '200': 2, '404': 1, '422': 1, '503': 1 },
    byCode: { NOT_FOUND: 1, VALIDATION_ERROR: 1, PLATFORM_UNAVAILABLE: 1 },
    cacheHits: 1,
    successShare: 4 / 5,
  });
  expect(mine!.last15m.latencyMs.live).toBe(1);
  expect(mine!.last15m.latencyMs.p50).toEqual(expect.any(Number));
  expect(mine!.last24h.answers).toBe(5);
  expect(Date.parse(mine!.lastSuccessAt!)).toBeGreaterThanOrEqual(started);
  // 3 source answers (live 200, 404, 503): too few to judge, and no canary has run.
  expect(mine!.state).toBe('unknown');
});

describe('the state rules', () => {
  const figures = (byStatus: Record<string, number>, cacheHits = 0): Figures => ({
    ...emptyFigures(),
    answers: Object.values(byStatus).reduce((a, b) => a + b, 0),
    byStatus,
    cacheHits,
  });
  const canary = (over: Partial<CanaryRecord>): CanaryRecord => ({ operation: OP, at: NOW - 60_000, ok: true, ms: 100, missing: [], newlyNull: [], consecutiveFailures: 0, lastOkAt: NOW, presentPaths: [], ...over });
  const NOW = Date.now();

  test.each([
    ['no source', 'not configured', false, figures({}), null],
    ['too little traffic, no canary', 'unknown', true, figures({ 200: 4 }), null],
    ['cache hits and the caller\'s refusals say nothing about the source', 'unknown', true, figures({ 200: 20, 422: 30, 402: 5 }, 20), null],
    ['404s are answers, not failures', 'operational', true, figures({ 200: 2, 404: 10 }), null],
    ['10% failed', 'operational', true, figures({ 200: 9, 503: 1 }), null],
    ['over 10% failed', 'degraded', true, figures({ 200: 8, 503: 2 }), null],
    ['half failed', 'down', true, figures({ 200: 5, 503: 5 }), null],
    ['traffic fine, canary drifted', 'degraded', true, figures({ 200: 10 }), canary({ newlyNull: ['user.website'] })],
    ['no traffic, canary passed', 'operational', true, figures({}), canary({})],
    ['no traffic, canary failed once', 'degraded', true, figures({}), canary({ ok: false, code: 'UPSTREAM_BLOCKED', consecutiveFailures: 1 })],
    ['no traffic, canary failed twice in a row', 'down', true, figures({}), canary({ ok: false, code: 'UPSTREAM_BLOCKED', consecutiveFailures: 2 })],
    ['no traffic, canary too old', 'unknown', true, figures({}), canary({ at: NOW - STATUS_RULES.CANARY_FRESH_MS - 1 })],
  ] as const)('%s -> %s', (_name, expected, routed, f, c) => {
    expect(stateOf(routed, f, c, NOW).state).toBe(expected);
  });

  test('success share: everything but 5xx, over all answers; null without answers', () => {
    expect(successShare(figures({ 200: 6, 404: 1, 422: 1, 503: 2 }))).toBeCloseTo(0.8);
    expect(successShare(figures({}))).toBeNull();
  });
});
