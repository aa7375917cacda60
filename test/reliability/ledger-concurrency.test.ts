import { SCRAPE_AHEAD_MIN_CREDITS } from '../../shared/accounting/reservation';
import { addCredits, balance } from '../../shared/accounting/teams';
import { ledger } from '../../shared/accounting/ledger';
import { startHarness, type Harness } from '../support/harness';
import { liveOps } from './table';

// The deadline as deployed: a team below SCRAPE_AHEAD_MIN_CREDITS scrapes once its credit is
// reserved, and DynamoDB Local, on a busy test machine, takes seconds to work through 200
// concurrent updates of one item (DynamoDB: milliseconds). The tests' shorter default would turn
// that wait into upstream timeouts; exactness, not latency, is measured here.
process.env.SCRAPE_DEADLINE_MS = '20000';

/**
 * 200 live requests at once, spread over the routed operations, against a balance of K < 200:
 * exactly K are served and charged, the rest are refused with 402, the balance ends at 0 and the
 * ledger holds K records of 1 credit. The per-team rate limit is raised for the test.
 *
 * What this proves is the ledger under concurrency, not speed, so no time limit of the service may
 * decide its outcome. Here the 200 invocations, the gateway, the fake upstream and the client share
 * one Node event loop (on Lambda each invocation has a container and its CPU to itself): every request
 * waits for the CPU work of all the others, so with Lambda's per-request deadlines (the scrape
 * deadline, each upstream attempt's timeout, the DynamoDB call timeout) a busy machine turned healthy
 * requests into 503s. Those limits are lifted far beyond any run here; they are proved one request
 * at a time by the upstream fault matrix (upstream-faults-*.test.ts) and database-faults.test.ts.
 */
process.env.SCRAPE_DEADLINE_MS = '600000';
process.env.UPSTREAM_TIMEOUT_MS = '600000';
process.env.DYNAMODB_TIMEOUT_MS = '600000';
process.env.DYNAMODB_CONNECT_TIMEOUT_MS = '60000';
// A guard against a hang only: 6 x 200 requests take seconds on an idle machine.
jest.setTimeout(600_000);

const N = 200;
const OPS = liveOps();
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ ratePerMinute: 1e6, burst: 1e6 });
  h.fake.reset();
  for (const live of OPS) live.scenario.routes(h.fake);
  // Upstream answers take a while, so the requests really overlap.
  h.fake.delayMs = 30;
});
afterAll(async () => h.stop());

// The edges: one credit, and all but one. A balance that runs out partway, with refunds coming back
// meanwhile, is the case below (one upstream answer in three refused).
test.each([1, 199])('balance %i, 200 concurrent live requests', async (K) => {
  const { key, teamId } = await h.team(K);
  const results = await Promise.all(
    Array.from({ length: N }, (_, i) => {
      const live = OPS[i % OPS.length]!;
      return h.call(live.op.path, live.scenario.query, { key });
    }),
  );
  const ok = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 402);
  const other = results.filter((r) => r.status !== 200 && r.status !== 402).map((r) => `${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
  expect(other).toEqual([]);
  expect(ok).toHaveLength(K);
  expect(refused).toHaveLength(N - K);
  for (const r of ok) expect(r.body.meta).toMatchObject({ creditsCharged: 1, cached: false });
  for (const r of refused) expect(r.body.error).toMatchObject({ code: 'INSUFFICIENT_CREDITS', requestId: expect.any(String) });
  // Every remaining balance reported is distinct: each success took its own credit.
  expect(new Set(ok.map((r) => r.body.meta.creditsRemaining)).size).toBe(K);
  expect(await balance(teamId)).toBe(0);
  const records = await ledger(teamId);
  expect(records).toHaveLength(K);
  expect(records.reduce((sum, r) => sum + r.credits, 0)).toBe(K);
  expect(new Set(records.map((r) => r.requestId))).toEqual(new Set(ok.map((r) => r.body.meta.requestId)));
});

test('a team with credits to spare (its scrapes go out with their reservations), 300 concurrent against 260: exactly 260 charged', async () => {
  const K = SCRAPE_AHEAD_MIN_CREDITS + 60;
  const { key, teamId } = await h.team(0);
  await addCredits(teamId, K);
  // The key's first request: from now on the authorizer reads the team's balance with the key.
  expect((await h.call(OPS[0]!.op.path, {}, { key })).status).toBe(422);
  const results = await Promise.all(
    Array.from({ length: K + 40 }, (_, i) => {
      const live = OPS[i % OPS.length]!;
      return h.call(live.op.path, live.scenario.query, { key });
    }),
  );
  const other = results.filter((r) => r.status !== 200 && r.status !== 402).map((r) => `${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
  expect(other).toEqual([]);
  expect(results.filter((r) => r.status === 200)).toHaveLength(K);
  expect(results.filter((r) => r.status === 402)).toHaveLength(40);
  expect(await balance(teamId)).toBe(0);
  expect(await ledger(teamId)).toHaveLength(K);
});

test.each([20, 120])('balance %i, 200 concurrent live requests, one upstream answer in three refused: no credit lost or created', async (K) => {
  const { key, teamId } = await h.team(K);
  let n = 0;
  h.fake.intercept = () => (++n % 3 === 0 ? { status: 403, body: { error: 'Forbidden' } } : undefined);
  let results;
  try {
    results = await Promise.all(
      Array.from({ length: N }, (_, i) => {
        const live = OPS[i % OPS.length]!;
        return h.call(live.op.path, live.scenario.query, { key });
      }),
    );
  } finally {
    h.fake.intercept = undefined;
  }
  const ok = results.filter((r) => r.status === 200).length;
  const failed = results.filter((r) => r.status === 503).length;
  const refused = results.filter((r) => r.status === 402).length;
  expect(ok + failed + refused).toBe(N);
  expect(failed).toBeGreaterThan(0);
  expect(ok).toBeLessThanOrEqual(K);
  // Every credit is either spent on a delivered answer or still on the balance.
  const left = await balance(teamId);
  expect(left + ok).toBe(K);
  const records = await ledger(teamId);
  expect(records).toHaveLength(ok);
  // A 402 only while every remaining credit was reserved: with credits left at the end, some were refunded.
  if (refused > 0) expect(ok + failed).toBeGreaterThanOrEqual(K);
});
