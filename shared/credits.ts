import { createHash, randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from './config';
import { db, isConditionalFailure, teamRange } from './db/client';
import { LEDGER_PREFIX, TEAM_SK, teamPk } from './db/tables';
import { ApiError, atCapacity } from './errors';
import type { Log } from './log';
import { type Answered, historyItem } from './history';
import { freeAnswerUpdate, liveUsageUpdate } from './usage';

/**
 * Teams, their prepaid credits, the ledger, and the write side of every answered request.
 *
 * A live request reserves 1 credit with one conditional update before it scrapes (so N concurrent
 * requests against a balance of K give exactly min(N, K) successes and the balance never goes
 * negative), is settled when it succeeds (`settleLive`: ledger record, daily usage count, history
 * item and cache entry in one transaction), and gives the credit back on any error (`settleError`:
 * the refund, with the error's usage count and history item). A cache hit is settled by `settleHit`
 * (the balance to show, with the hit's usage count and history item). Every answer of an operation
 * with a known team is counted and recorded here, with the writes it makes anyway; nothing else
 * writes these.
 */
export const COST = 1;

export interface Team {
  teamId: string;
  name: string;
  credits: number;
  createdAt: string;
  usageKey: string;
  usageKeyId?: string;
}

export interface LedgerEntry {
  teamId: string;
  requestId: string;
  operation: string;
  /** Credits consumed by this request. */
  credits: number;
  time: string;
}

const ledgerSk = (time: string, requestId: string) => `${LEDGER_PREFIX}${time}#${requestId}`;

/** Credit grants are kept apart from the ledger of charges, so the ledger sums to what was consumed. */
const grantItem = (teamId: string, credits: number, time: string) => ({
  pk: teamPk(teamId),
  sk: `GRANT#${time}#${randomUUID()}`,
  teamId,
  credits,
  time,
});

export async function createTeam(name: string, credits: number, usage: { usageKey: string; usageKeyId?: string }): Promise<Team> {
  const team: Team = { teamId: randomUUID(), name, credits, createdAt: new Date().toISOString(), ...usage };
  const grant = grantItem(team.teamId, credits, team.createdAt);
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: config.accountsTable, Item: { pk: teamPk(team.teamId), sk: TEAM_SK, ...team }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ...(credits > 0 ? [{ Put: { TableName: config.accountsTable, Item: grant } }] : []),
      ],
    }),
  );
  return team;
}

export async function getTeam(teamId: string): Promise<Team | null> {
  const res = await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: teamPk(teamId), sk: TEAM_SK } }));
  return (res.Item as Team | undefined) ?? null;
}

export async function balance(teamId: string): Promise<number> {
  const team = await getTeam(teamId);
  return team ? team.credits : 0;
}

interface RetryOptions {
  attempts?: number;
  baseDelayMs?: number;
  /** No new attempt starts after this long (the SDK already retries each one with its own timeouts). */
  budgetMs?: number;
}

/** `again(n)`: whether attempt n may run, after its backoff (attempt 0 always runs). */
function retryPolicy({ attempts = 3, baseDelayMs = 50, budgetMs = Infinity }: RetryOptions) {
  const started = Date.now();
  return async (attempt: number): Promise<boolean> => {
    if (attempt === 0) return true;
    if (attempt >= attempts || Date.now() - started > budgetMs) return false;
    // Jittered, so that attempts which met (a transaction conflict, a throttled partition) part.
    await new Promise((r) => setTimeout(r, baseDelayMs * 3 ** (attempt - 1) * (0.5 + Math.random() / 2)));
    return true;
  };
}

/**
 * Takes 1 credit for request `requestId` or throws 402. Returns the balance after the reservation.
 *
 * Safe to send again: the update records the request id on the team item and refuses to run twice
 * for the same id, so an attempt whose answer was lost (a timeout after DynamoDB applied it) and is
 * sent again (by the SDK or here) takes one credit, not two; the refusal carries the item, which
 * shows the earlier attempt took it. Retried here with backoff past the SDK's spent retry quota:
 * a reservation whose outcome stayed unknown would be a credit lost.
 */
export async function reserve(teamId: string, requestId: string = randomUUID(), opts: RetryOptions = {}): Promise<number> {
  const again = retryPolicy({ attempts: 3, baseDelayMs: 50, budgetMs: 2 * config.dynamoTimeoutMs, ...opts });
  let last: unknown;
  for (let attempt = 0; await again(attempt); attempt++) {
    try {
      const res = await db().send(
        new UpdateCommand({
          TableName: config.accountsTable,
          Key: { pk: teamPk(teamId), sk: TEAM_SK },
          UpdateExpression: 'SET credits = credits - :cost, lastReservation = :rid',
          ConditionExpression: 'attribute_exists(pk) AND credits >= :cost AND (attribute_not_exists(lastReservation) OR lastReservation <> :rid)',
          ExpressionAttributeValues: { ':cost': COST, ':rid': requestId },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return Number(res.Attributes?.credits ?? 0);
    } catch (err) {
      if (isConditionalFailure(err)) {
        const old = refusedItem(err);
        // An earlier attempt of this very reservation took the credit; its answer was lost.
        if (old?.lastReservation === requestId) return Number(old.credits ?? 0);
        throw new ApiError('INSUFFICIENT_CREDITS', 'The balance is lower than the cost of a live request (1 credit); cached results remain free with cache_max_age');
      }
      last = err;
    }
  }
  throw atCapacity(`reserve failed: ${(last as Error)?.name}`);
}

/** The two attributes reserve reads from the item a refused conditional update returned (ALL_OLD). */
function refusedItem(err: unknown): { lastReservation?: unknown; credits?: unknown } | undefined {
  const item = (err as { Item?: Record<string, unknown> }).Item;
  if (!item) return undefined;
  // The document client does not unmarshall error payloads: values may still be {S: …} / {N: …}.
  const plain = (x: unknown) => (x !== null && typeof x === 'object' ? ((x as { S?: string; N?: string }).S ?? (x as { N?: string }).N) : x);
  return { lastReservation: plain(item.lastReservation), credits: plain(item.credits) };
}

/**
 * Gives a reserved credit back. Never throws: the caller is already on an error path.
 *
 * Idempotent and persistent: one transaction whose ClientRequestToken is derived from the request
 * id, so an attempt whose answer was lost and is sent again adds the credit once (DynamoDB keeps
 * the token 10 minutes), and it is retried here with backoff even when the SDK's own retry quota
 * is spent (as it is during a DynamoDB brown-out, exactly when refunds are needed).
 */
export async function refund(teamId: string, requestId: string, opts: RetryOptions = {}): Promise<boolean> {
  const again = retryPolicy({ attempts: 4, baseDelayMs: 100, budgetMs: 3 * config.dynamoTimeoutMs, ...opts });
  const token = createHash('sha256').update(`refund#${teamId}#${requestId}`).digest('hex').slice(0, 36);
  for (let attempt = 0; await again(attempt); attempt++) {
    try {
      await db().send(
        new TransactWriteCommand({
          ClientRequestToken: token,
          TransactItems: [
            {
              Update: {
                TableName: config.accountsTable,
                Key: { pk: teamPk(teamId), sk: TEAM_SK },
                UpdateExpression: 'SET credits = credits + :cost',
                ConditionExpression: 'attribute_exists(pk)',
                ExpressionAttributeValues: { ':cost': COST },
              },
            },
          ],
        }),
      );
      return true;
    } catch (err) {
      // The team is gone: nothing to give back to, and trying again will not change that.
      const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
      if (reasons?.some((r) => r.Code === 'ConditionalCheckFailed')) return false;
    }
  }
  return false;
}

function ledgerItem(e: LedgerEntry) {
  return { pk: teamPk(e.teamId), sk: ledgerSk(e.time, e.requestId), ...e };
}

/** Adds credits and records the grant in the ledger, atomically. */
export async function addCredits(teamId: string, credits: number): Promise<number> {
  const time = new Date().toISOString();
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: config.accountsTable,
            Key: { pk: teamPk(teamId), sk: TEAM_SK },
            UpdateExpression: 'SET credits = credits + :n',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':n': credits },
          },
        },
        { Put: { TableName: config.accountsTable, Item: grantItem(teamId, credits, time) } },
      ],
    }),
  );
  return balance(teamId);
}

export async function ledger(teamId: string, since?: string): Promise<LedgerEntry[]> {
  const items = await teamRange(teamId, `${LEDGER_PREFIX}${since ?? ''}`, `${LEDGER_PREFIX}\uffff`);
  return items.map((i) => ({ teamId: i.teamId, requestId: i.requestId, operation: i.operation, credits: i.credits, time: i.time }));
}

/**
 * The usage count and the history item of a free answer (a cache hit or an error), sent together
 * (one round trip). Never throws: counting must not fail a request.
 */
async function recordFreeAnswer(a: Answered, log: Log): Promise<void> {
  const writes = await Promise.allSettled([
    (async () => db().send(new UpdateCommand(freeAnswerUpdate(a.teamId, a.operation, a.code, a.time))))(),
    (async () => db().send(new PutCommand({ TableName: config.accountsTable, Item: historyItem(a) })))(),
  ]);
  const failed = writes.filter((w): w is PromiseRejectedResult => w.status === 'rejected');
  if (failed.length) log.warn('usage or history not recorded', { errors: failed.map((f) => (f.reason as Error)?.name) });
}

/**
 * A cache hit: it costs nothing and has no ledger record; the balance to show, the day's hit count
 * and the history item, sent together (one round trip). Throws only when the balance cannot be read.
 */
export async function settleHit(answer: Answered, log: Log): Promise<number> {
  const [remaining] = await Promise.all([balance(answer.teamId), recordFreeAnswer(answer, log)]);
  return remaining;
}

/**
 * An error answer of a known team: the reserved credit given back (when one was reserved), with the
 * error's usage count and history item sent at the same time. Never throws.
 */
export async function settleError(answer: Answered, reserved: boolean, log: Log): Promise<void> {
  const [given] = await Promise.all([reserved ? refund(answer.teamId, answer.requestId) : true, recordFreeAnswer(answer, log)]);
  if (!given) log.error('refund failed: a reserved credit was not given back');
}

/**
 * After a charged live scrape: one TransactWriteItems writes the ledger record, the day's usage
 * count, the request's history item (`request`: the key and the time it took) and the cache entry,
 * so the usage count and the history exist exactly when the charge does, and the cache
 * holds only results that were charged. The ledger record is conditional on its absence, which
 * makes every retry safe: a retry of a write that landed is refused on the ledger record and
 * changes nothing. A cache entry the database refuses (size, say) must not cost the charge: the
 * write is tried again without it. A ledger record that cannot be written fails the request, whose
 * credit the caller then gives back. `cacheItem` null: served uncached.
 */
export async function settleLive(charge: Omit<LedgerEntry, 'credits'>, cacheItem: Record<string, unknown> | null, log: Log, request: Pick<Answered, 'keyId' | 'ms'>): Promise<void> {
  try {
    await writeSettlement(charge, cacheItem, log, request);
  } catch (err) {
    // A write whose answer was lost (a timeout, a reset) may have landed: if the ledger record is
    // there, the charge is real and the request delivered; giving the credit back would create one.
    const recorded = await ledgerRecorded(charge).catch(() => false);
    if (!recorded) throw err;
    log.warn('ledger write reported a failure but the record exists; charged', { error: (err as Error).message });
  }
}

async function ledgerRecorded(charge: Omit<LedgerEntry, 'credits'>): Promise<boolean> {
  const res = await db().send(
    new GetCommand({ TableName: config.accountsTable, Key: { pk: teamPk(charge.teamId), sk: ledgerSk(charge.time, charge.requestId) }, ConsistentRead: true }),
  );
  return res.Item !== undefined;
}

type Cancellation = 'ledger recorded' | 'conflict' | null;

/** Why DynamoDB cancelled the settle transaction, when it did (the ledger record is its first action). */
function cancellation(err: unknown): Cancellation {
  if ((err as { name?: string }).name !== 'TransactionCanceledException') return null;
  const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  if (reasons[0]?.Code === 'ConditionalCheckFailed') return 'ledger recorded';
  if (reasons.some((r) => r.Code === 'TransactionConflict')) return 'conflict';
  return null;
}

async function writeSettlement(charge: Omit<LedgerEntry, 'credits'>, cacheItem: Record<string, unknown> | null, log: Log, request: Pick<Answered, 'keyId' | 'ms'>): Promise<void> {
  const time = Date.parse(charge.time);
  const answered: Answered = { ...charge, ...request, time, status: 200, code: null, credits: COST, cached: false };
  const charged: NonNullable<TransactWriteCommandInput['TransactItems']> = [
    { Put: { TableName: config.accountsTable, Item: ledgerItem({ ...charge, credits: COST }), ConditionExpression: 'attribute_not_exists(pk)' } },
    { Update: liveUsageUpdate(charge.teamId, charge.operation, COST, charge.requestId, time) },
    { Put: { TableName: config.accountsTable, Item: historyItem(answered) } },
  ];
  let withCache = cacheItem !== null;
  // Bounded in count and in time: each attempt is already retried by the SDK with its own timeouts.
  const again = retryPolicy({ attempts: 3, baseDelayMs: 50, budgetMs: 2 * config.dynamoTimeoutMs });
  let last: unknown;
  for (let attempt = 0; await again(attempt); attempt++) {
    const items = withCache ? [...charged, { Put: { TableName: config.cacheTable, Item: cacheItem! } }] : charged;
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items }));
      return;
    } catch (err) {
      last = err;
      const why = cancellation(err);
      // An earlier attempt of this very write landed (its answer was lost): ledger, count and cache are there.
      if (why === 'ledger recorded') return;
      if (why === 'conflict') continue;
      if (withCache) {
        log.warn('ledger+cache write failed; writing the charge alone', { error: (err as Error).name });
        withCache = false;
      }
    }
  }
  throw atCapacity(`ledger write failed: ${(last as Error)?.name}`);
}

/** The newest charges first, at most `limit`. */
export async function recentCharges(teamId: string, limit: number): Promise<LedgerEntry[]> {
  const res = await db().send(
    new QueryCommand({
      TableName: config.accountsTable,
      KeyConditionExpression: 'pk = :p AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':p': teamPk(teamId), ':from': LEDGER_PREFIX, ':to': `${LEDGER_PREFIX}\uffff` },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (res.Items ?? []).map((i) => ({ teamId: i.teamId, requestId: i.requestId, operation: i.operation, credits: i.credits, time: i.time }));
}
