import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, conditionally, db, queryAll } from '../db/client';
import { CREDIT_WATCH, CREDIT_WATCH_SK, DUE_INDEX, TEAM_SK, teamPk } from '../db/tables';
import { config } from '../runtime/config';
import type { Log } from '../runtime/log';
import { teamEventWrites } from './events';

/**
 * credits.low and credits.exhausted: once per crossing, never lost, and the charge no slower.
 *
 * What a team wants and what was announced live in the events table, one item per team
 * (TEAM#<teamId> / CREDITWATCH: `threshold`, `alert` — absent, low or exhausted — and `seq`),
 * made when the team sets a threshold (PATCH /v1/webhooks/settings) or an endpoint that wants a
 * credits event; the engine's functions never write the accounts table for it.
 *
 * The charge (shared/accounting/reservation.ts reserve) already gets the balance after it back from
 * its UpdateItem. A charge crossed when the level after it (alertOf) is worse than the level one
 * credit earlier: pure arithmetic on the returned values and the team's threshold, which each
 * container keeps for WATCH_CACHE_MS (read beside the reservation, not after it: no added wait).
 * Nearly every charge stops there, with no call at all. The one that crosses writes one
 * transaction on the events table: the watch item's alert (on condition that it is not that alert
 * already: a refund and a charge flapping at the threshold announce once) and the event, its id
 * derived from the reservation's request id (a retried reservation re-creates the same id).
 *
 * A crash between the charge and that transaction would lose the crossing, so the minute tick
 * reconciles (reconcileCredits): each watched team's balance against its alert. Worse than
 * announced on two looks a minute apart, with no charge's write in between (seq unchanged), it
 * writes the missing event then: at most two minutes late, never lost, never twice. Better than
 * announced (a grant, refunds, a lower threshold), the alert is cleared without an event, so the
 * next fall is a new crossing; a grant clears it at once (shared/accounting/teams.ts addCredits).
 */
export type CreditAlert = 'low' | 'exhausted';
export const WATCH_CACHE_MS = 60_000;
/** How long a discrepancy must stand before the tick announces it (a charge's own write is long done by then). */
export const RECONCILE_AFTER_MS = 60_000;

export interface CreditWatch {
  teamId: string;
  threshold?: number;
  alert?: CreditAlert;
  seq: number;
  suspectSince?: number;
}

export const alertOf = (credits: number, threshold: number | undefined): CreditAlert | undefined => (credits <= 0 ? 'exhausted' : threshold !== undefined && credits < threshold ? 'low' : undefined);
const rank = (a: CreditAlert | undefined) => (a === 'exhausted' ? 2 : a === 'low' ? 1 : 0);
type CreditEvent = 'credits.low' | 'credits.exhausted';

/** The events a fall from `from` to `to` announces (pure): low when it passes the threshold, exhausted when it reaches zero. */
export function fallEvents(from: CreditAlert | undefined, to: CreditAlert | undefined, threshold: number | undefined): CreditEvent[] {
  if (rank(to) <= rank(from)) return [];
  const events: CreditEvent[] = [];
  if (rank(from) === 0 && threshold !== undefined && threshold > 0) events.push('credits.low');
  if (to === 'exhausted') events.push('credits.exhausted');
  return events;
}

const T = () => config.eventsTable;
const watchKey = (teamId: string) => ({ pk: teamPk(teamId), sk: CREDIT_WATCH_SK });

function watchOf(teamId: string, item: Record<string, unknown> | undefined): CreditWatch | null {
  if (!item) return null;
  return { teamId, threshold: typeof item.threshold === 'number' ? item.threshold : undefined, alert: item.alert as CreditAlert | undefined, seq: Number(item.seq ?? 0), suspectSince: typeof item.suspectSince === 'number' ? item.suspectSince : undefined };
}

export async function getCreditWatch(teamId: string): Promise<CreditWatch | null> {
  const res = await db().send(new GetCommand({ TableName: T(), Key: watchKey(teamId), ConsistentRead: true }));
  return watchOf(teamId, res.Item);
}

/** Per container: each team's watch item (or null: none), kept WATCH_CACHE_MS. */
const cached = new Map<string, { at: number; watch: Promise<CreditWatch | null> }>();
const MAX_CACHED = 5000;
export function cachedCreditWatch(teamId: string, now = Date.now()): Promise<CreditWatch | null> {
  const hit = cached.get(teamId);
  if (hit && now - hit.at < WATCH_CACHE_MS) return hit.watch;
  if (cached.size >= MAX_CACHED) cached.delete(cached.keys().next().value as string);
  const watch = db()
    .send(new GetCommand({ TableName: T(), Key: watchKey(teamId) }))
    .then((r) => watchOf(teamId, r.Item))
    .catch(() => null);
  cached.set(teamId, { at: now, watch });
  return watch;
}
/** For tests: forget what the container keeps. */
export const forgetCreditWatches = () => cached.clear();

/** The transaction of an announcement: the watch item's new alert (seq + 1) on `condition`, and the events. */
function announce(w: CreditWatch, to: CreditAlert | undefined, events: CreditEvent[], credits: number, eventKey: string, at: number, condition: { expression: string; values?: Record<string, unknown> }) {
  return new TransactWriteCommand({
    TransactItems: [
      {
        Update: {
          TableName: T(),
          Key: watchKey(w.teamId),
          UpdateExpression: `${to ? 'SET alert = :alert ' : ''}ADD seq :one REMOVE suspectSince${to ? '' : ', alert'}`,
          ConditionExpression: condition.expression,
          ExpressionAttributeValues: { ':one': 1, ...(to ? { ':alert': to } : {}), ...(condition.values ?? {}) },
        },
      },
      ...events.flatMap((type) =>
        type === 'credits.low'
          ? teamEventWrites(w.teamId, type, eventKey, { teamId: w.teamId, credits, threshold: w.threshold ?? 0 }, at)
          : teamEventWrites(w.teamId, type, eventKey, { teamId: w.teamId, credits }, at),
      ),
    ],
  });
}

/**
 * After a charge, from the balance it returned: when this very charge crossed (one credit earlier
 * the level was better), the alert and its event(s) in one transaction. Never throws (the tick
 * reconciles a failure). True when it wrote. `watch`: the team's watch item as the container keeps it.
 */
export async function afterCharge(teamId: string, requestId: string, credits: number, cost: number, watch: CreditWatch | null, log?: Log, now = Date.now()): Promise<boolean> {
  if (!watch) return false;
  const to = alertOf(credits, watch.threshold);
  const events = fallEvents(alertOf(credits + cost, watch.threshold), to, watch.threshold);
  if (!events.length) return false;
  try {
    const wrote = await conditionally(() =>
      db().send(announce(watch, to, events, credits, `charge-${requestId}`, now, { expression: 'attribute_exists(pk) AND (attribute_not_exists(alert) OR alert <> :alert)' })),
    );
    if (wrote) log?.info('credit events', { teamId, events, credits });
    return wrote;
  } catch (err) {
    log?.warn('credit events not written; the minute tick will', { teamId, error: (err as Error).name });
    return false;
  }
}

/** Balances of these teams (one BatchGetItem per 100, projected: credits only). */
async function balances(teamIds: string[]): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const items = await batchGetAll(config.accountsTable, teamIds.map((t) => ({ pk: teamPk(t), sk: TEAM_SK })), { projection: 'pk, credits' });
  for (const it of items) out.set(String(it.pk).slice('TEAM#'.length), Number(it.credits ?? 0));
  return out;
}

/** The minute tick's check of every watched team (a crash between a charge and its event cannot lose it). */
export async function reconcileCredits(log?: Log, now = Date.now()): Promise<{ teams: number; written: number }> {
  const items = await queryAll({ TableName: T(), IndexName: DUE_INDEX.name, KeyConditionExpression: '#p = :p', ExpressionAttributeNames: { '#p': DUE_INDEX.partitionKey }, ExpressionAttributeValues: { ':p': CREDIT_WATCH } });
  const watches = items.map((i) => watchOf(String(i.teamId), i)!);
  const credits = await balances(watches.map((w) => w.teamId));
  let written = 0;
  for (const w of watches) {
    const balance = credits.get(w.teamId);
    if (balance === undefined) continue;
    written += (await reconcileOne(w, balance, log, now)) ? 1 : 0;
  }
  return { teams: watches.length, written };
}

async function reconcileOne(seen: CreditWatch, balance: number, log: Log | undefined, now: number): Promise<boolean> {
  // The index is eventually consistent: the item itself, read strongly, decides.
  const w = await getCreditWatch(seen.teamId);
  if (!w) return false;
  const to = alertOf(balance, w.threshold);
  const same = { expression: 'seq = :seq', values: { ':seq': w.seq } };
  const update = (expression: string, values: Record<string, unknown> = {}) =>
    conditionally(() => db().send(new UpdateCommand({ TableName: T(), Key: watchKey(w.teamId), UpdateExpression: expression, ConditionExpression: same.expression, ExpressionAttributeValues: { ...(same.values ?? {}), ...values } })));
  if (rank(to) === rank(w.alert)) return w.suspectSince !== undefined ? (await update('REMOVE suspectSince'), false) : false;
  if (rank(to) < rank(w.alert)) return (await conditionally(() => db().send(announce(w, to, [], balance, '', now, same)))) && false;
  // Worse than announced: a charge's transaction may be in flight; announce only a discrepancy that stood a minute.
  if (w.suspectSince === undefined || now - w.suspectSince < 0) return (await update('SET suspectSince = :now', { ':now': now })) && false;
  if (now - w.suspectSince < RECONCILE_AFTER_MS) return false;
  const events = fallEvents(w.alert, to, w.threshold);
  const wrote = await conditionally(() => db().send(announce(w, to, events, balance, `tick-${w.seq + 1}`, now, same)));
  if (wrote) log?.warn('credit events written by the minute check (the charge did not)', { teamId: w.teamId, events, credits: balance });
  return wrote;
}

/**
 * Makes the team's watch item when missing (an endpoint that wants a credits event, a threshold),
 * with `threshold` when given (null: none). Then the team is checked by the next tick.
 */
export async function watchCredits(teamId: string, threshold?: number | null): Promise<void> {
  const base = 'SET teamId = :team, duePk = :watch, dueSk = :team, seq = if_not_exists(seq, :zero)';
  const expression = threshold === undefined ? base : threshold === null ? `${base} REMOVE threshold` : `${base}, threshold = :t`;
  await db().send(
    new UpdateCommand({
      TableName: T(),
      Key: watchKey(teamId),
      UpdateExpression: expression,
      ExpressionAttributeValues: { ':team': teamId, ':watch': CREDIT_WATCH, ':zero': 0, ...(typeof threshold === 'number' ? { ':t': threshold } : {}) },
    }),
  );
  cached.delete(teamId);
}

/** After a grant (credits added): an alert the balance is now above is cleared at once, so the next fall is announced. */
export async function afterGrant(teamId: string, credits: number): Promise<void> {
  const w = await getCreditWatch(teamId);
  if (!w || rank(alertOf(credits, w.threshold)) >= rank(w.alert)) return;
  await conditionally(() => db().send(announce(w, alertOf(credits, w.threshold), [], credits, '', Date.now(), { expression: 'seq = :seq', values: { ':seq': w.seq } })));
}

/** What GET /v1/webhooks/settings shows. */
export async function creditSettings(teamId: string): Promise<{ creditsLowThreshold: number | null; creditAlert: CreditAlert | null }> {
  const w = await getCreditWatch(teamId);
  return { creditsLowThreshold: w?.threshold ?? null, creditAlert: w?.alert ?? null };
}
