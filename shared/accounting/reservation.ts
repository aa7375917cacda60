import { randomUUID } from 'node:crypto';
import { BatchGetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { RATE_LIMIT, config } from '../runtime/config';
import { db, isConditionalFailure, retryPolicy } from '../db/client';
import { HOLD_PREFIX, TEAM_SK, teamPk } from '../db/tables';
import { ApiError, atCapacity } from '../http/errors';
import type { Log } from '../runtime/log';
import { ledgerKey } from './ledger';
import { COST } from './teams';
import { afterCharge, cachedCreditWatch } from '../webhooks/credits';

/**
 * The reservation of a live request's credit: one conditional UpdateItem on the team item takes 1
 * credit (never below zero: N concurrent requests against a balance of K give exactly min(N, K)
 * reservations) and sets a mark `HOLD#<requestId>` whose value is the reservation's time (epoch
 * ms). A live answer then writes its ledger record under that time (./ledger.ts, settleLive); an
 * error gives the credit back (`refund`). What each part protects against (docs/credits.md):
 *
 *   the mark, required absent   a reservation sent again after its first attempt landed (its answer
 *                               lost: a timeout, a reset; by the SDK's retries or ours) is refused
 *                               and carries the item, which shows the credit was taken by this very
 *                               request: one credit, whatever else the team did in between
 *   refund, requiring the mark  a refund sent again takes nothing back twice
 *   refund on an unknown        a reservation whose outcome stayed unknown may have landed: it is
 *   reservation                 refunded (harmless when it did not: no mark, no refund)
 *   the sweep of old marks      a mark older than MARK_KEPT_MS belongs to a request that ended long
 *                               ago. If its ledger record exists it was charged, and the mark goes;
 *                               otherwise its credit never reached the ledger (the function died
 *                               between reservation and settle, or its refund failed too), and it
 *                               is given back. So credits granted = ledger + balance once no
 *                               request is in flight, under any fault.
 *
 * A settled request's mark is removed by this container's next reservation for the team (no call
 * of its own); a container that goes away leaves its marks to the sweep.
 */
const MARK_KEPT_MS = 10 * 60_000;
/** At most this many marks are removed by one reservation (the expression stays small). */
const MAX_REMOVED_PER_UPDATE = 40;
const MAX_TEAMS_REMEMBERED = 5000;

/**
 * A live request's scrape goes out together with its reservation (the upstream round trip does not
 * wait for DynamoDB) only when the team's balance, read by the authorizer for this request, is at
 * least this: more than the team can spend meanwhile, since its rate limit lets at most
 * `RATE_LIMIT.requests` start at once and fewer than as many more during the longest request.
 * Below it, or with no balance read, the scrape waits for the reservation: a team without credit
 * never causes an upstream request.
 */
export const SCRAPE_AHEAD_MIN_CREDITS = 2 * RATE_LIMIT.requests;
export const scrapesAhead = (balanceHint: number | undefined): boolean => balanceHint !== undefined && balanceHint >= SCRAPE_AHEAD_MIN_CREDITS;

/** A credit taken for a request: when (the mark's value, the ledger record's key) and the balance after it. */
export interface Reservation {
  teamId: string;
  requestId: string;
  at: number;
  remaining: number;
}

const markOf = (requestId: string) => `${HOLD_PREFIX}${requestId}`;

/** Marks of settled requests this container may remove with its next reservation, per team. */
const settledMarks = new Map<string, Set<string>>();

function rememberSettled(teamId: string, marks: Iterable<string>): void {
  let set = settledMarks.get(teamId);
  if (!set) {
    if (settledMarks.size >= MAX_TEAMS_REMEMBERED) settledMarks.delete(settledMarks.keys().next().value as string);
    settledMarks.set(teamId, (set = new Set()));
  }
  for (const m of marks) set.add(m);
}

function takeSettled(teamId: string): string[] {
  const set = settledMarks.get(teamId);
  if (!set) return [];
  const taken = [...set].slice(0, MAX_REMOVED_PER_UPDATE);
  for (const m of taken) set.delete(m);
  if (!set.size) settledMarks.delete(teamId);
  return taken;
}

/** After a request's charge is in the ledger: its mark may go with the team's next reservation. */
export function reservationSettled(r: { teamId: string; requestId: string }): void {
  rememberSettled(r.teamId, [markOf(r.requestId)]);
}

/** The item a refused conditional update returned (ALL_OLD; the document client leaves it marshalled). */
function refusedItem(err: unknown): Record<string, unknown> | undefined {
  const item = (err as { Item?: Parameters<typeof unmarshall>[0] }).Item;
  return item ? unmarshall(item) : undefined;
}

/** The 402 of a refused reservation, with the balance that refused it (the answer's x-credits-remaining). */
export class InsufficientCredits extends ApiError {
  constructor(readonly balance: number) {
    super('INSUFFICIENT_CREDITS', 'The balance is lower than the cost of a live request (1 credit); cached results remain free with cache_max_age');
  }
}

/**
 * Takes 1 credit for request `requestId`, or throws InsufficientCredits (402) with the balance that
 * refused it. Safe to send again (the mark). When every
 * attempt failed without an answer, the reservation may have landed: it is refunded, and the
 * request fails with 503.
 */
export async function reserve(teamId: string, requestId: string = randomUUID(), log?: Log): Promise<Reservation> {
  const again = retryPolicy();
  const mark = markOf(requestId);
  // The team's credits watch (threshold), as this container keeps it: read beside the reservation, not after it.
  const watch = cachedCreditWatch(teamId);
  let last: unknown;
  for (let attempt = 0; await again(attempt); attempt++) {
    const settled = takeSettled(teamId).filter((m) => m !== mark);
    const now = Date.now();
    try {
      const names: Record<string, string> = { '#mark': mark };
      settled.forEach((m, i) => (names[`#old${i}`] = m));
      const res = await db().send(
        new UpdateCommand({
          TableName: config.accountsTable,
          Key: { pk: teamPk(teamId), sk: TEAM_SK },
          UpdateExpression: `SET credits = credits - :cost, #mark = :now${settled.length ? ` REMOVE ${settled.map((_, i) => `#old${i}`).join(', ')}` : ''}`,
          ConditionExpression: 'attribute_exists(pk) AND credits >= :cost AND attribute_not_exists(#mark)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':cost': COST, ':now': now },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      const item = res.Attributes ?? {};
      await sweepOldMarks(teamId, item, now, log);
      // credits.low / credits.exhausted, decided on the balance this update returned: no call unless this charge crossed.
      await afterCharge(teamId, requestId, Number(item.credits ?? 0), COST, await watch, log, now);
      return { teamId, requestId, at: now, remaining: Number(item.credits ?? 0) };
    } catch (err) {
      rememberSettled(teamId, settled); // not removed by this update: by the next one
      if (isConditionalFailure(err)) {
        const old = refusedItem(err);
        // An earlier attempt of this very reservation took the credit; its answer was lost.
        if (old?.[mark] !== undefined) return { teamId, requestId, at: Number(old[mark]), remaining: Number(old.credits ?? 0) };
        throw new InsufficientCredits(Math.max(0, Number(old?.credits ?? 0)));
      }
      last = err;
    }
  }
  // Possibly made: given back if it was (a refund needs the mark, so it takes nothing otherwise).
  const given = await refund(teamId, requestId);
  log?.warn('reservation outcome unknown; refund attempted', { error: (last as Error)?.name, refunded: given });
  throw atCapacity(`reserve failed: ${(last as Error)?.name}`);
}

/**
 * Gives request `requestId`'s reserved credit back: one update adds the credit and removes the mark,
 * on condition that the mark is there (exactly once). `at`: the mark must still hold that time (the
 * sweep's refund). Never throws; true when the credit is back (by this call or an earlier attempt)
 * or there was no reservation, false when it could not be given back (the sweep will).
 */
export async function refund(teamId: string, requestId: string, at?: number): Promise<boolean> {
  const again = retryPolicy({ attempts: 4, baseDelayMs: 100, budgetMs: 3 * config.dynamoTimeoutMs });
  for (let attempt = 0; await again(attempt); attempt++) {
    try {
      await db().send(
        new UpdateCommand({
          TableName: config.accountsTable,
          Key: { pk: teamPk(teamId), sk: TEAM_SK },
          UpdateExpression: 'SET credits = credits + :cost REMOVE #mark',
          ConditionExpression: at === undefined ? 'attribute_exists(#mark)' : '#mark = :at',
          ExpressionAttributeNames: { '#mark': markOf(requestId) },
          ExpressionAttributeValues: { ':cost': COST, ...(at === undefined ? {} : { ':at': at }) },
        }),
      );
      return true;
    } catch (err) {
      if (isConditionalFailure(err)) return true; // no mark: given back already, or never reserved
    }
  }
  return false;
}

/**
 * The marks of `item` older than MARK_KEPT_MS: a charged request's (its ledger record exists) is
 * removed, an uncharged one's credit given back. Rare (a container that went away, a refund that
 * failed); never fails the reservation that found them.
 */
async function sweepOldMarks(teamId: string, item: Record<string, unknown>, now: number, log?: Log): Promise<void> {
  const old = Object.entries(item).filter(([name, at]) => name.startsWith(HOLD_PREFIX) && !(Number(at) > now - MARK_KEPT_MS));
  if (!old.length) return;
  try {
    const holds = old.map(([name, at]) => ({ name, requestId: name.slice(HOLD_PREFIX.length), at: Number(at) }));
    const charged = await chargedRequests(teamId, holds);
    rememberSettled(teamId, holds.filter((h) => charged.has(h.requestId)).map((h) => h.name));
    const uncharged = holds.filter((h) => !charged.has(h.requestId));
    const given = await Promise.all(uncharged.map((h) => refund(teamId, h.requestId, h.at)));
    if (uncharged.length) log?.warn('old reservations without a charge given back', { count: uncharged.length, failed: given.filter((g) => !g).length });
  } catch (err) {
    log?.warn('old reservation marks not swept', { error: (err as Error).name });
  }
}

/** Which of these reservations have their ledger record (one BatchGetItem, strongly consistent). */
async function chargedRequests(teamId: string, holds: { requestId: string; at: number }[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < holds.length; i += 100) {
    const keys = holds.slice(i, i + 100).map((h) => ledgerKey(teamId, h.at, h.requestId));
    const res = await db().send(new BatchGetCommand({ RequestItems: { [config.accountsTable]: { Keys: keys, ConsistentRead: true, ProjectionExpression: 'requestId' } } }));
    if (Object.keys(res.UnprocessedKeys ?? {}).length) throw Object.assign(new Error('unprocessed'), { name: 'UnprocessedKeys' });
    for (const it of res.Responses?.[config.accountsTable] ?? []) found.add(String(it.requestId));
  }
  return found;
}
