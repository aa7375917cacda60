import { brotliCompressSync, brotliDecompressSync } from 'node:zlib';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, paginateQuery, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally, db, isConditionalFailure, itemUpdate, queryAll } from '../db/client';
import { DELIVERY_DUE, DUE_INDEX, MONITOR_COUNT_SK, MONITOR_DUE, MONITOR_PREFIX, deliveriesPrefix, deliverySk, dueSk, monitorSk, monitorStateSk, overflowSk, teamPk } from '../db/tables';
import { config } from '../runtime/config';
import type { PendingEvent, WatchState } from './events';
import type { MonitorableId } from '../api/monitor-kinds';
import type { TeamEventType } from '../webhooks/catalogue';
import { senderDeliveries } from '../webhooks/store';

/**
 * Monitors and their deliveries, in the events table (shared/db/tables.ts describes its key layout,
 * beside the other tables'): a monitor (TEAM#<teamId> / MON#<monitorId>), what its polls have seen
 * (MONSTATE#), its events and their deliveries (the outbox: MONDLV#), the events of one poll beyond
 * a transaction's limits (MONOVF#), and the team's monitor count (MONCOUNT). The sparse index `due`
 * (partitions MONDUE and DLVDUE) is the scheduler's "what is due" (the local scheduler's and the
 * tick's on AWS: docs/monitors.md); a monitor or a delivery leaves it when paused or done. Nothing
 * here is money: the functions of the engine write this table alone and hold no write on accounts.
 */
export { DELIVERY_DUE, MONITOR_DUE };
export const DELIVERY_DAYS = 7;
/** Attempts kept on a delivery item (the oldest dropped first): the item stays bounded. */
export const ATTEMPT_LOG_MAX = 20;

export type PausedReason = 'by_request' | 'no_credits' | 'not_found' | 'deliveries_failing' | 'key_revoked' | 'member_removed';

export interface Monitor {
  teamId: string;
  monitorId: string;
  operation: MonitorableId;
  params: Record<string, string>;
  intervalSeconds: number;
  webhookUrl: string;
  status: 'active' | 'paused';
  pausedReason?: PausedReason;
  secret: string;
  /** After a rotation: the secret before it (sealed), still signing beside the new one until previousSecretExpiresAt. */
  previousSecret?: string;
  previousSecretExpiresAt?: number;
  createdAt: string;
  updatedAt: string;
  nextPollAt: number;
  /** A poll holds its slot until then (./poll.ts); a poll that died leaves it to expire. */
  pollLeaseUntil?: number;
  lastPollAt?: number;
  lastPollStatus?: number;
  /** Who created it: the key (the polls carry it, as a request with that key would), or the member of a dashboard session. */
  keyId?: string;
  memberId?: string;
  /** The first failed delivery since the last successful one (epoch ms). */
  failingSince?: number;
  /** The last manual delivery (test, redeliver) queued: they are limited per monitor. */
  manualAt?: number;
}

/** One attempt of a delivery, as kept and shown. */
export interface AttemptRecord {
  at: number;
  status: number | null;
  ms: number;
  error?: string;
}

export interface Delivery {
  teamId: string;
  monitorId: string;
  eventId: string;
  type: PendingEvent['type'] | TeamEventType;
  body: string;
  timestamp: number;
  createdAt: number;
  attempts: number;
  lastStatus?: number | null;
  lastError?: string;
  ms?: number;
  nextAttemptAt?: number;
  /** The last ATTEMPT_LOG_MAX attempts, oldest first. */
  log?: AttemptRecord[];
  /** Who holds the delivery for an attempt, until when (./deliver.ts claims it before it POSTs). */
  leaseId?: string;
  leaseUntil?: number;
  /** Waiting for its paused monitor to be resumed: out of the due index meanwhile. */
  held?: boolean;
  /** Asked for by hand (test, redeliver): sent even while the monitor is paused. */
  manual?: boolean;
  /** Where its 24 h of retries count from: createdAt, or the time it was redelivered. */
  retryFrom?: number;
  /**
   * On AWS, a retry already on the delivery queue (a delayed message): the tick sweeps it only
   * after this time, as a safety net for a lost message. Locally unset: due at nextAttemptAt.
   */
  sweepAfter?: number;
  state: 'pending' | 'delivered' | 'failed';
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const monSk = monitorSk;
const stateSk = monitorStateSk;
const OVERFLOW_PREFIX = 'ovf_';
/** An overflow item shares the delivery's key scheme under its own prefix (out of the deliveries' listing). */
const dlvSk = (monitorId: string, eventId: string) => (eventId.startsWith(OVERFLOW_PREFIX) ? overflowSk(monitorId, eventId) : deliverySk(monitorId, eventId));
const COUNT_SK = MONITOR_COUNT_SK;
const T = () => config.eventsTable;
export const isOverflowId = (eventId: string) => eventId.startsWith(OVERFLOW_PREFIX);

function monitorItem(m: Monitor): Record<string, unknown> {
  return {
    pk: teamPk(m.teamId),
    sk: monSk(m.monitorId),
    ...m,
    ...(m.status === 'active' ? { duePk: MONITOR_DUE, dueSk: dueSk(m.nextPollAt, m.teamId, m.monitorId) } : {}),
  };
}

const strip = <T>(item: Record<string, unknown>): T => {
  const { pk: _pk, sk: _sk, duePk: _g, dueSk: _s, expiresAt: _e, ...rest } = item;
  return rest as T;
};

/** One TransactWriteItems: the state change and the events it produced land together or not at all. */
export async function writeTogether(items: TransactItem[]): Promise<void> {
  if (items.length > TRANSACTION_MAX_ITEMS) throw new Error(`a transaction of ${items.length} items`);
  await db().send(new TransactWriteCommand({ TransactItems: items }));
}
export const TRANSACTION_MAX_ITEMS = 100;
export const TRANSACTION_MAX_BYTES = 4 * 1024 * 1024;

/** The team's monitor count: created from its monitors the first time it is needed (teams from before it was kept). */
async function ensureMonitorCount(teamId: string): Promise<void> {
  const res = await db().send(new GetCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: COUNT_SK }, ConsistentRead: true }));
  if (res.Item) return;
  const count = (await listMonitors(teamId)).length;
  await conditionally(() => db().send(new PutCommand({ TableName: T(), Item: { pk: teamPk(teamId), sk: COUNT_SK, count }, ConditionExpression: 'attribute_not_exists(pk)' })));
}

/**
 * A new monitor, within the team's limit: the count is taken conditionally in the same transaction
 * as the monitor's Put, so creates at once never pass the limit. False when the team is at it.
 */
export async function createMonitor(m: Monitor, limit: number): Promise<boolean> {
  await ensureMonitorCount(m.teamId);
  return conditionally(() =>
    writeTogether([
      { Update: { TableName: T(), Key: { pk: teamPk(m.teamId), sk: COUNT_SK }, UpdateExpression: 'ADD #c :one', ConditionExpression: '#c < :limit', ExpressionAttributeNames: { '#c': 'count' }, ExpressionAttributeValues: { ':one': 1, ':limit': limit } } },
      { Put: { TableName: T(), Item: monitorItem(m), ConditionExpression: 'attribute_not_exists(pk)' } },
    ]),
  );
}

/** For tests and tools that set a monitor up directly (no limit, no count). */
export async function putMonitor(m: Monitor): Promise<void> {
  await db().send(new PutCommand({ TableName: T(), Item: monitorItem(m) }));
}

export async function getMonitor(teamId: string, monitorId: string): Promise<Monitor | null> {
  const res = await db().send(new GetCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: monSk(monitorId) }, ConsistentRead: true }));
  return res.Item ? strip<Monitor>(res.Item) : null;
}

export async function listMonitors(teamId: string): Promise<Monitor[]> {
  const items = await queryAll({ TableName: T(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', ExpressionAttributeValues: { ':pk': teamPk(teamId), ':p': MONITOR_PREFIX } });
  return items.map((i) => strip<Monitor>(i));
}

/** Deletes a monitor and gives its place back in the team's count (one transaction); its seen state goes too. */
export async function deleteMonitor(teamId: string, monitorId: string): Promise<boolean> {
  await ensureMonitorCount(teamId);
  const gone = await conditionally(() =>
    writeTogether([
      { Delete: { TableName: T(), Key: { pk: teamPk(teamId), sk: monSk(monitorId) }, ConditionExpression: 'attribute_exists(pk)' } },
      { Update: { TableName: T(), Key: { pk: teamPk(teamId), sk: COUNT_SK }, UpdateExpression: 'ADD #c :minus', ConditionExpression: '#c > :zero', ExpressionAttributeNames: { '#c': 'count' }, ExpressionAttributeValues: { ':minus': -1, ':zero': 0 } } },
    ]),
  );
  if (gone) await db().send(new DeleteCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: stateSk(monitorId) } }));
  return gone;
}

/** What a monitor's polls have seen; before its first poll, no baseline. */
export async function getWatchState(teamId: string, monitorId: string): Promise<WatchState> {
  const res = await db().send(new GetCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: stateSk(monitorId) }, ConsistentRead: true }));
  return (res.Item?.state as WatchState | undefined) ?? { baseline: false };
}

/** For tools that set a monitor's state up directly (the bench). */
export async function putWatchState(teamId: string, monitorId: string, state: WatchState): Promise<void> {
  await db().send(new PutCommand(watchStatePut(teamId, monitorId, state).Put!));
}

/** The Put of a monitor's seen state, for a poll's transaction. */
export function watchStatePut(teamId: string, monitorId: string, state: WatchState): TransactItem {
  return { Put: { TableName: T(), Item: { pk: teamPk(teamId), sk: stateSk(monitorId), state } } };
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
  const pages = paginateQuery(
    { client: db(), pageSize: Math.min(limit, 1000) },
    { TableName: T(), IndexName: DUE_INDEX.name, KeyConditionExpression: '#p = :p AND #s <= :now', ExpressionAttributeNames: { '#p': DUE_INDEX.partitionKey, '#s': DUE_INDEX.sortKey }, ExpressionAttributeValues: { ':p': partition, ':now': `${new Date(now).toISOString()}#~` } },
  );
  for await (const page of pages) {
    out.push(...(page.Items ?? []));
    if (out.length >= limit) break;
  }
  return out.slice(0, limit);
}

function deliveryItem(d: Delivery): Record<string, unknown> {
  return {
    pk: teamPk(d.teamId),
    sk: dlvSk(d.monitorId, d.eventId),
    ...d,
    ...(d.state === 'pending' && d.nextAttemptAt !== undefined && !d.held ? { duePk: DELIVERY_DUE, dueSk: dueSk(d.sweepAfter ?? d.nextAttemptAt, d.teamId, d.monitorId, d.eventId) } : {}),
    expiresAt: Math.floor(d.createdAt / 1000) + DELIVERY_DAYS * 86_400,
  };
}

export function eventBody(event: PendingEvent, at: number): string {
  return JSON.stringify({ type: event.type, timestamp: new Date(at).toISOString(), data: event.data });
}

/** A new pending delivery of `event`, due at `at` (here, beside its item, so writing one needs none of the sending side: ./deliver.ts). */
export function newDelivery(m: Pick<Monitor, 'teamId' | 'monitorId'>, event: PendingEvent, eventId: string, at: number, extra: Pick<Delivery, 'manual'> = {}): Delivery {
  return { teamId: m.teamId, monitorId: m.monitorId, eventId, type: event.type, body: eventBody(event, at), timestamp: at, createdAt: at, attempts: 0, nextAttemptAt: at, state: 'pending', ...extra };
}

/** The Put of a new delivery, for a transaction: never over an existing one (a retried step re-creates the same id). */
export function deliveryPut(d: Delivery): TransactItem {
  return { Put: { TableName: T(), Item: deliveryItem(d), ConditionExpression: 'attribute_not_exists(pk)' } };
}
export const itemBytes = (d: Delivery) => Buffer.byteLength(JSON.stringify(deliveryItem(d)));

/** Writes a delivery whole. `leaseId`: only while that lease holds it (the attempt that took it). False when refused. */
export async function putDelivery(d: Delivery, opts: { leaseId?: string; unlessPending?: boolean } = {}): Promise<boolean> {
  const condition = opts.leaseId !== undefined ? { ConditionExpression: 'leaseId = :lease', ExpressionAttributeValues: { ':lease': opts.leaseId } } : opts.unlessPending ? { ConditionExpression: 'attribute_exists(pk) AND #st <> :pending', ExpressionAttributeNames: { '#st': 'state' }, ExpressionAttributeValues: { ':pending': 'pending' } } : {};
  return conditionally(() => db().send(new PutCommand({ TableName: T(), Item: deliveryItem(d), ...condition })));
}

/**
 * Takes a due delivery for one attempt: pending, due, and not held by a live lease; it is then
 * held until now + leaseMs under a new lease id. The delivery as taken, or null when another
 * attempt holds it, it is settled, held, or not due yet.
 */
export async function claimDelivery(teamId: string, monitorId: string, eventId: string, now: number, leaseId: string, leaseMs: number): Promise<Delivery | null> {
  try {
    const res = await db().send(
      new UpdateCommand({
        TableName: T(),
        Key: { pk: teamPk(teamId), sk: dlvSk(monitorId, eventId) },
        UpdateExpression: 'SET leaseId = :lease, leaseUntil = :until',
        ConditionExpression: 'attribute_exists(pk) AND #st = :pending AND attribute_not_exists(held) AND nextAttemptAt <= :now AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
        ExpressionAttributeNames: { '#st': 'state' },
        ExpressionAttributeValues: { ':lease': leaseId, ':until': now + leaseMs, ':pending': 'pending', ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const item = res.Attributes!;
    return (item.expiresAt as number) * 1000 > Date.now() ? strip<Delivery>(item) : null;
  } catch (err) {
    if (isConditionalFailure(err)) return null;
    throw err;
  }
}

export async function getDelivery(teamId: string, monitorId: string, eventId: string): Promise<Delivery | null> {
  const res = await db().send(new GetCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: dlvSk(monitorId, eventId) }, ConsistentRead: true }));
  return res.Item && (res.Item.expiresAt as number) * 1000 > Date.now() ? strip<Delivery>(res.Item) : null;
}

/** A monitor's (an endpoint's, a job's) deliveries of the last 7 days (the sender's listing: shared/webhooks/store.ts). */
export async function listDeliveries(teamId: string, monitorId: string, limit = 100): Promise<Delivery[]> {
  return (await senderDeliveries(teamId, monitorId, limit)) as Delivery[];
}

/** A monitor's deliveries held while it is paused (every page). */
export async function heldDeliveries(teamId: string, monitorId: string): Promise<Delivery[]> {
  const items = await queryAll({ TableName: T(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', FilterExpression: 'held = :t', ExpressionAttributeValues: { ':pk': teamPk(teamId), ':p': deliveriesPrefix(monitorId), ':t': true } });
  return items.map((i) => strip<Delivery>(i));
}

export async function dueDeliveries(now: number, limit = 100): Promise<{ teamId: string; monitorId: string; eventId: string }[]> {
  return (await duePage(DELIVERY_DUE, now, limit)).map((i) => ({ teamId: i.teamId as string, monitorId: i.monitorId as string, eventId: i.eventId as string }));
}

/**
 * Events of one poll beyond a transaction's limits: packed (brotli JSON) into overflow items the
 * same transaction writes, due at once; the delivery side turns each into its deliveries
 * (./deliver.ts expandOverflow), which keep their derived ids.
 */
export interface Overflow {
  teamId: string;
  monitorId: string;
  eventId: string;
  createdAt: number;
  deliveries: Delivery[];
}
export const OVERFLOW_MAX_BYTES = 350 * 1024;

export function overflowPut(o: Overflow): TransactItem {
  const packed = brotliCompressSync(Buffer.from(JSON.stringify(o.deliveries)));
  if (packed.length > OVERFLOW_MAX_BYTES) throw new Error(`an overflow item of ${packed.length} bytes`);
  return {
    Put: {
      TableName: T(),
      Item: { pk: teamPk(o.teamId), sk: dlvSk(o.monitorId, o.eventId), teamId: o.teamId, monitorId: o.monitorId, eventId: o.eventId, createdAt: o.createdAt, packed, state: 'pending', duePk: DELIVERY_DUE, dueSk: dueSk(o.createdAt, o.teamId, o.monitorId, o.eventId), expiresAt: Math.floor(o.createdAt / 1000) + DELIVERY_DAYS * 86_400 },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export async function getOverflow(teamId: string, monitorId: string, eventId: string): Promise<Overflow | null> {
  const res = await db().send(new GetCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: dlvSk(monitorId, eventId) }, ConsistentRead: true }));
  if (!res.Item || res.Item.state !== 'pending') return null;
  const deliveries = JSON.parse(brotliDecompressSync(Buffer.from(res.Item.packed as Uint8Array)).toString('utf8')) as Delivery[];
  return { teamId, monitorId, eventId, createdAt: res.Item.createdAt as number, deliveries };
}

/** An expanded overflow item leaves the due index (its TTL removes it). */
export async function overflowDone(teamId: string, monitorId: string, eventId: string): Promise<void> {
  await db().send(new UpdateCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: dlvSk(monitorId, eventId) }, UpdateExpression: 'SET #st = :done REMOVE #dp, #ds', ExpressionAttributeNames: { '#st': 'state', '#dp': DUE_INDEX.partitionKey, '#ds': DUE_INDEX.sortKey }, ExpressionAttributeValues: { ':done': 'delivered' } }));
}

/** The due-index keys that follow a change: a pause leaves the index, a resume enters it at its next poll, a new slot moves it. */
function dueIndexChange(teamId: string, monitorId: string, fields: Partial<Monitor>): Record<string, unknown> {
  if (fields.status === 'paused') return { duePk: undefined, dueSk: undefined };
  if (fields.status === 'active') {
    if (fields.nextPollAt === undefined) throw new Error('a resumed monitor needs its next poll time');
    return { duePk: MONITOR_DUE, dueSk: dueSk(fields.nextPollAt, teamId, monitorId) };
  }
  return fields.nextPollAt !== undefined ? { dueSk: dueSk(fields.nextPollAt, teamId, monitorId) } : {};
}

type MonitorFields = Partial<Omit<Monitor, 'teamId' | 'monitorId' | 'createdAt'>>;
/**
 * Which existing monitor a change may apply to: any; the one still active and due at a slot; the
 * one still at a slot, active or paused meanwhile (a poll's outcome: a pause made during the poll
 * stands, and its events are held); or an active one.
 */
export type MonitorCondition = { whileDueAt: number } | { atSlot: number } | { whileActive: true } | undefined;

/** The UpdateItem input of a monitor change (for updateMonitor, or a transaction's Update). */
export function monitorUpdate(teamId: string, monitorId: string, fields: MonitorFields, when?: MonitorCondition) {
  const all: Record<string, unknown> = { ...fields, ...dueIndexChange(teamId, monitorId, fields), updatedAt: new Date().toISOString() };
  const condition: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> } =
    when === undefined
      ? { expression: 'attribute_exists(pk)' }
      : 'whileDueAt' in when
        ? { expression: 'attribute_exists(pk) AND #due = :due AND #status = :active', names: { '#due': 'nextPollAt', '#status': 'status' }, values: { ':due': when.whileDueAt, ':active': 'active' } }
        : 'atSlot' in when
          ? { expression: 'attribute_exists(pk) AND #due = :due', names: { '#due': 'nextPollAt' }, values: { ':due': when.atSlot } }
          : { expression: 'attribute_exists(pk) AND #status = :active', names: { '#status': 'status' }, values: { ':active': 'active' } };
  const absent = Object.keys(all).filter((k) => all[k] === undefined);
  return itemUpdate(T(), { pk: teamPk(teamId), sk: monSk(monitorId), ...all }, { absent, condition });
}

/**
 * Set (or, for undefined, remove) some attributes of a monitor without rewriting it, so that changes
 * made at once by a PATCH, a poll and a delivery never undo each other. Keeps the due index in step.
 * The monitor as it now is, or null when it is gone, or when `when` does not hold (another poll
 * claimed the slot, or it was paused).
 */
export async function updateMonitor(teamId: string, monitorId: string, fields: MonitorFields, when?: MonitorCondition | number): Promise<Monitor | null> {
  const condition = typeof when === 'number' ? { whileDueAt: when } : when;
  try {
    const res = await db().send(new UpdateCommand({ ...monitorUpdate(teamId, monitorId, fields, condition), ReturnValues: 'ALL_NEW' }));
    return strip<Monitor>(res.Attributes!);
  } catch (err) {
    if (isConditionalFailure(err)) return null;
    throw err;
  }
}

/** The transaction item of a monitor change. */
export const monitorUpdateItem = (teamId: string, monitorId: string, fields: MonitorFields, when?: MonitorCondition): TransactItem => ({ Update: monitorUpdate(teamId, monitorId, fields, when) });
