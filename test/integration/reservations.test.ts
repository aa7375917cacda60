import { ensureTables } from '../../dev/tables';
import { balance, createTeam } from '../../shared/accounting/teams';
import { refund, reservationSettled, reserve } from '../../shared/accounting/reservation';
import { settleLive } from '../../shared/accounting/ledger';
import { dynamoCallCount } from '../../shared/db/client';
import { cachedCreditWatch } from '../../shared/webhooks/credits';
import { logger } from '../../shared/runtime/log';

/**
 * A reservation is idempotent per request id, whatever else the team does meanwhile (issue 18.11):
 * sending reservation A again, after its first attempt was applied but its answer lost, never takes
 * a second credit, even when reservations of other requests of the same team came in between. A
 * refund is exactly-once in the same way. Each is still one DynamoDB call.
 */
beforeAll(async () => {
  await ensureTables();
});

const team = async (credits: number) => (await createTeam('resv', credits, { usageKey: `u-resv-${Math.random()}` })).teamId;

test('A applied (answer lost), then B, then A sent again: one credit for A', async () => {
  const teamId = await team(10);
  expect((await reserve(teamId, 'req-A')).remaining).toBe(9); // applied; the caller never saw this answer
  expect((await reserve(teamId, 'req-B')).remaining).toBe(8);
  // A is sent again: it took its credit already; the balance it reports is today's.
  expect((await reserve(teamId, 'req-A')).remaining).toBe(8);
  expect(await balance(teamId)).toBe(8);
});

test('many requests interleaved, each retried several times in any order: one credit per request', async () => {
  const teamId = await team(50);
  const ids = Array.from({ length: 12 }, (_, i) => `req-${i}`);
  for (const id of ids) await reserve(teamId, id);
  // Every one sent again, concurrently and out of order, three times.
  await Promise.all([...ids, ...ids.slice().reverse(), ...ids].map((id) => reserve(teamId, id)));
  expect(await balance(teamId)).toBe(50 - ids.length);
});

test('a retried reservation at balance 0 is the one that took the last credit: not a 402', async () => {
  const teamId = await team(1);
  expect((await reserve(teamId, 'last-A')).remaining).toBe(0);
  await expect(reserve(teamId, 'last-B')).rejects.toMatchObject({ code: 'INSUFFICIENT_CREDITS' });
  expect((await reserve(teamId, 'last-A')).remaining).toBe(0);
  expect(await balance(teamId)).toBe(0);
});

test('refunds are exactly-once per request, also with other requests in between', async () => {
  const teamId = await team(10);
  await reserve(teamId, 'r-A');
  await reserve(teamId, 'r-B');
  expect(await refund(teamId, 'r-A')).toBe(true);
  await reserve(teamId, 'r-C');
  // A's refund sent again (its answer was lost): no second credit.
  expect(await refund(teamId, 'r-A')).toBe(true);
  expect(await balance(teamId)).toBe(8);
  // B's refund is its own.
  expect(await refund(teamId, 'r-B')).toBe(true);
  expect(await balance(teamId)).toBe(9);
});

test('a request refunded and then its reservation retried: still the one credit, given back once', async () => {
  const teamId = await team(5);
  await reserve(teamId, 'x-A');
  await reserve(teamId, 'x-B');
  await refund(teamId, 'x-B');
  expect((await reserve(teamId, 'x-A')).remaining).toBe(4);
  expect(await balance(teamId)).toBe(4);
});

test('old marks: a charged request\'s is removed, an uncharged one\'s credit given back', async () => {
  const { UpdateCommand, GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const { db } = await import('../../shared/db/client');
  const { config } = await import('../../shared/runtime/config');
  const teamId = await team(10);
  const Key = { pk: `TEAM#${teamId}`, sk: 'TEAM' };
  const hourAgo = Date.now() - 3600_000;
  // An hour ago: a request that was charged (its ledger record under its reservation time), one
  // whose function died before its settle (its credit taken, no ledger record). Both reservations
  // took their credit then: the balance is 8.
  const charged = await reserve(teamId, 'old-charged');
  await settleLive({ ...charged, at: hourAgo }, { teamId, operation: 'livestream-clip', requestId: 'old-charged', status: 200, code: null, credits: 1, cached: false, ms: 1, time: hourAgo }, null, logger);
  await reserve(teamId, 'old-lost');
  await db().send(
    new UpdateCommand({
      TableName: config.accountsTable,
      Key,
      UpdateExpression: 'SET #c = :t, #l = :t',
      ExpressionAttributeNames: { '#c': 'HOLD#old-charged', '#l': 'HOLD#old-lost' },
      ExpressionAttributeValues: { ':t': hourAgo },
    }),
  );
  await reserve(teamId, 'sees-them'); // sees them: the lost credit back, the others to remove
  await reserve(teamId, 'removes-them');
  const item = (await db().send(new GetCommand({ TableName: config.accountsTable, Key, ConsistentRead: true }))).Item!;
  expect(Object.keys(item).filter((k) => k.startsWith('HOLD#') || k.startsWith('RESV#')).sort()).toEqual(['HOLD#removes-them', 'HOLD#sees-them']);
  // 10 - 2 (the old ones) + 1 (the lost one given back) - 2 (the new ones).
  expect(item.credits).toBe(7);
});

test('a refund without a reservation changes nothing', async () => {
  const teamId = await team(3);
  expect(await refund(teamId, 'nobody')).toBe(true);
  expect(await balance(teamId)).toBe(3);
});

test('one DynamoDB call per reservation and per refund, settled requests leave no marks behind for long', async () => {
  const teamId = await team(20);
  // The team's credits watch (shared/webhooks/credits.ts) is read beside a container's first
  // reservation for the team, then kept a minute: read here, so what is counted is the reservation.
  await cachedCreditWatch(teamId);
  let before = dynamoCallCount();
  await reserve(teamId, 'calls-A');
  expect(dynamoCallCount() - before).toBe(1);
  before = dynamoCallCount();
  await refund(teamId, 'calls-A');
  expect(dynamoCallCount() - before).toBe(1);

  // Settled requests: their marks are removed by the team's next reservation from this container.
  for (let i = 0; i < 5; i++) {
    const r = await reserve(teamId, `settled-${i}`);
    await settleLive(r, { teamId, operation: 'livestream-clip', requestId: r.requestId, status: 200, code: null, credits: 1, cached: false, ms: 1, time: r.at }, null, logger);
    reservationSettled(r);
  }
  await reserve(teamId, 'after');
  const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const { db } = await import('../../shared/db/client');
  const { config } = await import('../../shared/runtime/config');
  const item = (await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: `TEAM#${teamId}`, sk: 'TEAM' }, ConsistentRead: true }))).Item!;
  expect(Object.keys(item).filter((k) => k.startsWith('HOLD#'))).toEqual(['HOLD#after']);
});

test('through the SDK: A applied, its answer lost, B reserved meanwhile, then the SDK sends A again: one credit each', async () => {
  const { rawDb } = await import('../../shared/db/client');
  const teamId = await team(10);
  let lostOnce = false;
  const name = 'loseReservationAnswerOnce';
  rawDb().middlewareStack.addRelativeTo(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the finalize step's arguments are loosely typed
    (next: any, context: any) => async (args: any) => {
      const input = args.input as { ExpressionAttributeNames?: Record<string, string> };
      if (context.commandName !== 'UpdateItemCommand' || lostOnce || input.ExpressionAttributeNames?.['#mark'] !== 'HOLD#sdk-A') return next(args);
      lostOnce = true;
      await next(args); // applied by DynamoDB
      await reserve(teamId, 'sdk-B'); // another request of the team comes in between
      throw Object.assign(new Error('socket hang up after the request was sent'), { name: 'TimeoutError', code: 'ECONNRESET' });
    },
    { relation: 'after', toMiddleware: 'retryMiddleware', name, override: true },
  );
  try {
    expect((await reserve(teamId, 'sdk-A')).remaining).toBe(8);
  } finally {
    rawDb().middlewareStack.remove(name);
  }
  expect(lostOnce).toBe(true);
  expect(await balance(teamId)).toBe(8);
});
