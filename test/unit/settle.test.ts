import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTables } from '../../dev/tables';
import { cacheItem, cacheKey } from '../../shared/result-cache';
import { config } from '../../shared/runtime/config';
import { balance, createTeam, ledger, recordHit, recordLateHit, refund, reserve, settleError, settleLive, unrecordHit } from '../../shared/accounting/credits';
import { db } from '../../shared/db/client';
import { dbSends } from '../support/db-sends';
import { type Answered, historyItem, requestHistory } from '../../shared/accounting/request-history';
import { logger } from '../../shared/runtime/log';
import { usage } from '../../shared/accounting/usage';

/**
 * The write side of a request (shared/accounting/credits.ts): a live answer's ledger record, usage count,
 * history item and cache entry are written together; a cache hit's count and history item only on a
 * fresh cache entry; an error's with its refund.
 */
const OP = 'livestream-clip';
let n = 0;

async function live(teamId: string, item: Record<string, unknown> | null | 'fresh' = 'fresh') {
  const requestId = `settle-${++n}`;
  const fetchedAt = Date.now();
  const key = cacheKey(OP, { url: `https://kick.com/x/clips/${requestId}` });
  const entry = item === 'fresh' ? cacheItem(key, OP, { title: requestId }, fetchedAt) : item;
  const charge = { teamId, requestId, operation: OP, time: new Date(fetchedAt).toISOString() };
  await settleLive(charge, entry, logger, { keyId: 'k1', ms: 12 });
  return { charge, key, entry };
}

const cached = async (key: string) => (await db().send(new GetCommand({ TableName: config.cacheTable, Key: { pk: key }, ConsistentRead: true }))).Item;

beforeAll(async () => {
  await ensureTables();
});

test('a live answer: the ledger record, the day\'s usage count and the cache entry, all written', async () => {
  const { teamId } = await createTeam('settle-live', 10, { usageKey: 'u-settle-live' });
  const { charge, key } = await live(teamId);
  expect(await ledger(teamId)).toEqual([{ ...charge, credits: 1 }]);
  expect((await usage(teamId, 1)).days[0]!.operations).toEqual({ [OP]: { live: 1, hits: 0, errors: {}, credits: 1 } });
  expect(await cached(key)).toMatchObject({ pk: key, op: OP });
  expect((await history(teamId)).requests).toEqual([
    { time: charge.time, operation: OP, keyId: 'k1', status: 200, code: null, credits: 1, cached: false, ms: 12, requestId: charge.requestId },
  ]);
});

test('settling the same request again (a retry of a write that landed) changes nothing', async () => {
  const { teamId } = await createTeam('settle-twice', 10, { usageKey: 'u-settle-twice' });
  const { charge, entry } = await live(teamId);
  await settleLive(charge, entry, logger, { keyId: 'k1', ms: 12 });
  await settleLive(charge, null, logger, { keyId: 'k1', ms: 12 });
  expect(await ledger(teamId)).toHaveLength(1);
  expect((await usage(teamId, 1)).totals).toMatchObject({ live: 1, credits: 1 });
  expect((await history(teamId)).requests).toHaveLength(1);
});

test('a cache entry the database refuses costs neither the charge nor its count', async () => {
  const { teamId } = await createTeam('settle-refused', 10, { usageKey: 'u-settle-refused' });
  // An empty key attribute: DynamoDB refuses the whole request that carries it.
  await live(teamId, { pk: '', op: OP, fetchedAt: Date.now() });
  expect(await ledger(teamId)).toHaveLength(1);
  expect((await usage(teamId, 1)).totals).toMatchObject({ live: 1, credits: 1 });
});

test('many live answers of one team at once: each charged and counted once, spread over the usage shards', async () => {
  const { teamId } = await createTeam('settle-many', 100, { usageKey: 'u-settle-many' });
  await Promise.all(Array.from({ length: 40 }, () => live(teamId, null)));
  expect(await ledger(teamId)).toHaveLength(40);
  expect((await usage(teamId, 1)).totals).toMatchObject({ requests: 40, live: 40, credits: 40 });
  const shards = await db().send(
    new QueryCommand({ TableName: config.accountsTable, KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)', ExpressionAttributeValues: { ':p': `TEAM#${teamId}`, ':s': 'USAGE#' } }),
  );
  expect(shards.Items!.length).toBeGreaterThan(4);
});

const answer = (teamId: string, status: number, code: Answered['code'], cached = false): Answered => ({
  teamId, keyId: 'k2', operation: OP, requestId: `answer-${++n}`, status, code, credits: 0, cached, ms: 5, time: Date.now(),
});

test('a cache hit: counted and recorded only while its entry is fresh (no ledger record, no balance change)', async () => {
  const { teamId } = await createTeam('settle-hit', 7, { usageKey: 'u-settle-hit' });
  const { key, entry } = await live(teamId); // a fresh entry (and one live answer of this team)
  const fetchedAt = entry!.fetchedAt as number;
  expect(await recordHit(answer(teamId, 200, null, true), key, 86_400, Date.now(), logger)).toBe('recorded');
  expect(await recordHit(answer(teamId, 200, null, true), key, 86_400, Date.now(), logger)).toBe('recorded');
  // Older than the caller accepts, no entry, an expired one: nothing written.
  expect(await recordHit(answer(teamId, 200, null, true), key, 1, fetchedAt + 5_000, logger)).toBe('no entry');
  expect(await recordHit(answer(teamId, 200, null, true), cacheKey(OP, { url: 'https://kick.com/x/clips/none' }), 86_400, Date.now(), logger)).toBe('no entry');
  const expiresAtMs = (entry!.expiresAt as number) * 1000;
  expect(await recordHit(answer(teamId, 200, null, true), key, 10 * 365 * 86_400, expiresAtMs + 1, logger)).toBe('no entry');
  expect((await usage(teamId, 1)).days[0]!.operations).toEqual({ [OP]: { live: 1, hits: 2, errors: {}, credits: 1 } });
  expect((await history(teamId)).requests.map((r) => [r.status, r.cached, r.credits])).toEqual([
    [200, true, 0],
    [200, true, 0],
    [200, false, 1],
  ]);
  expect(await ledger(teamId)).toHaveLength(1);
  expect(await balance(teamId)).toBe(7);
});

test('a hit counted for an entry that proved unreadable is taken back, and the request\'s own answer replaces its history item', async () => {
  const { teamId } = await createTeam('settle-unread', 4, { usageKey: 'u-settle-unread' });
  const { key } = await live(teamId);
  const hit = answer(teamId, 200, null, true);
  expect(await recordHit(hit, key, 86_400, Date.now(), logger)).toBe('recorded');
  await unrecordHit(hit, logger);
  // The same request then answers with an error: one history item for it, the error's.
  await settleError({ ...hit, status: 503, code: 'PLATFORM_UNAVAILABLE', cached: false, time: hit.time + 40, ms: hit.ms + 40 }, false, logger);
  expect((await usage(teamId, 1)).days[0]!.operations).toEqual({ [OP]: { live: 1, hits: 0, errors: { PLATFORM_UNAVAILABLE: 1 }, credits: 1 } });
  const mine = (await history(teamId)).requests.filter((r) => r.requestId === hit.requestId);
  expect(mine.map((r) => [r.status, r.code])).toEqual([[503, 'PLATFORM_UNAVAILABLE']]);
});

test('an error: the refund (when a credit was reserved), with the error counted by code and recorded', async () => {
  const { teamId } = await createTeam('settle-error', 3, { usageKey: 'u-settle-error' });
  const failed = answer(teamId, 503, 'UPSTREAM_BLOCKED');
  expect(await reserve(teamId, failed.requestId)).toBe(2);
  await settleError(failed, true, logger);
  expect(await balance(teamId)).toBe(3);
  await settleError(answer(teamId, 422, 'VALIDATION_ERROR'), false, logger);
  expect(await balance(teamId)).toBe(3);
  const report = await usage(teamId, 1);
  expect(report.days[0]!.operations).toEqual({ [OP]: { live: 0, hits: 0, errors: { UPSTREAM_BLOCKED: 1, VALIDATION_ERROR: 1 }, credits: 0 } });
  expect(report.totals).toMatchObject({ requests: 2, errorCount: 2, byStatus: { 503: 1, 422: 1 }, byCode: { UPSTREAM_BLOCKED: 1, VALIDATION_ERROR: 1 } });
  expect((await history(teamId)).requests.map((r) => [r.status, r.code, r.credits])).toEqual([
    [422, 'VALIDATION_ERROR', 0],
    [503, 'UPSTREAM_BLOCKED', 0],
  ]);
  expect(await ledger(teamId)).toEqual([]);
});

test('counting never fails the answer: a write the database refuses is logged, the refund still made', async () => {
  const { teamId } = await createTeam('settle-error-refused', 3, { usageKey: 'u-settle-error-refused' });
  // A request id past the sort key's limit (1024 bytes): DynamoDB refuses the history item.
  const bad = { ...answer(teamId, 404, 'NOT_FOUND'), requestId: 'r'.repeat(2_000) };
  await reserve(teamId, bad.requestId);
  const warnings: unknown[] = [];
  const log = { ...logger, warn: (...args: unknown[]) => warnings.push(args), error: logger.error.bind(logger) } as unknown as typeof logger;
  await expect(settleError(bad, true, log)).resolves.toBe(true); // the credit given back
  expect(await balance(teamId)).toBe(3);
  expect(warnings).toHaveLength(1);
});

/**
 * 18.7: the functions that run requests parse hostile pages and have no PutItem on the accounts table
 * (infra/stack.ts), so every write of the request's write side there is an UpdateItem: the ledger
 * record and the history item are written whole by UpdateItem, under conditions that keep them off
 * any item but their own.
 */
describe('the write side writes the accounts table by UpdateItem only (18.7)', () => {
  /** Every accounts-table write the calls in `run` send: the command's name, or the transaction action's. */
  async function accountWrites(run: () => Promise<unknown>): Promise<string[]> {
    const seen: string[] = [];
    for (const { name, input } of (await dbSends(run)).calls) {
      if (name === 'TransactWriteCommand') {
        for (const action of input.TransactItems as Record<string, { TableName: string }>[]) {
          for (const [kind, body] of Object.entries(action)) if (body.TableName === config.accountsTable && kind !== 'ConditionCheck') seen.push(kind);
        }
      } else if (input.TableName === config.accountsTable && !/^(Get|Query|BatchGet)/.test(name)) {
        seen.push(name);
      }
    }
    return seen;
  }

  test('reserve, settle live (ledger record, usage count, history item), hit, late hit, unreadable hit, error with refund: no Put, no Delete', async () => {
    const { teamId } = await createTeam('settle-no-put', 10, { usageKey: 'u-settle-no-put' });
    const writes = await accountWrites(async () => {
      await reserve(teamId, `no-put-${++n}`);
      const { key } = await live(teamId);
      const hit = answer(teamId, 200, null, true);
      await recordHit(hit, key, 86_400, Date.now(), logger);
      await unrecordHit(hit, logger);
      await recordLateHit(answer(teamId, 200, null, true), logger);
      const failed = answer(teamId, 503, 'UPSTREAM_BLOCKED');
      await reserve(teamId, failed.requestId);
      await settleError(failed, true, logger);
      await refund(teamId, 'never-reserved');
    });
    expect(writes.length).toBeGreaterThan(8);
    expect(new Set(writes)).toEqual(new Set(['UpdateCommand', 'Update']));
    // The writes landed as before: one charge, its history, the hit's and the error's.
    expect(await ledger(teamId)).toHaveLength(1);
    expect((await history(teamId)).requests.map((r) => r.status).sort()).toEqual([200, 200, 200, 503]);
  });

  test('the history item is written whole: a later answer of the same request replaces it, leaving none of the earlier attributes', async () => {
    const { teamId } = await createTeam('settle-whole', 4, { usageKey: 'u-settle-whole' });
    const first = answer(teamId, 503, 'PLATFORM_UNAVAILABLE');
    await settleError(first, false, logger);
    // The same request (same start: time - ms), answered again without an error code and without a key.
    const later: Answered = { ...first, status: 200, code: null, cached: true, time: first.time + 30, ms: first.ms + 30 };
    delete later.keyId;
    await recordLateHit(later, logger);
    const expected = historyItem(later);
    const stored = (await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: expected.pk, sk: expected.sk }, ConsistentRead: true }))).Item;
    expect(stored).toEqual(expected);
    expect(stored).not.toHaveProperty('code');
    expect(stored).not.toHaveProperty('keyId');
  });

  test('a free answer\'s history item has no credits attribute (read as 0); one that replaces a live answer\'s item removes its credits', async () => {
    const { teamId } = await createTeam('settle-free-credits', 4, { usageKey: 'u-settle-free-credits' });
    const { charge } = await live(teamId); // credits: 1, the request started 12 ms before its charge
    const stored = async (a: Answered) => {
      const { pk, sk } = historyItem(a);
      return (await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk, sk }, ConsistentRead: true }))).Item;
    };
    const charged: Answered = { teamId, keyId: 'k1', operation: OP, requestId: charge.requestId, status: 200, code: null, credits: 1, cached: false, ms: 12, time: Date.parse(charge.time) };
    expect(await stored(charged)).toMatchObject({ credits: 1 });
    // The same request (same start), answered again as an error: its item replaced, without credits.
    const failed: Answered = { ...charged, status: 503, code: 'PLATFORM_UNAVAILABLE', credits: 0, ms: 40, time: charged.time + 28 };
    await settleError(failed, false, logger);
    const item = await stored(failed);
    expect(item).toEqual(historyItem(failed));
    expect(item).not.toHaveProperty('credits');
    // The reader answers 0, as before.
    expect((await history(teamId)).requests).toEqual([expect.objectContaining({ requestId: charge.requestId, status: 503, credits: 0 })]);
    const fresh = answer(teamId, 404, 'NOT_FOUND');
    await settleError(fresh, false, logger);
    expect(await stored(fresh)).not.toHaveProperty('credits');
    expect((await history(teamId)).requests.find((r) => r.requestId === fresh.requestId)).toMatchObject({ credits: 0 });
  });

  test('a history write never changes an item of another request that has its key', async () => {
    const { teamId } = await createTeam('settle-foreign', 4, { usageKey: 'u-settle-foreign' });
    const mine = answer(teamId, 404, 'NOT_FOUND');
    const { pk, sk } = historyItem(mine);
    const foreign = { pk, sk, requestId: 'another-request', credits: 99, note: 'not this request\'s' };
    await db().send(new PutCommand({ TableName: config.accountsTable, Item: foreign }));
    const warnings: unknown[] = [];
    const log = { ...logger, warn: (...args: unknown[]) => warnings.push(args), error: logger.error.bind(logger) } as unknown as typeof logger;
    await settleError(mine, false, log);
    expect(warnings).toHaveLength(1); // the history item not recorded: logged, the answer unharmed
    expect((await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk, sk }, ConsistentRead: true }))).Item).toEqual(foreign);
    expect((await usage(teamId, 1)).totals).toMatchObject({ errorCount: 1 });
  });
});

const history = (teamId: string) => requestHistory(teamId, { limit: 50 });
