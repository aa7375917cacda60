import { randomUUID } from 'node:crypto';
import type { Log } from '../runtime/log';
import { type EventType, type PendingEvent, eventIdFor, overflowIdFor } from './events';
import { openSecret, sign } from '../webhooks/secret';
import {
  type AttemptRecord,
  type Delivery,
  type Monitor,
  type MonitorCondition,
  type PausedReason,
  ATTEMPT_LOG_MAX,
  OVERFLOW_MAX_BYTES,
  TRANSACTION_MAX_BYTES,
  TRANSACTION_MAX_ITEMS,
  claimDelivery,
  deliveryPut,
  getMonitor,
  getOverflow,
  heldDeliveries,
  eventBody,
  isOverflowId,
  itemBytes,
  newDelivery,
  monitorUpdateItem,
  overflowDone,
  overflowPut,
  putDelivery,
  updateMonitor,
  writeTogether,
} from './store';
import { postWebhook, DELIVERY_TIMEOUT_MS } from '../api/webhook-url';
import { conditionally } from '../db/client';
import { BROADCAST_SCOPE, FANOUT_SENDER, broadcastSubscribers, getEndpoint, getJobWebhook, getTeamEvent, isEndpointId, isJobSenderId, listEndpoints, teamEventExpanded } from '../webhooks/store';

/**
 * The delivery engine, by the Standard Webhooks convention (and Svix's way of running it):
 *
 * - An event is written once, in the same DynamoDB transaction as the state change that produced it
 *   (the outbox: a poll's new seen state, a pause), with an id derived from what it announces
 *   (./events.ts eventIdFor), so a step retried after any failure re-creates the same ids.
 * - Each attempt first takes the delivery (a conditional update: pending, due, no live lease; a lease
 *   until now + DELIVERY_LEASE_MS); only the holder POSTs, and records the outcome on condition that
 *   it still holds the lease. Every attempt is kept (time, status, latency, error: the last 20).
 * - POST {type, timestamp, data} with webhook-id (the event id, the same on every attempt: receivers
 *   de-duplicate on it), webhook-timestamp (the attempt's, seconds) and webhook-signature (./secret.ts;
 *   during a rotation's overlap, the new and the old signature). A non-2xx answer or none within 10 s
 *   is tried again after RETRY_WAITS_S (the first within 30 s) for up to 24 h; then the delivery is
 *   `failed` (it can be redelivered by hand for 7 days). Deliveries are free.
 * - A paused monitor holds its pending deliveries (out of the due index) until it is resumed; a
 *   deleted one fails them. monitor.paused and deliveries asked for by hand are sent while paused.
 * - A monitor whose deliveries have failed for 3 days running is paused (one monitor.paused).
 */
export const RETRY_WAITS_S = [10, 60, 300, 1800, 3600, 7200, 14_400, 28_800];
export const RETRY_FOR_MS = 24 * 3600_000;
export const PAUSE_AFTER_FAILING_MS = 3 * 86_400_000;
/** How long an attempt holds its delivery: well over the POST's 10 s, so a live attempt never loses it. */
export const DELIVERY_LEASE_MS = DELIVERY_TIMEOUT_MS * 6;

export { eventBody, newDelivery };

type TransactItem = Parameters<typeof writeTogether>[0][number];

/**
 * The transaction items of `deliveries` beside `others` (the state change): each delivery its own
 * Put while the transaction stays within DynamoDB's limits (100 items, 4 MB; a margin kept), the
 * rest packed into overflow items the same transaction writes.
 */
export function outboxItems(deliveries: Delivery[], others: TransactItem[], at: number): TransactItem[] {
  const items = [...others];
  let bytes = others.reduce((n, i) => n + Buffer.byteLength(JSON.stringify(i)), 0);
  const budget = TRANSACTION_MAX_BYTES - 512 * 1024;
  let i = 0;
  for (; i < deliveries.length; i++) {
    const size = itemBytes(deliveries[i]!);
    // Room for the overflow items the rest may need.
    if (items.length + 1 > TRANSACTION_MAX_ITEMS - 10 || bytes + size > budget) break;
    items.push(deliveryPut(deliveries[i]!));
    bytes += size;
  }
  const rest = deliveries.slice(i);
  const d0 = deliveries[0];
  for (let part = 0, start = 0; start < rest.length; part++) {
    // Pack as many as fit one overflow item (compressed JSON; an event is at most 256 KB itself).
    let end = start + 1;
    let raw = itemBytes(rest[start]!);
    while (end < rest.length && raw + itemBytes(rest[end]!) <= OVERFLOW_MAX_BYTES * 3) raw += itemBytes(rest[end++]!);
    items.push(overflowPut({ teamId: d0!.teamId, monitorId: d0!.monitorId, eventId: overflowIdFor(d0!.monitorId, at, rest[start]!.eventId), createdAt: at, deliveries: rest.slice(start, end) }));
    start = end;
  }
  return items;
}

/**
 * Pause a monitor and tell its receiver once (monitor.paused), in one transaction. Resumed only by
 * hand. `when`: which monitor it may pause (default: an active one, so a pause happens once).
 * `at`: the time the event belongs to (a poll's slot), part of its derived id. Null when it is gone or not pausable.
 */
export async function pause(m: Monitor, reason: PausedReason, at: number, also: Partial<Monitor> = {}, when: MonitorCondition = { whileActive: true }): Promise<Monitor | null> {
  const event: PendingEvent = { type: 'monitor.paused', data: { monitorId: m.monitorId, operation: m.operation, params: m.params, reason } };
  const d = newDelivery(m, event, eventIdFor(m.monitorId, 'monitor.paused', at, reason), at);
  const fields: Partial<Monitor> = { ...also, status: 'paused', pausedReason: reason };
  if (!(await conditionally(() => writeTogether([monitorUpdateItem(m.teamId, m.monitorId, fields, when), deliveryPut(d)])))) return null;
  return { ...m, ...fields };
}

/**
 * Who a delivery is sent for: a monitor (its deliveries are keyed by its id), a team webhook
 * endpoint (by the endpoint's id, `ep_…`) or a job's own webhook (by the job's id, `job_…`:
 * shared/webhooks/store.ts). The engine needs of each only
 * where to POST, the secrets to sign with, and whether it holds its deliveries for now.
 */
interface Sender {
  url: string;
  secret: string;
  previousSecret?: string;
  previousSecretExpiresAt?: number;
  /** Paused (a monitor) or disabled (an endpoint): its deliveries wait, but for those it sends anyway. */
  holds: (d: Delivery) => boolean;
  monitor?: Monitor;
}

async function senderOf(teamId: string, senderId: string): Promise<Sender | null> {
  if (isEndpointId(senderId)) {
    const e = await getEndpoint(teamId, senderId);
    return e && { url: e.url, secret: e.secret, previousSecret: e.previousSecret, previousSecretExpiresAt: e.previousSecretExpiresAt, holds: (d) => e.status === 'disabled' && !d.manual };
  }
  if (isJobSenderId(senderId)) {
    const w = await getJobWebhook(teamId, senderId);
    return w && { url: w.url, secret: w.secret, holds: () => false };
  }
  const m = await getMonitor(teamId, senderId);
  return m && { url: m.webhookUrl, secret: m.secret, previousSecret: m.previousSecret, previousSecretExpiresAt: m.previousSecretExpiresAt, holds: (d) => m.status === 'paused' && d.type !== 'monitor.paused' && !d.manual, monitor: m };
}

/** The signature header: the current secret's, and during a rotation's overlap the previous one's too. */
async function signatures(s: Sender, id: string, ts: number, body: string): Promise<string> {
  const sigs = [sign(await openSecret(s.secret), id, ts, body)];
  // Wall-clock time, as the rotation set it (and as webhook-timestamp is).
  if (s.previousSecret && (s.previousSecretExpiresAt ?? 0) > Date.now()) sigs.push(sign(await openSecret(s.previousSecret), id, ts, body));
  return sigs.join(' ');
}

/**
 * One attempt of a due delivery: take it, POST it, record the outcome and the next attempt, if any.
 * The delivery as it now is; null when there was nothing for this attempt to do (another holds it,
 * it is settled, not due, or gone).
 */
export async function attempt(teamId: string, monitorId: string, eventId: string, now: number, log: Log, requeue?: (d: Delivery, delaySeconds: number) => Promise<boolean>): Promise<Delivery | null> {
  if (isOverflowId(eventId)) {
    await expandOverflow(teamId, monitorId, eventId);
    return null;
  }
  if (monitorId === FANOUT_SENDER) {
    await expandTeamEvent(teamId, eventId);
    return null;
  }
  const leaseId = randomUUID();
  const d = await claimDelivery(teamId, monitorId, eventId, now, leaseId, DELIVERY_LEASE_MS);
  if (!d) return null;
  const sender = await senderOf(teamId, monitorId);
  const m = sender?.monitor;
  const settle = (next: Delivery) => putDelivery({ ...next, leaseId: undefined, leaseUntil: undefined }, { leaseId });
  if (!sender) {
    const failed: Delivery = { ...d, state: 'failed', nextAttemptAt: undefined, sweepAfter: undefined, lastError: isEndpointId(monitorId) ? 'endpoint deleted' : isJobSenderId(monitorId) ? 'job expired' : 'monitor deleted' };
    await settle(failed);
    return failed;
  }
  if (sender.holds(d)) {
    // Kept until the monitor is resumed (the endpoint enabled) (releaseHeld), out of the due index meanwhile.
    const held: Delivery = { ...d, held: true, sweepAfter: undefined };
    await settle(held);
    return held;
  }
  const ts = Math.floor(Date.now() / 1000);
  const headers = { 'webhook-id': d.eventId, 'webhook-timestamp': String(ts), 'webhook-signature': await signatures(sender, d.eventId, ts, d.body) };
  const res = await postWebhook(sender.url, headers, d.body);
  const ok = res.status !== null && res.status >= 200 && res.status < 300;
  const attempts = d.attempts + 1;
  const wait = RETRY_WAITS_S[Math.min(attempts - 1, RETRY_WAITS_S.length - 1)]! * 1000;
  const retry = !ok && now + wait <= (d.retryFrom ?? d.createdAt) + RETRY_FOR_MS;
  const record: AttemptRecord = { at: now, status: res.status, ms: res.ms, ...(res.error ? { error: res.error } : {}) };
  const next: Delivery = {
    ...d,
    attempts,
    lastStatus: res.status,
    ms: res.ms,
    lastError: res.error,
    log: [...(d.log ?? []), record].slice(-ATTEMPT_LOG_MAX),
    state: ok ? 'delivered' : retry ? 'pending' : 'failed',
    nextAttemptAt: retry ? now + wait : undefined,
    sweepAfter: undefined,
  };
  // On AWS a retry due within the queue's 15-minute delay limit goes back on the queue, delayed.
  if (retry && requeue && wait <= 900_000 && (await requeue(next, wait / 1000).catch(() => false))) next.sweepAfter = now + wait + 900_000;
  if (!(await settle(next))) log.warn('webhook attempt outcome not recorded: the lease was lost', { monitorId, eventId });
  log.info('webhook attempt', { monitorId, eventId, type: d.type, attempts, status: res.status, ms: res.ms, error: res.error });
  if (!m) return next;
  if (ok && m.failingSince !== undefined) await updateMonitor(m.teamId, m.monitorId, { failingSince: undefined });
  if (!ok) {
    const since = m.failingSince ?? now;
    if (m.status === 'active' && now - since >= PAUSE_AFTER_FAILING_MS) await pause(m, 'deliveries_failing', since);
    else if (m.failingSince === undefined) await updateMonitor(m.teamId, m.monitorId, { failingSince: since });
  }
  return next;
}

/** An overflow item's deliveries written (each once: a repeated expansion skips those already there), then the item retired. */
export async function expandOverflow(teamId: string, monitorId: string, eventId: string): Promise<void> {
  const o = await getOverflow(teamId, monitorId, eventId);
  if (!o) return;
  for (const d of o.deliveries) await conditionally(() => writeTogether([deliveryPut(d)]));
  await overflowDone(teamId, monitorId, eventId);
}

/**
 * A team event's outbox item (shared/webhooks/events.ts) turned into one delivery per endpoint that
 * wants its type and existed when the event was produced — the team's endpoints, or for a broadcast every team's (the WHSUB listing) —
 * and one to the job's own webhook for a job's event that names it (directTo) when it wants the type, each
 * with the event's id, body and createdAt (each Put conditional: a repeated expansion skips those
 * already there), then the item retired.
 */
export async function expandTeamEvent(scope: string, eventId: string): Promise<Delivery[]> {
  const e = await getTeamEvent(scope, eventId);
  if (!e || e.state !== 'pending') return [];
  const wanted = scope === BROADCAST_SCOPE ? await broadcastSubscribers(e.type) : (await listEndpoints(scope)).filter((ep) => (ep.types as string[]).includes(e.type));
  // An endpoint receives the events produced after it was made, not older ones it happens to be in time for.
  const endpoints = wanted.filter((ep) => Date.parse(ep.createdAt) <= e.createdAt);
  const direct = e.directTo && scope !== BROADCAST_SCOPE ? await getJobWebhook(scope, e.directTo) : null;
  const senders = [...endpoints.map((ep) => ({ teamId: ep.teamId, id: ep.endpointId })), ...(direct && direct.types.includes(e.type) ? [{ teamId: direct.teamId, id: direct.jobId }] : [])];
  const made = senders.map((s): Delivery => ({ teamId: s.teamId, monitorId: s.id, eventId, type: e.type, body: e.body, timestamp: e.createdAt, createdAt: e.createdAt, attempts: 0, nextAttemptAt: e.createdAt, state: 'pending' }));
  for (const d of made) await conditionally(() => writeTogether([deliveryPut(d)]));
  await teamEventExpanded(scope, eventId);
  return made;
}

/** After a resume: the held deliveries due now, or failed when their 24 h of retries are over. */
export async function releaseHeld(teamId: string, monitorId: string, now: number): Promise<number> {
  const held = await heldDeliveries(teamId, monitorId);
  for (const d of held) {
    const open = now <= (d.retryFrom ?? d.createdAt) + RETRY_FOR_MS;
    await putDelivery({ ...d, held: undefined, ...(open ? { nextAttemptAt: now } : { state: 'failed', nextAttemptAt: undefined, lastError: 'held while the monitor was paused, past the 24 h retry window' }) });
  }
  return held.length;
}

/** Manual deliveries (test, redeliver): one per monitor every MANUAL_GAP_MS. */
export const MANUAL_GAP_MS = 5_000;

/**
 * Queues a delivery asked for by hand, due now, for the worker (never sent inside the API request):
 * the monitor's `manualAt` is taken conditionally in the same transaction, so at most one per
 * MANUAL_GAP_MS. The seconds to wait when refused, else 0. `again`: an existing delivery sent again
 * (same webhook-id, its first createdAt and expiry kept), refused while it is still pending.
 */
export async function queueManual(m: Monitor, d: Delivery, now: number, again: boolean): Promise<number> {
  return queueManualBy(monitorUpdateItem(m.teamId, m.monitorId, { manualAt: now }, undefined), async () => (await getMonitor(m.teamId, m.monitorId))?.manualAt ?? null, d, now, again);
}

/**
 * queueManual for any sender: `rate` is the sender's own update setting manualAt = now (a monitor's,
 * an endpoint's), taken here on condition of the gap; `manualAt` reads it back after a refusal (null: the sender is gone).
 */
export async function queueManualBy(rate: TransactItem, manualAt: () => Promise<number | null | undefined>, d: Delivery, now: number, again: boolean): Promise<number> {
  const update = rate.Update!;
  update.ConditionExpression = `${update.ConditionExpression} AND (attribute_not_exists(#manualAt) OR #manualAt <= :gapStart)`;
  update.ExpressionAttributeNames = { ...update.ExpressionAttributeNames, '#manualAt': 'manualAt' };
  update.ExpressionAttributeValues = { ...update.ExpressionAttributeValues, ':gapStart': now - MANUAL_GAP_MS };
  const write = again
    ? putDeliveryItemUnlessPending({ ...d, state: 'pending', manual: true, held: undefined, nextAttemptAt: now, retryFrom: now, sweepAfter: undefined, leaseId: undefined, leaseUntil: undefined })
    : deliveryPut(d);
  if (await conditionally(() => writeTogether([rate, write]))) return 0;
  const last = await manualAt();
  return last !== null && last !== undefined && last > now - MANUAL_GAP_MS ? Math.max(1, Math.ceil((last + MANUAL_GAP_MS - now) / 1000)) : -1;
}

function putDeliveryItemUnlessPending(d: Delivery): TransactItem {
  const put = deliveryPut(d).Put!;
  return { Put: { ...put, ConditionExpression: 'attribute_exists(pk) AND #st <> :pending', ExpressionAttributeNames: { '#st': 'state' }, ExpressionAttributeValues: { ':pending': 'pending' } } };
}

/** The derived id of a manual event (a test): one per request. */
export const manualEventId = (monitorId: string, type: EventType, now: number, requestId: string) => eventIdFor(monitorId, type, now, requestId);
