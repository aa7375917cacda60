import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTables } from '../../dev/tables';
import { cacheItem, cacheKey } from '../../shared/cache';
import { config } from '../../shared/config';
import { balance, createTeam, ledger, settleHit, settleLive } from '../../shared/credits';
import { db } from '../../shared/db/client';
import { logger } from '../../shared/log';
import { usage } from '../../shared/usage';

/**
 * The write side of a request (shared/credits.ts): a live answer's ledger record, usage count and
 * cache entry are written together; a cache hit's count goes with its balance read.
 */
const OP = 'livestream-clip';
let n = 0;

async function live(teamId: string, item: Record<string, unknown> | null | 'fresh' = 'fresh') {
  const requestId = `settle-${++n}`;
  const fetchedAt = Date.now();
  const key = cacheKey(OP, { url: `https://kick.com/x/clips/${requestId}` });
  const entry = item === 'fresh' ? cacheItem(key, OP, { title: requestId }, fetchedAt) : item;
  const charge = { teamId, requestId, operation: OP, time: new Date(fetchedAt).toISOString() };
  await settleLive(charge, entry, logger);
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
  expect((await usage(teamId, 1)).days[0]!.operations).toEqual({ [OP]: { live: 1, hits: 0, credits: 1 } });
  expect(await cached(key)).toMatchObject({ pk: key, op: OP });
});

test('settling the same request again (a retry of a write that landed) changes nothing', async () => {
  const { teamId } = await createTeam('settle-twice', 10, { usageKey: 'u-settle-twice' });
  const { charge, entry } = await live(teamId);
  await settleLive(charge, entry, logger);
  await settleLive(charge, null, logger);
  expect(await ledger(teamId)).toHaveLength(1);
  expect((await usage(teamId, 1)).totals).toMatchObject({ live: 1, credits: 1 });
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

test('a cache hit: the balance to show, and the hit counted (no ledger record)', async () => {
  const { teamId } = await createTeam('settle-hit', 7, { usageKey: 'u-settle-hit' });
  expect(await settleHit(teamId, OP, logger)).toBe(7);
  expect(await settleHit(teamId, OP, logger)).toBe(7);
  expect((await usage(teamId, 1)).days[0]!.operations).toEqual({ [OP]: { live: 0, hits: 2, credits: 0 } });
  expect(await ledger(teamId)).toEqual([]);
  expect(await balance(teamId)).toBe(7);
});
