import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTables } from '../../dev/tables';
import { cacheItem, cacheKey } from '../../shared/result-cache';
import { config } from '../../shared/runtime/config';
import { balance, createTeam } from '../../shared/accounting/teams';
import { ledger, settleLive } from '../../shared/accounting/ledger';
import { type Answer, answered, recordAnswer } from '../../shared/accounting/record';
import { refund, reserve } from '../../shared/accounting/reservation';
import { db } from '../../shared/db/client';
import { dbSends } from '../support/db-sends';
import { historyItem, requestHistory } from '../../shared/accounting/request-history';
import { logger } from '../../shared/runtime/log';
import { usage } from '../../shared/accounting/usage';

/**
 * The accounting of an answer (shared/accounting/): a live answer's settle writes its ledger record,
 * its history item and its cache entry in one transaction; every answer's record writes its usage
 * count, its outcome count and (unless its settle did) its history item, once, by plain UpdateItems.
 */
const OP = 'livestream-clip';
let n = 0;

const answer = (teamId: string, status: number, code: Answer['code'], extra: Partial<Answer> = {}): Answer => ({
  teamId,
  keyId: 'k1',
  operation: OP,
  requestId: `acct-${++n}`,
  status,
  code,
  credits: 0,
  cached: false,
  live: false,
  ms: 12,
  time: Date.now(),
  upstreamCalls: 0,
  ...extra,
});

/** A live answer, reserved, settled and recorded as the pipeline does it. */
async function live(teamId: string, item: Record<string, unknown> | null | 'fresh' = 'fresh') {
  const a = answer(teamId, 200, null, { credits: 1, live: true });
  const reserved = await reserve(teamId, a.requestId);
  const key = cacheKey(OP, { url: `https://kick.com/x/clips/${a.requestId}` });
  const entry = item === 'fresh' ? await cacheItem(key, OP, { title: a.requestId }, a.time) : item;
  await settleLive(reserved, answered({ ...a, teamId }), entry, logger);
  await recordAnswer(a, logger, { historyWritten: true });
  return { a, reserved, key, entry };
}

const cached = async (key: string) => (await db().send(new GetCommand({ TableName: config.cacheTable, Key: { pk: key }, ConsistentRead: true }))).Item;
const history = (teamId: string) => requestHistory(teamId, { limit: 100 });

beforeAll(async () => {
  await ensureTables();
});

test('a live answer: the ledger record (at its reservation time), the usage count, the history item and the cache entry', async () => {
  const { teamId } = await createTeam('acct-live', 10, { usageKey: 'u-acct-live' });
  const { a, key } = await live(teamId);
  expect(await ledger(teamId)).toEqual([{ teamId, requestId: a.requestId, operation: OP, credits: 1, time: new Date(a.time).toISOString() }]);
  expect(await balance(teamId)).toBe(9);
  expect((await usage(teamId, 1)).days[0]!.operations).toEqual({ [OP]: { live: 1, hits: 0, errors: {}, credits: 1 } });
  expect(await cached(key)).toMatchObject({ pk: key, op: OP });
  expect((await history(teamId)).requests).toEqual([
    { time: new Date(a.time).toISOString(), operation: OP, keyId: 'k1', status: 200, code: null, credits: 1, cached: false, ms: 12, requestId: a.requestId },
  ]);
});

test('settling the same request again (a retry of a write that landed) changes nothing', async () => {
  const { teamId } = await createTeam('acct-twice', 10, { usageKey: 'u-acct-twice' });
  const { a, reserved, entry } = await live(teamId);
  await settleLive(reserved, answered({ ...a, teamId }), entry, logger);
  await settleLive(reserved, answered({ ...a, teamId }), null, logger);
  expect(await ledger(teamId)).toHaveLength(1);
  expect((await history(teamId)).requests).toHaveLength(1);
});

test('a cache entry the database refuses costs neither the charge nor its record', async () => {
  const { teamId } = await createTeam('acct-refused', 10, { usageKey: 'u-acct-refused' });
  // An empty key attribute: DynamoDB refuses the whole request that carries it.
  await live(teamId, { pk: '', op: OP, fetchedAt: Date.now() });
  expect(await ledger(teamId)).toHaveLength(1);
  expect((await usage(teamId, 1)).totals).toMatchObject({ live: 1, credits: 1 });
});

test('many answers of one team at once: each counted once, in one usage item for the day', async () => {
  const { teamId } = await createTeam('acct-many', 100, { usageKey: 'u-acct-many' });
  await Promise.all([
    ...Array.from({ length: 20 }, () => live(teamId)),
    ...Array.from({ length: 20 }, () => recordAnswer(answer(teamId, 200, null, { cached: true }), logger)),
    ...Array.from({ length: 10 }, () => recordAnswer(answer(teamId, 404, 'NOT_FOUND'), logger)),
  ]);
  expect((await usage(teamId, 1)).totals).toMatchObject({ live: 20, hits: 20, errorCount: 10, credits: 20, requests: 50 });
  expect((await history(teamId)).requests).toHaveLength(50);
  const usageItems = await db().send(
    new QueryCommand({ TableName: config.accountsTable, KeyConditionExpression: 'pk = :p AND begins_with(sk, :u)', ExpressionAttributeValues: { ':p': `TEAM#${teamId}`, ':u': 'USAGE#' } }),
  );
  expect(usageItems.Items).toHaveLength(1);
});

test('a free answer: usage, history and outcome count, three plain writes, no ledger record, no balance change', async () => {
  const { teamId } = await createTeam('acct-free', 4, { usageKey: 'u-acct-free' });
  const { calls } = await dbSends(() => recordAnswer(answer(teamId, 200, null, { cached: true }), logger));
  expect(calls.map((c) => [c.name, c.input.TableName]).sort()).toEqual([
    ['UpdateCommand', config.accountsTable],
    ['UpdateCommand', config.accountsTable],
    ['UpdateCommand', config.cacheTable],
  ]);
  expect(await ledger(teamId)).toEqual([]);
  expect(await balance(teamId)).toBe(4);
  expect((await history(teamId)).requests).toEqual([expect.objectContaining({ status: 200, cached: true, credits: 0 })]);
});

test('an answer without a team (no key) is counted in its operation only', async () => {
  const { calls } = await dbSends(() => recordAnswer({ ...answer('x', 401, 'UNAUTHORIZED'), teamId: undefined }, logger));
  expect(calls.map((c) => c.input.TableName)).toEqual([config.cacheTable]);
});

test('a record never fails the answer: a write the database refuses is logged, the others land', async () => {
  const { teamId } = await createTeam('acct-refuse', 4, { usageKey: 'u-acct-refuse' });
  const mine = answer(teamId, 404, 'NOT_FOUND');
  const { pk, sk } = historyItem(answered({ ...mine, teamId }));
  // Another request's item under this key: the history write's condition refuses it.
  await db().send(new PutCommand({ TableName: config.accountsTable, Item: { pk, sk, requestId: 'another-request', note: "not this request's" } }));
  const warnings: unknown[] = [];
  const log = { ...logger, warn: (...args: unknown[]) => warnings.push(args) } as unknown as typeof logger;
  await expect(recordAnswer(mine, log)).resolves.toBeUndefined();
  expect(warnings).toHaveLength(1);
  expect(JSON.stringify(warnings)).toContain('history');
  expect((await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk, sk }, ConsistentRead: true }))).Item).toMatchObject({ requestId: 'another-request' });
  expect((await usage(teamId, 1)).totals).toMatchObject({ errorCount: 1 });
});

describe('the accounting writes the accounts table by UpdateItem only (18.7)', () => {
  /** Every accounts-table write the calls in `run` send: the command's name, or the transaction action's. */
  async function accountWrites(run: () => Promise<unknown>): Promise<string[]> {
    const seen: string[] = [];
    for (const { name, input } of (await dbSends(run)).calls) {
      if (name === 'TransactWriteCommand') {
        for (const action of input.TransactItems as Record<string, { TableName: string }>[]) {
          for (const [kind, body] of Object.entries(action)) if (body.TableName === config.accountsTable) seen.push(kind);
        }
      } else if (input.TableName === config.accountsTable && !/^(Get|Query|BatchGet)/.test(name)) {
        seen.push(name);
      }
    }
    return seen;
  }

  test('reserve, settle, record (live, hit, error), refund: no Put, no Delete', async () => {
    const { teamId } = await createTeam('acct-no-put', 10, { usageKey: 'u-acct-no-put' });
    const writes = await accountWrites(async () => {
      await live(teamId);
      await recordAnswer(answer(teamId, 200, null, { cached: true }), logger);
      const failed = answer(teamId, 503, 'UPSTREAM_BLOCKED');
      await reserve(teamId, failed.requestId);
      await refund(teamId, failed.requestId);
      await recordAnswer(failed, logger);
      await refund(teamId, 'never-reserved');
    });
    expect(writes.length).toBeGreaterThan(8);
    expect(new Set(writes)).toEqual(new Set(['UpdateCommand', 'Update']));
    expect(await ledger(teamId)).toHaveLength(1);
    expect(await balance(teamId)).toBe(9);
    expect((await history(teamId)).requests.map((r) => r.status).sort()).toEqual([200, 200, 503]);
  });

  test("a free answer's history item has no credits attribute (read as 0)", async () => {
    const { teamId } = await createTeam('acct-free-credits', 4, { usageKey: 'u-acct-free-credits' });
    const failed = answer(teamId, 503, 'PLATFORM_UNAVAILABLE');
    await recordAnswer(failed, logger);
    const expected = historyItem(answered({ ...failed, teamId }));
    const stored = (await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: expected.pk, sk: expected.sk }, ConsistentRead: true }))).Item;
    expect(stored).toEqual(expected);
    expect(stored).not.toHaveProperty('credits');
    expect((await history(teamId)).requests).toEqual([expect.objectContaining({ status: 503, credits: 0 })]);
  });
});
