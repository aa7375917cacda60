import { createHash, randomUUID } from 'node:crypto';
import { GetCommand, QueryCommand, TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { RATE_LIMIT, config } from '../runtime/config';
import { db, isConditionalFailure, itemUpdate, teamRange } from '../db/client';
import { LEDGER_PREFIX, RESERVATION_MARK_PREFIX, TEAM_SK, teamPk } from '../db/tables';
import { ApiError, atCapacity } from '../http/errors';
import type { Log } from '../runtime/log';
import { type Answered, historyUpdate } from './request-history';
import { type Outcome } from './outcome-counts';
import { countOutcome } from './outcome-writes';
import { freeAnswerUpdate, liveUsageUpdate } from './usage';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/**
 * Teams, their prepaid credits, the ledger, and the write side of every answered request.
 *
 * A live request reserves 1 credit with one conditional update before it scrapes (so N concurrent
 * requests against a balance of K give exactly min(N, K) successes and the balance never goes
 * negative), is settled when it succeeds (`settleLive`: ledger record, daily usage count, history
 * item and cache entry in one transaction), and gives the credit back on any error (`settleError`:
 * the refund, with the error's usage count and history item). A cache hit is recorded by `recordHit`
 * (the hit's usage count and history item, sent beside the cache read, conditional on a fresh
 * entry; `unrecordHit` takes it back for an entry that proves unreadable). A 422 of a key the
 * authorizer knows is recorded by the authorizer, beside its key read (`recordAhead`). Every answer
 * of an operation with a known team is counted and recorded here, with the writes it makes anyway;
 * nothing else writes these. Every write a request makes on the accounts table is an UpdateItem
 * (the ledger record and the history item too, written whole by `itemUpdate`): the functions that
 * run requests parse hostile pages and have no PutItem there (infra/stack.ts), so they cannot
 * replace an item.
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
  if (!res.Item) return null;
  // The item also carries the marks of reservations in flight: not part of the team.
  const { teamId: id, name, credits, createdAt, usageKey, usageKeyId } = res.Item as Team;
  return { teamId: id, name, credits, createdAt, usageKey, ...(usageKeyId !== undefined ? { usageKeyId } : {}) };
}

export async function balance(teamId: string): Promise<number> {
  const team = await getTeam(teamId);
  return team ? team.credits : 0;
}

/**
 * A live request's scrape goes out together with its reservation (the upstream round trip does not
 * wait for DynamoDB) only when the team's balance, read by the authorizer for this request, is at
 * least this: more than the team can spend meanwhile, because its rate limit lets at most
 * `RATE_LIMIT.requests` start at once and fewer than as many more during the longest request. Below
 * it, and when the authorizer had no balance to give (the first request of a key in an authorizer
 * container), the scrape waits for the reservation: a team without credit never drives an upstream
 * request. A funded team's request costs no round trip more either way but the reservation's.
 */
export const SCRAPE_AHEAD_MIN_CREDITS = 2 * RATE_LIMIT.requests;

export const scrapesAhead = (balanceHint: number | undefined): boolean => balanceHint !== undefined && balanceHint >= SCRAPE_AHEAD_MIN_CREDITS;

/** The team's balance for the authorizer (an eventually consistent read of one attribute), or undefined when it cannot be read. */
export async function balanceHint(teamId: string): Promise<number | undefined> {
  try {
    const res = await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: teamPk(teamId), sk: TEAM_SK }, ProjectionExpression: 'credits' }));
    return creditsHintOf(res.Item);
  } catch {
    return undefined; // a hint: never the reason a request fails
  }
}

/**
 * The balance hint a read team item gives (pure): its `credits` when it is a finite number,
 * undefined for no item or no usable balance. One reading for balanceHint and for the authorizer's
 * batched read of the key with its team (shared/auth/keys.ts, findKnownKey).
 */
export function creditsHintOf(item: Record<string, unknown> | undefined): number | undefined {
  const credits = Number(item?.credits);
  return item && Number.isFinite(credits) ? credits : undefined;
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
 * Reservations are idempotent per request id. The conditional update that takes the credit also sets
 * an attribute `RESV#<requestId>` (its time, epoch ms) on the team item and requires it absent, so a
 * reservation sent again after its first attempt was applied (its answer lost: a timeout, a reset)
 * is refused by DynamoDB and carries the item, which shows the credit was taken by this very request:
 * one credit, whatever other requests of the team did in between. A refund removes the mark in the
 * same update that gives the credit back and requires it present: exactly once, too.
 *
 * A mark is only needed while its request runs (the function times out after 28 s). The marks of
 * requests this container settled are removed by its next reservation for the team (no call of its
 * own); marks older than MARK_KEPT_MS, left by containers that went away, are removed by any
 * reservation that sees them. The team item holds about one mark per request in flight.
 */
const MARK_KEPT_MS = 10 * 60_000;
/** At most this many old marks are removed by one reservation (the expression stays small). */
const MAX_REMOVED_PER_UPDATE = 40;
/** Marks this container may remove, per team (bounded: a container serves few teams at once). */
const removable = new Map<string, Set<string>>();
const MAX_TEAMS_REMEMBERED = 5000;

const reservationMark = (requestId: string) => `${RESERVATION_MARK_PREFIX}${requestId}`;

function mayRemove(teamId: string, marks: Iterable<string>): void {
  let set = removable.get(teamId);
  if (!set) {
    if (removable.size >= MAX_TEAMS_REMEMBERED) removable.delete(removable.keys().next().value as string);
    set = new Set();
    removable.set(teamId, set);
  }
  for (const m of marks) set.add(m);
}

/** Up to MAX_REMOVED_PER_UPDATE marks to remove with the next update, taken out of the list. */
function takeRemovable(teamId: string, except: string): string[] {
  const set = removable.get(teamId);
  if (!set) return [];
  const taken: string[] = [];
  for (const m of set) {
    if (taken.length >= MAX_REMOVED_PER_UPDATE) break;
    set.delete(m);
    if (m !== except) taken.push(m);
  }
  if (set.size === 0) removable.delete(teamId);
  return taken;
}

/** The marks of a team item that no running request can need any more (and the pre-mark attribute). */
function oldMarks(item: Record<string, unknown>, now: number): string[] {
  return Object.entries(item)
    .filter(([name, at]) => name === 'lastReservation' || (name.startsWith(RESERVATION_MARK_PREFIX) && !(Number(at) > now - MARK_KEPT_MS)))
    .map(([name]) => name);
}

/**
 * Takes 1 credit for request `requestId` or throws 402. Returns the balance after the reservation.
 *
 * Safe to send again, by the SDK or here (see above: the request's mark). Retried here with backoff
 * past the SDK's spent retry quota: a reservation whose outcome stayed unknown would be a credit lost.
 */
export async function reserve(teamId: string, requestId: string = randomUUID(), opts: RetryOptions = {}): Promise<number> {
  const again = retryPolicy({ attempts: 3, baseDelayMs: 50, budgetMs: 2 * config.dynamoTimeoutMs, ...opts });
  const mark = reservationMark(requestId);
  let last: unknown;
  for (let attempt = 0; await again(attempt); attempt++) {
    const stale = takeRemovable(teamId, mark);
    const names: Record<string, string> = { '#mark': mark };
    stale.forEach((m, i) => (names[`#old${i}`] = m));
    const now = Date.now();
    try {
      const res = await db().send(
        new UpdateCommand({
          TableName: config.accountsTable,
          Key: { pk: teamPk(teamId), sk: TEAM_SK },
          UpdateExpression: `SET credits = credits - :cost, #mark = :now${stale.length ? ` REMOVE ${stale.map((_, i) => `#old${i}`).join(', ')}` : ''}`,
          ConditionExpression: 'attribute_exists(pk) AND credits >= :cost AND attribute_not_exists(#mark)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':cost': COST, ':now': now },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const item = res.Attributes ?? {};
      mayRemove(teamId, oldMarks(item, now));
      return Number(item.credits ?? 0);
    } catch (err) {
      mayRemove(teamId, stale); // not removed by this update: by the next one
      if (isConditionalFailure(err)) {
        const old = refusedItem(err);
        // An earlier attempt of this very reservation took the credit; its answer was lost.
        if (old && old[mark] !== undefined) return Number(old.credits ?? 0);
        throw new ApiError('INSUFFICIENT_CREDITS', 'The balance is lower than the cost of a live request (1 credit); cached results remain free with cache_max_age');
      }
      last = err;
    }
  }
  throw atCapacity(`reserve failed: ${(last as Error)?.name}`);
}

/** The item a refused conditional update returned (ALL_OLD), or undefined when there is none. */
function refusedItem(err: unknown): Record<string, unknown> | undefined {
  const item = (err as { Item?: Record<string, unknown> }).Item;
  if (!item) return undefined;
  // The document client does not unmarshall error payloads: values may still be {S: …} / {N: …}.
  const plain = (x: unknown) => (x !== null && typeof x === 'object' ? ((x as { S?: string; N?: string }).S ?? (x as { N?: string }).N) : x);
  return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, plain(v)]));
}

/** After a request's charge is recorded: its mark may go with the team's next reservation. */
function reservationSettled(teamId: string, requestId: string): void {
  mayRemove(teamId, [reservationMark(requestId)]);
}

/**
 * Gives request `requestId`'s reserved credit back. Never throws: the caller is already on an error path.
 *
 * Exactly once: one update adds the credit and removes the request's reservation mark, on condition
 * that the mark is there; an attempt whose answer was lost and is sent again is refused (the mark is
 * gone) and changes nothing. Retried here with backoff even when the SDK's own retry quota is spent
 * (as it is during a DynamoDB brown-out, exactly when refunds are needed). True when the credit is
 * back (by this call or an earlier attempt of it), false when it could not be given back.
 */
export async function refund(teamId: string, requestId: string, opts: RetryOptions = {}): Promise<boolean> {
  const again = retryPolicy({ attempts: 4, baseDelayMs: 100, budgetMs: 3 * config.dynamoTimeoutMs, ...opts });
  for (let attempt = 0; await again(attempt); attempt++) {
    try {
      await db().send(
        new UpdateCommand({
          TableName: config.accountsTable,
          Key: { pk: teamPk(teamId), sk: TEAM_SK },
          UpdateExpression: 'SET credits = credits + :cost REMOVE #mark',
          ConditionExpression: 'attribute_exists(#mark)',
          ExpressionAttributeNames: { '#mark': reservationMark(requestId) },
          ExpressionAttributeValues: { ':cost': COST },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return true;
    } catch (err) {
      // No mark: an earlier attempt gave the credit back (its answer was lost), or the team is gone.
      if (isConditionalFailure(err)) return refusedItem(err) !== undefined;
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
 * The usage count and the history item of a free answer (a cache hit or an error): the two
 * UpdateItem inputs every writer of one sends (recordFreeAnswer, recordHit, recordAhead). `first`:
 * the request's first write of its history item (recordAhead: see historyUpdate).
 */
export function freeAnswerWrites(a: Answered, history: { first?: boolean } = {}) {
  return [freeAnswerUpdate(a.teamId, a.operation, a.code, a.time, a.requestId), historyUpdate(a, history)] as const;
}

/**
 * The usage count and the history item of a free answer (a cache hit or an error), sent together
 * (one round trip). Never throws: counting must not fail a request.
 */
export async function recordFreeAnswer(a: Answered, log: Log): Promise<void> {
  const writes = await Promise.allSettled(freeAnswerWrites(a).map(async (input) => db().send(new UpdateCommand(input))));
  const failed = writes.filter((w): w is PromiseRejectedResult => w.status === 'rejected');
  if (failed.length) log.warn('usage or history not recorded', { errors: failed.map((f) => (f.reason as Error)?.name) });
}

/**
 * An error answer recorded ahead of the function that will give it, by the REQUEST authorizer
 * (shared/auth/authorizer.ts: a 422 of a query that fails the operation's validation), in the round
 * trip of its key read: one TransactWriteItems whose first action is `keyCheck` (the key item
 * exists, is the team's and is not revoked), then the answer's usage count and history item; and,
 * beside it, the answer's outcome counters as plain updates (shared/accounting/outcome-counts.ts). The
 * counters are shared by every team's answers of the operation in that minute: in a transaction
 * they would cancel it, and fail the plain updates of other requests, whenever two met. `recorded`:
 * the transaction was written (false, logged, when the key check failed, it was cancelled, or the
 * call failed: then none of it was); `outcomeCounted`: the counters were. Never throws.
 */
export async function recordAhead(keyCheck: NonNullable<TransactItem['ConditionCheck']>, answer: Answered, outcome: Outcome, log: Log): Promise<{ recorded: boolean; outcomeCounted: boolean }> {
  const [recorded, outcomeCounted] = await Promise.all([
    db()
      .send(new TransactWriteCommand({ TransactItems: recordAheadItems(keyCheck, answer) }))
      .then(
        () => true,
        (err: unknown) => {
          const reasons = cancellationCodes(err);
          log.info('answer not recorded ahead; the function records it', { error: (err as Error)?.name, ...(reasons ? { reasons } : {}) });
          return false;
        },
      ),
    countOutcome(outcome, log),
  ]);
  return { recorded, outcomeCounted };
}

/**
 * The actions of recordAhead's transaction (pure): the key check, the answer's usage count and
 * history item. The history item is the request's first (the authorizer runs before the function):
 * it removes nothing, so these updates name only attributes the authorizer's IAM allow-list holds
 * (infra/stack.ts; test/unit/authorizer-iam.test.ts checks every one).
 */
export function recordAheadItems(keyCheck: NonNullable<TransactItem['ConditionCheck']>, answer: Answered): TransactItem[] {
  return [{ ConditionCheck: keyCheck }, ...freeAnswerWrites(answer, { first: true }).map((Update) => ({ Update }))];
}

/**
 * A cache hit, recorded beside the cache read instead of after it (so a hit takes one DynamoDB round
 * trip after the authorizer's): one transaction counts the hit and writes its history item, on the
 * condition that the cache entry is fresh at `now` (`maxAgeSeconds`, as readCache judges it: fetched
 * recently enough, not expired, a binary body). It costs nothing and has no ledger record.
 * 'recorded': counted; 'no entry': no fresh entry, nothing written (a miss); 'conflict': cancelled by
 * a concurrent transaction, nothing written (counted by the caller with recordLateHit); 'failed': not counted
 * (logged; counting never fails a request). A hit whose entry then proves unreadable is taken back
 * by `unrecordHit`.
 */
export async function recordHit(answer: Answered, cacheKey: string, maxAgeSeconds: number, now: number, log: Log): Promise<'recorded' | 'no entry' | 'conflict' | 'failed'> {
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            ConditionCheck: {
              TableName: config.cacheTable,
              Key: { pk: cacheKey },
              ConditionExpression: 'fetchedAt >= :oldest AND expiresAt > :nowS AND attribute_type(body, :binary)',
              ExpressionAttributeValues: { ':oldest': now - maxAgeSeconds * 1000, ':nowS': Math.floor(now / 1000), ':binary': 'B' },
            },
          },
          ...freeAnswerWrites(answer).map((Update) => ({ Update })),
        ],
      }),
    );
    return 'recorded';
  } catch (err) {
    const reasons = cancellationCodes(err);
    if (reasons?.[0] === 'ConditionalCheckFailed') return 'no entry';
    // Cancelled for a concurrent transaction on one of its items (the same entry, or the team's
    // usage item, hit by another request at that instant): certainly not written, so the caller
    // counts it without the transaction. Anything else may have landed: not counted again.
    if (reasons?.includes('TransactionConflict')) return 'conflict';
    log.warn('cache hit not counted', { error: (err as Error)?.name });
    return 'failed';
  }
}

/**
 * A hit counted by recordHit whose entry the cache read could not use (corrupt, or gone between the
 * two): the count taken back. Its history item is replaced by the request's own answer (same key).
 * Never throws.
 */
export const unrecordHit = (answer: Answered, log: Log): Promise<void> => unrecordFreeAnswer({ ...answer, code: null }, log);

/**
 * A free answer counted ahead of time (a hit, or a refusal the authorizer's balance foretold) that
 * turned out otherwise: its usage count taken back. Its history item is replaced by the request's
 * own answer (same key: the request's start). Never throws.
 */
export async function unrecordFreeAnswer(answer: Answered, log: Log): Promise<void> {
  await db()
    .send(new UpdateCommand(freeAnswerUpdate(answer.teamId, answer.operation, answer.code, answer.time, answer.requestId, -1)))
    .catch((err: unknown) => log.warn('an answer counted ahead of time was not taken back', { error: (err as Error)?.name, code: answer.code }));
}

/** A hit whose transaction found no fresh entry although the read did (it expired in between): counted now. */
export const recordLateHit = (answer: Answered, log: Log): Promise<void> => recordFreeAnswer(answer, log);

/**
 * An error answer of a known team: the reserved credit given back (when one was reserved), with the
 * error's usage count and history item sent at the same time. Never throws; false when a reserved
 * credit could not be given back.
 */
export async function settleError(answer: Answered, reserved: boolean, log: Log): Promise<boolean> {
  const [given] = await Promise.all([reserved ? refund(answer.teamId, answer.requestId) : true, recordFreeAnswer(answer, log)]);
  if (!given) log.error('refund failed: a reserved credit was not given back');
  return given;
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
  reservationSettled(charge.teamId, charge.requestId);
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
  const reasons = cancellationCodes(err) ?? [];
  if (reasons[0] === 'ConditionalCheckFailed') return 'ledger recorded';
  if (reasons.includes('TransactionConflict')) return 'conflict';
  return null;
}

/** The per-action codes of a cancelled transaction ('None' for an action that was not the cause), or undefined for any other error. */
function cancellationCodes(err: unknown): string[] | undefined {
  if ((err as { name?: string }).name !== 'TransactionCanceledException') return undefined;
  return ((err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code ?? 'None');
}

async function writeSettlement(charge: Omit<LedgerEntry, 'credits'>, cacheItem: Record<string, unknown> | null, log: Log, request: Pick<Answered, 'keyId' | 'ms'>): Promise<void> {
  const time = Date.parse(charge.time);
  const answered: Answered = { ...charge, ...request, time, status: 200, code: null, credits: COST, cached: false };
  const charged: NonNullable<TransactWriteCommandInput['TransactItems']> = [
    // Written by UpdateItem, never PutItem (a scraper has none on the accounts table): the ledger
    // record is created, never changed (conditional on its absence, as a retry's guard).
    { Update: itemUpdate(config.accountsTable, ledgerItem({ ...charge, credits: COST }), { condition: { expression: 'attribute_not_exists(pk)' } }) },
    { Update: liveUsageUpdate(charge.teamId, charge.operation, COST, charge.requestId, time) },
    { Update: historyUpdate(answered) },
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
