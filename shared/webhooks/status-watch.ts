import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally, db } from '../db/client';
import { STATUS_WATCH_KEY } from '../db/tables';
import { config } from '../runtime/config';
import type { Log } from '../runtime/log';
import { broadcastEventWrites } from './events';

/**
 * operation.degraded / operation.recovered: the public status GET /v1/status computes (shared/status,
 * its rules in shared/status/state.ts), watched by the minute tick. The events table keeps one item,
 * each operation's state as last announced and a counter of its changes; a change among
 * operational, degraded and down is one broadcast outbox item (every team's endpoints that want the
 * type: shared/webhooks/events.ts), written in the same transaction as the new remembered states,
 * on condition that the item is still the version read (two ticks at once: one announces). The
 * event's id is derived from the operation and its change counter, so a retry re-creates it.
 *
 * `unknown` (too little traffic and no recent canary) and `not configured` are not announced and do
 * not move what is remembered: an operation that goes quiet and comes back degraded was degraded
 * already as far as a receiver knows. The first sight of an operation only sets its baseline.
 */
type Announced = 'operational' | 'degraded' | 'down';
const ANNOUNCED = new Set<string>(['operational', 'degraded', 'down']);
/** At most one look per this long (the local scheduler runs every few seconds; the tick every minute). */
export const STATUS_WATCH_EVERY_MS = 55_000;

/** What the watch reads of the public status document (shared/status/page.ts buildStatus, handed in by the caller). */
export interface StatusDocument {
  operations: readonly { operation: string; state: string; reason: string }[];
}
export type BuildStatus = (now: number) => Promise<StatusDocument>;

interface Watch {
  states: Record<string, Announced>;
  changes: Record<string, number>;
  version: number;
  checkedAt: number;
}

async function readWatch(): Promise<Watch> {
  const res = await db().send(new GetCommand({ TableName: config.eventsTable, Key: STATUS_WATCH_KEY, ConsistentRead: true }));
  const i = res.Item;
  return { states: (i?.states as Watch['states']) ?? {}, changes: (i?.changes as Watch['changes']) ?? {}, version: (i?.version as number) ?? 0, checkedAt: (i?.checkedAt as number) ?? 0 };
}

export interface StatusChange {
  operation: string;
  type: 'operation.degraded' | 'operation.recovered';
  status: Announced;
  previous: Announced;
  reason: string;
}

/** The changes a status document makes to what was announced (pure). */
export function statusChanges(doc: StatusDocument, states: Record<string, Announced>): { changes: StatusChange[]; next: Record<string, Announced> } {
  const next = { ...states };
  const changes: StatusChange[] = [];
  for (const op of doc.operations) {
    if (!ANNOUNCED.has(op.state)) continue;
    const now = op.state as Announced;
    const before = states[op.operation];
    next[op.operation] = now;
    if (!before || before === now) continue;
    if (now === 'operational') changes.push({ operation: op.operation, type: 'operation.recovered', status: now, previous: before, reason: op.reason });
    // Worse: operational -> degraded or down, degraded -> down. (down -> degraded is better, but not recovered: not announced.)
    else if (before === 'operational' || (before === 'degraded' && now === 'down')) changes.push({ operation: op.operation, type: 'operation.degraded', status: now, previous: before, reason: op.reason });
  }
  return { changes, next };
}

/**
 * One look at the public status: the changes since the last announced, each a broadcast event,
 * written with the new states in one transaction. `force`: whatever the last look's time (tests).
 */
export async function watchStatus(now: number, build: BuildStatus, log?: Log, opts: { force?: boolean } = {}): Promise<StatusChange[]> {
  const watch = await readWatch();
  if (!opts.force && now - watch.checkedAt < STATUS_WATCH_EVERY_MS && now >= watch.checkedAt) return [];
  const doc = await build(now);
  const { changes, next } = statusChanges(doc, watch.states);
  const counts = { ...watch.changes };
  const writes = changes.flatMap((c) => {
    counts[c.operation] = (counts[c.operation] ?? 0) + 1;
    const data = { operation: c.operation, status: c.status, previous: c.previous, reason: c.reason };
    return c.type === 'operation.recovered'
      ? broadcastEventWrites('operation.recovered', `${c.operation}#${counts[c.operation]}`, { ...data, status: 'operational' as const }, now)
      : broadcastEventWrites('operation.degraded', `${c.operation}#${counts[c.operation]}`, { ...data, status: c.status as 'degraded' | 'down' }, now);
  });
  const put = {
    Put: {
      TableName: config.eventsTable,
      Item: { ...STATUS_WATCH_KEY, states: next, changes: counts, version: watch.version + 1, checkedAt: now },
      ConditionExpression: watch.version === 0 ? 'attribute_not_exists(pk)' : 'version = :v',
      ...(watch.version === 0 ? {} : { ExpressionAttributeValues: { ':v': watch.version } }),
    },
  };
  const wrote = await conditionally(() => db().send(new TransactWriteCommand({ TransactItems: [put, ...writes] })));
  if (!wrote) return [];
  for (const c of changes) log?.info('operation status changed', { ...c });
  return changes;
}
