import { randomBytes } from 'node:crypto';
import type { Log } from '../runtime/log';
import type { PendingEvent } from './events';
import { openSecret, sign } from './secret';
import { type Delivery, type Monitor, getDelivery, getMonitor, putDelivery, updateMonitor } from './store';
import { postWebhook } from './webhook-url';

/**
 * Delivery, by the Standard Webhooks convention: POST {type, timestamp, data} with webhook-id (the
 * event id, the same on every attempt: receivers de-duplicate on it), webhook-timestamp (the
 * attempt's, seconds) and webhook-signature (./secret.ts). At least once: a non-2xx answer or none
 * within 10 s is tried again after RETRY_WAITS_S (the first within 30 s), for up to 24 h; then the
 * delivery is `failed` (it can be redelivered by hand for 7 days). Deliveries are free.
 * A monitor whose deliveries have failed for 3 days running is paused (one monitor.paused).
 */
export const RETRY_WAITS_S = [10, 60, 300, 1800, 3600, 7200, 14_400, 28_800];
export const RETRY_FOR_MS = 24 * 3600_000;
export const PAUSE_AFTER_FAILING_MS = 3 * 86_400_000;

/** Time-ordered (newest sorts last), unique: `msg_` + ms in base36 + random. */
export const newEventId = (now: number) => `msg_${now.toString(36).padStart(9, '0')}${randomBytes(8).toString('hex')}`;

export function eventBody(event: PendingEvent, now: number): string {
  return JSON.stringify({ type: event.type, timestamp: new Date(now).toISOString(), data: event.data });
}

/** Store the events as pending deliveries, due now. */
export async function enqueue(m: Monitor, events: PendingEvent[], now: number): Promise<Delivery[]> {
  const out: Delivery[] = [];
  for (const e of events) {
    const eventId = newEventId(now);
    const d: Delivery = { teamId: m.teamId, monitorId: m.monitorId, eventId, type: e.type, body: eventBody(e, now), timestamp: now, createdAt: now, attempts: 0, nextAttemptAt: now, state: 'pending' };
    await putDelivery(d);
    out.push(d);
  }
  return out;
}

/** One attempt of a pending delivery; records its outcome and the next attempt, if any. */
export async function attempt(teamId: string, monitorId: string, eventId: string, now: number, log: Log, requeue?: (d: Delivery, delaySeconds: number) => Promise<boolean>): Promise<Delivery | null> {
  const [d, m] = await Promise.all([getDelivery(teamId, monitorId, eventId), getMonitor(teamId, monitorId)]);
  if (!d) return null;
  if (d.state !== 'pending') return d; // a duplicate queue message of a settled delivery
  if (!m) {
    await putDelivery({ ...d, state: 'failed', nextAttemptAt: undefined, lastError: 'monitor deleted' });
    return null;
  }
  const ts = Math.floor(Date.now() / 1000);
  const headers = { 'webhook-id': d.eventId, 'webhook-timestamp': String(ts), 'webhook-signature': sign(openSecret(m.secret), d.eventId, ts, d.body) };
  const res = await postWebhook(m.webhookUrl, headers, d.body);
  const ok = res.status !== null && res.status >= 200 && res.status < 300;
  const attempts = d.attempts + 1;
  const wait = RETRY_WAITS_S[Math.min(attempts - 1, RETRY_WAITS_S.length - 1)]! * 1000;
  const retry = !ok && now + wait <= d.createdAt + RETRY_FOR_MS;
  const next: Delivery = {
    ...d,
    attempts,
    lastStatus: res.status,
    ms: res.ms,
    ...(res.error ? { lastError: res.error } : { lastError: undefined }),
    state: ok ? 'delivered' : retry ? 'pending' : 'failed',
    nextAttemptAt: retry ? now + wait : undefined,
  };
  // On AWS a retry due within the queue's 15-minute delay limit goes back on the queue, delayed.
  if (retry && requeue && wait <= 900_000 && (await requeue(next, wait / 1000).catch(() => false))) next.sweepAfter = now + wait + 900_000;
  else next.sweepAfter = undefined;
  await putDelivery(next);
  log.info('webhook attempt', { monitorId, eventId, type: d.type, attempts, status: res.status, ms: res.ms, error: res.error });
  if (ok && m.failingSince !== undefined) await updateMonitor(m.teamId, m.monitorId, { failingSince: undefined });
  if (!ok) {
    const since = m.failingSince ?? now;
    if (m.status === 'active' && now - since >= PAUSE_AFTER_FAILING_MS) await pause(m, 'deliveries_failing', now);
    else if (m.failingSince === undefined) await updateMonitor(m.teamId, m.monitorId, { failingSince: since });
  }
  return next;
}

/** Pause a monitor and tell its receiver once (monitor.paused). Resumed only by hand. Null when it is gone. */
export async function pause(m: Monitor, reason: NonNullable<Monitor['pausedReason']>, now: number, also: Pick<Partial<Monitor>, 'lastPollStatus'> = {}): Promise<Monitor | null> {
  const paused = await updateMonitor(m.teamId, m.monitorId, { ...also, status: 'paused', pausedReason: reason });
  if (paused) await enqueue(paused, [{ type: 'monitor.paused', data: { monitorId: m.monitorId, operation: m.operation, params: m.params, reason } }], now);
  return paused;
}

/** Send again (a new attempt series of the same event, same webhook-id). */
export async function redeliver(d: Delivery, now: number): Promise<Delivery> {
  const again: Delivery = { ...d, state: 'pending', nextAttemptAt: now, createdAt: now };
  await putDelivery(again);
  return again;
}
