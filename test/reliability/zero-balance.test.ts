import { addCredits, balance } from '../../shared/accounting/teams';
import { rawDb } from '../../shared/db/client';
import { startHarness, type Harness } from '../support/harness';
import { liveOps } from './table';

/**
 * A team with no credit makes the service scrape nothing (issue 18.5): every live request of a team
 * whose balance is 0 is refused with 402 before any upstream request, the first one of a key and
 * every later one, one at a time and in bursts, on every routed operation. A funded team's scrape
 * still goes out with its reservation, not after it.
 */
const OPS = liveOps();
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ ratePerMinute: 1e6, burst: 1e6 });
});
afterAll(async () => h.stop());
beforeEach(() => {
  h.fake.reset();
  for (const live of OPS) live.scenario.routes(h.fake);
});

// The key's first request (no balance from the authorizer yet) and later ones (a balance of 0 read
// with the key): both paths, five requests in all.
test.each(OPS.map((l) => [l.op.id, l] as const))('%s: a zero-balance team, 5 requests in a row: 402 each time, not one upstream request', async (_id, live) => {
  const { key, teamId } = await h.team(0);
  for (let i = 0; i < 5; i++) {
    const res = await h.call(live.op.path, live.scenario.query, { key });
    expect({ i, status: res.status, code: res.body.error?.code }).toEqual({ i, status: 402, code: 'INSUFFICIENT_CREDITS' });
  }
  expect(h.fake.requests).toEqual([]);
  expect(await balance(teamId)).toBe(0);
});

test('a zero-balance team, bursts of 40 concurrent requests over every operation: no upstream request', async () => {
  const { key } = await h.team(0);
  for (let round = 0; round < 3; round++) {
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => OPS[i % OPS.length]!).map((live) => h.call(live.op.path, live.scenario.query, { key })));
    expect(results.map((r) => r.status)).toEqual(results.map(() => 402));
  }
  expect(h.fake.requests).toEqual([]);
});

test('a team that spends its last credit: the next requests make no upstream request', async () => {
  const live = OPS[0]!;
  const { key } = await h.team(1);
  expect((await h.call(live.op.path, live.scenario.query, { key })).status).toBe(200);
  h.fake.requests.length = 0;
  for (let i = 0; i < 10; i++) expect((await h.call(live.op.path, live.scenario.query, { key })).status).toBe(402);
  expect(h.fake.requests).toEqual([]);
});

test('a funded team: the upstream request goes out while the reservation is still on its way', async () => {
  const live = OPS[0]!;
  const { key, teamId } = await h.team(0);
  await addCredits(teamId, 100_000);
  await h.call(live.op.path, live.scenario.query, { key }); // this key's first request
  // Every reservation takes 800 ms more; the upstream request must not wait for it.
  let reservationAnswered = 0;
  const name = 'slowReservation';
  rawDb().middlewareStack.addRelativeTo(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the finalize step's arguments are loosely typed
    (next: any, context: any) => async (args: any) => {
      if (context.commandName !== 'UpdateItemCommand' || !/credits >= :cost/.test(args.input.ConditionExpression ?? '')) return next(args);
      await new Promise((r) => setTimeout(r, 800));
      const out = await next(args);
      reservationAnswered = Date.now();
      return out;
    },
    { relation: 'after', toMiddleware: 'retryMiddleware', name, override: true },
  );
  const firstUpstream: number[] = [];
  h.fake.intercept = () => void firstUpstream.push(Date.now());
  try {
    h.fake.requests.length = 0;
    const res = await h.call(live.op.path, live.scenario.query, { key });
    expect(res.status).toBe(200);
  } finally {
    rawDb().middlewareStack.remove(name);
    h.fake.intercept = undefined;
  }
  expect(firstUpstream.length).toBeGreaterThan(0);
  expect(firstUpstream[0]!).toBeLessThan(reservationAnswered);
});
