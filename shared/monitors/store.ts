import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalFailure, itemUpdate } from '../db/client';
import { TEAM_INDEX, teamPk } from '../db/tables';
import { config } from '../runtime/config';
import type { PendingEvent, WatchState } from './events';
import type { MonitorableId } from '../api/monitor-kinds';

/**
 * Monitors and their deliveries, in the accounts table (no new table: the team's data lives there):
 *
 *   TEAM#<teamId> / MON#<monitorId>              a monitor: operation, params, intervalSeconds, webhookUrl, status,
 *                                                pausedReason?, secret (sealed: ./secret.ts), nextPollAt, … (about 1 KB:
 *                                                each poll's claim rewrites it, so it holds nothing that grows)
 *                                                (gsi1pk MONDUE, gsi1sk <nextPollAt>#<teamId>#<monitorId> while active)
 *   TEAM#<teamId> / MONSTATE#<monitorId>         what its polls have seen (./events.ts WatchState: up to 1,000 id marks,
 *                                                under 16 KB), written only when something is new
 *   TEAM#<teamId> / MONDLV#<monitorId>#<eventId> an event and its delivery: type, body, attempts, lastStatus, ms,
 *                                                nextAttemptAt? (gsi1pk DLVDUE, gsi1sk <nextAttemptAt>#… while pending);
 *                                                expiresAt after 7 days
 *
 * The two sparse index partitions are the local scheduler's "what is due" (and the tick's on AWS:
 * docs/monitors.md); a monitor or a delivery leaves them when paused or done.
 */
export const MONITOR_DUE = 'MONDUE';
export const DELIVERY_DUE = 'DLVDUE';
export const DELIVERY_DAYS = 7;

export interface Monitor {
  teamId: string;
  monitorId: string;
  operation: MonitorableId;
  params: Record<string, string>;
  intervalSeconds: number;
  webhookUrl: string;
  status: 'active' | 'paused';
  pausedReason?: 'by_request' | 'no_credits' | 'not_found' | 'deliveries_failing';
  secret: string;
  createdAt: string;
  updatedAt: string;
  nextPollAt: number;
  lastPollAt?: number;
  lastPollStatus?: number;
  /** The key that created it (the polls carry it, as a request with that key would). */
  keyId?: string;
  /** The first failed delivery since the last successful one (epoch ms). */
  failingSince?: number;
}

export interface Delivery {
  teamId: string;
  monitorId: string;
  eventId: string;
  type: PendingEvent['type'];
  body: string;
  timestamp: number;
  createdAt: number;
  attempts: number;
  lastStatus?: number | null;
  lastError?: string;
  ms?: number;
  nextAttemptAt?: number;
  /**
   * On AWS, a retry already on the delivery queue (a delayed message): the tick sweeps it only
   * after this time, as a safety net for a lost message. Locally unset: due at nextAttemptAt.
   */
  sweepAfter?: number;
  state: 'pending' | 'delivered' | 'failed';
}

const monSk = (id: string) => `MON#${id}`;
const stateSk = (id: string) => `MONSTATE#${id}`;
const dlvSk = (monitorId: string, eventId: string) => `MONDLV#${monitorId}#${eventId}`;
const T = () => config.accountsTable;
const dueSk = (at: number, ...ids: string[]) => `${new Date(at).toISOString()}#${ids.join('#')}`;

function monitorItem(m: Monitor): Record<string, unknown> {
  return {
    pk: teamPk(m.teamId),
    sk: monSk(m.monitorId),
    ...m,
    ...(m.status === 'active' ? { gsi1pk: MONITOR_DUE, gsi1sk: dueSk(m.nextPollAt, m.teamId, m.monitorId) } : {}),
  };
}

const strip = <T>(item: Record<string, unknown>): T => {
  const { pk: _pk, sk: _sk, gsi1pk: _g, gsi1sk: _s, expiresAt: _e, ...rest } = item;
  return rest as T;
};

export async function putMonitor(m: Monitor): Promise<void> {
  await db().send(new PutCommand({ TableName: T(), Item: monitorItem(m) }));
}

export async function getMonitor(teamId: string, monitorId: string): Promise<Monitor | null> {
  const res = await db().send(new GetCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: monSk(monitorId) }, ConsistentRead: true }));
  return res.Item ? strip<Monitor>(res.Item) : null;
}

export async function listMonitors(teamId: string): Promise<Monitor[]> {
  const out: Monitor[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const res = await db().send(new QueryCommand({ TableName: T(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', ExpressionAttributeValues: { ':pk': teamPk(teamId), ':p': 'MON#' }, ExclusiveStartKey: start }));
    out.push(...(res.Items ?? []).map((i) => strip<Monitor>(i)));
    start = res.LastEvaluatedKey;
  } while (start);
  return out;
}

export async function deleteMonitor(teamId: string, monitorId: string): Promise<boolean> {
  const [res] = await Promise.all([
    db().send(new DeleteCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: monSk(monitorId) }, ReturnValues: 'ALL_OLD' })),
    db().send(new DeleteCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: stateSk(monitorId) } })),
  ]);
  return Boolean(res.Attributes);
}

/** What a monitor's polls have seen; before its first poll, no baseline. */
export async function getWatchState(teamId: string, monitorId: string): Promise<WatchState> {
  const res = await db().send(new GetCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: stateSk(monitorId) }, ConsistentRead: true }));
  return (res.Item?.state as WatchState | undefined) ?? { baseline: false };
}

export async function putWatchState(teamId: string, monitorId: string, state: WatchState): Promise<void> {
  await db().send(new PutCommand({ TableName: T(), Item: { pk: teamPk(teamId), sk: stateSk(monitorId), state } }));
}

/** A due monitor, as the scheduler hands it to a poll: `dueAt` is the slot the poll claims (./poll.ts). */
export interface DueMonitor {
  teamId: string;
  monitorId: string;
  operation: MonitorableId;
  dueAt: number;
}

/** Monitors due at `now`, oldest due first. */
export async function dueMonitors(now: number, limit = 100): Promise<DueMonitor[]> {
  return (await duePage(MONITOR_DUE, now, limit)).map((i) => ({ teamId: i.teamId as string, monitorId: i.monitorId as string, operation: i.operation as MonitorableId, dueAt: i.nextPollAt as number }));
}

/** Up to `limit` items of a due partition, oldest due first, page after page. */
async function duePage(partition: string, now: number, limit: number): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const res = await db().send(
      new QueryCommand({ TableName: T(), IndexName: TEAM_INDEX.name, KeyConditionExpression: 'gsi1pk = :p AND gsi1sk <= :now', ExpressionAttributeValues: { ':p': partition, ':now': `${new Date(now).toISOString()}#~` }, Limit: limit - out.length, ExclusiveStartKey: start }),
    );
    out.push(...(res.Items ?? []));
    start = res.LastEvaluatedKey;
  } while (start && out.length < limit);
  return out;
}

function deliveryItem(d: Delivery): Record<string, unknown> {
  return {
    pk: teamPk(d.teamId),
    sk: dlvSk(d.monitorId, d.eventId),
    ...d,
    ...(d.state === 'pending' && d.nextAttemptAt !== undefined ? { gsi1pk: DELIVERY_DUE, gsi1sk: dueSk(d.sweepAfter ?? d.nextAttemptAt, d.teamId, d.monitorId, d.eventId) } : {}),
    expiresAt: Math.floor(d.createdAt / 1000) + DELIVERY_DAYS * 86_400,
  };
}

export async function putDelivery(d: Delivery): Promise<void> {
  await db().send(new PutCommand({ TableName: T(), Item: deliveryItem(d) }));
}

export async function getDelivery(teamId: string, monitorId: string, eventId: string): Promise<Delivery | null> {
  const res = await db().send(new GetCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: dlvSk(monitorId, eventId) }, ConsistentRead: true }));
  return res.Item && (res.Item.expiresAt as number) * 1000 > Date.now() ? strip<Delivery>(res.Item) : null;
}

/** A monitor's deliveries of the last 7 days, newest first. */
export async function listDeliveries(teamId: string, monitorId: string, limit = 100): Promise<Delivery[]> {
  const res = await db().send(
    new QueryCommand({ TableName: T(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', ExpressionAttributeValues: { ':pk': teamPk(teamId), ':p': `MONDLV#${monitorId}#` }, ScanIndexForward: false, Limit: limit }),
  );
  const now = Date.now();
  return (res.Items ?? []).filter((i) => (i.expiresAt as number) * 1000 > now).map((i) => strip<Delivery>(i));
}

export async function dueDeliveries(now: number, limit = 100): Promise<{ teamId: string; monitorId: string; eventId: string }[]> {
  return (await duePage(DELIVERY_DUE, now, limit)).map((i) => ({ teamId: i.teamId as string, monitorId: i.monitorId as string, eventId: i.eventId as string }));
}

/** The due-index keys that follow a change: a pause leaves the index, a resume enters it at its next poll, a new slot moves it. */
function dueIndexChange(teamId: string, monitorId: string, fields: Partial<Monitor>): Record<string, unknown> {
  if (fields.status === 'paused') return { gsi1pk: undefined, gsi1sk: undefined };
  if (fields.status === 'active') {
    if (fields.nextPollAt === undefined) throw new Error('a resumed monitor needs its next poll time');
    return { gsi1pk: MONITOR_DUE, gsi1sk: dueSk(fields.nextPollAt, teamId, monitorId) };
  }
  return fields.nextPollAt !== undefined ? { gsi1sk: dueSk(fields.nextPollAt, teamId, monitorId) } : {};
}

/**
 * Set (or, for undefined, remove) some attributes of a monitor without rewriting it, so that changes
 * made at once by a PATCH, a poll and a delivery never undo each other. Keeps the due index in step.
 * The monitor as it now is, or null when it is gone, or when `whileDueAt` is given and the monitor
 * is no longer active and due at that slot (another poll claimed it, or it was paused).
 */
export async function updateMonitor(teamId: string, monitorId: string, fields: Partial<Omit<Monitor, 'teamId' | 'monitorId' | 'createdAt'>>, whileDueAt?: number): Promise<Monitor | null> {
  const all: Record<string, unknown> = { ...fields, ...dueIndexChange(teamId, monitorId, fields), updatedAt: new Date().toISOString() };
  const condition =
    whileDueAt === undefined
      ? { expression: 'attribute_exists(pk)' }
      : { expression: 'attribute_exists(pk) AND #due = :due AND #status = :active', names: { '#due': 'nextPollAt', '#status': 'status' }, values: { ':due': whileDueAt, ':active': 'active' } };
  const absent = Object.keys(all).filter((k) => all[k] === undefined);
  try {
    const res = await db().send(new UpdateCommand({ ...itemUpdate(T(), { pk: teamPk(teamId), sk: monSk(monitorId), ...all }, { absent, condition }), ReturnValues: 'ALL_NEW' }));
    return strip<Monitor>(res.Attributes!);
  } catch (err) {
    if (isConditionalFailure(err)) return null;
    throw err;
  }
}
