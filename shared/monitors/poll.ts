import { createHash, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { operationGetEvent } from '../http/proxy-event';
import { operation } from '../operations';
import type { Log } from '../runtime/log';
import { diff, eventIdFor, eventKey } from './events';
import { newDelivery, outboxItems, pause } from './deliver';
import { type DueMonitor, type Monitor, getMonitor, getWatchState, monitorUpdateItem, updateMonitor, watchStatePut, writeTogether } from './store';
import { conditionally } from '../db/client';
import { ownerGone } from './owner';

/**
 * One poll of a monitor: a request of its operation through the operation's own handler (the same
 * pipeline: validation, cache, reservation, scrape, settle, record), made as the authorizer would
 * make it (the team in requestContext.authorizer) and marked as the monitor's poll, which accepts a
 * cached result no older than half the interval (0 credits) and is recorded as a monitor poll in
 * usage and request history. Then the new seen state and the events it found (./events.ts) are
 * written in one transaction with the move to the next slot (the outbox: ./deliver.ts).
 *
 * 402 (no credit left) and 404 (the watched thing is gone) pause the monitor (one monitor.paused);
 * any other error waits for the next interval.
 */
/**
 * How a poll reaches the operation's handler: in-process locally (dev/monitors.ts loads
 * functions/<id>.ts as the local gateway does); on AWS the worker invokes the operation's function.
 */
export type Invoke = (operationId: string, event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

/** Half the interval, in whole seconds (0: a 1-second interval always scrapes live). */
export const maxAgeFor = (intervalSeconds: number) => Math.floor(intervalSeconds / 2);

export function pollEvent(m: Monitor, requestId: string = randomUUID()): APIGatewayProxyEvent {
  return operationGetEvent(operation(m.operation).path, m.params, {
    requestId,
    authorizer: { teamId: m.teamId, keyId: m.keyId ?? '', monitorId: m.monitorId, monitorMaxAgeSeconds: maxAgeFor(m.intervalSeconds) },
  });
}

export interface PollOutcome {
  status: number;
  events: string[];
}

/** How long a poll holds its slot: more than the operation's own deadline; a poll that died leaves it to expire. */
export const POLL_LEASE_MS = 90_000;

/** The request id of a slot's poll: the same for every try of that slot, so the pipeline's reservation charges it once. */
export function pollRequestId(monitorId: string, dueAt: number): string {
  const h = createHash('sha256').update(`monitor-poll\n${monitorId}\n${dueAt}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/**
 * Polls the monitor due at `due.dueAt`. The slot is leased first (conditional on it, on the monitor
 * being active and on no live lease), so a message the queue delivers twice, or sent again by a
 * later tick while the first waits in the queue, polls once at a time. Nothing is final until the one
 * transaction that moves the monitor to its next slot (conditional on the slot) and writes the seen
 * state and the events (derived ids); a poll that fails before it leaves the slot due, and its retry
 * (after the lease) polls again with the same request id (charged once) and re-creates the same events.
 */
export async function pollMonitor(due: Pick<DueMonitor, 'teamId' | 'monitorId' | 'dueAt'>, now: number, log: Log, invoke: Invoke): Promise<PollOutcome | null> {
  const { teamId, monitorId, dueAt } = due;
  const [m, seen] = await Promise.all([getMonitor(teamId, monitorId), getWatchState(teamId, monitorId)]);
  if (!m || m.status !== 'active' || m.nextPollAt !== dueAt || (m.pollLeaseUntil ?? 0) > now) return null;
  // Its key revoked or its member removed: paused, and no request made.
  const gone = await ownerGone(m);
  if (gone) return (await pause(m, gone, dueAt, {}, { whileDueAt: dueAt })) ? { status: 0, events: ['monitor.paused'] } : null;
  if (!(await leaseSlot(m, dueAt, now))) return null;
  const res = await invoke(m.operation, pollEvent(m, pollRequestId(monitorId, dueAt)));
  const body = JSON.parse(res.body) as { data?: Record<string, unknown>; error?: { code: string } };
  const slot = { nextPollAt: now + m.intervalSeconds * 1000, lastPollAt: now, lastPollStatus: res.statusCode, pollLeaseUntil: undefined };
  if (res.statusCode === 402 || res.statusCode === 404) {
    const paused = await pause(m, res.statusCode === 402 ? 'no_credits' : 'not_found', dueAt, { lastPollAt: now, lastPollStatus: res.statusCode, pollLeaseUntil: undefined }, { whileDueAt: dueAt });
    return paused ? { status: res.statusCode, events: ['monitor.paused'] } : null;
  }
  if (res.statusCode !== 200 || !body.data) {
    // A failed poll still moves on to the next interval.
    if (!(await updateMonitor(teamId, monitorId, slot, { atSlot: dueAt }))) return null;
    log.info('monitor poll failed', { monitorId, status: res.statusCode, code: body.error?.code });
    return { status: res.statusCode, events: [] };
  }
  const about = { monitorId, operation: m.operation, params: m.params };
  const { events, state } = diff(m.operation, seen, body.data, about);
  const deliveries = events.map((e, i) => newDelivery(m, e, eventIdFor(monitorId, e.type, dueAt, eventKey(e, i)), now));
  // The state only when something changed (the first poll, something new): a quiet poll writes none of it.
  const changes = [monitorUpdateItem(teamId, monitorId, slot, { atSlot: dueAt }), ...(isDeepStrictEqual(state, seen) ? [] : [watchStatePut(teamId, monitorId, state)])];
  // One write: a quiet poll's is a single conditional update, anything more one transaction.
  const written = changes.length === 1 && !deliveries.length ? Boolean(await updateMonitor(teamId, monitorId, slot, { atSlot: dueAt })) : await conditionally(() => writeTogether(outboxItems(deliveries, changes, now)));
  if (!written) return null; // the slot was taken meanwhile, or the monitor deleted
  return { status: 200, events: events.map((e) => e.type) };
}

/** Holds the slot for this poll (conditional: still due there, active, no live lease). */
async function leaseSlot(m: Monitor, dueAt: number, now: number): Promise<boolean> {
  const lease = monitorUpdateItem(m.teamId, m.monitorId, { pollLeaseUntil: now + POLL_LEASE_MS }, { whileDueAt: dueAt }).Update!;
  lease.ConditionExpression = `${lease.ConditionExpression} AND (attribute_not_exists(#lease) OR #lease <= :now)`;
  lease.ExpressionAttributeNames = { ...lease.ExpressionAttributeNames, '#lease': 'pollLeaseUntil' };
  lease.ExpressionAttributeValues = { ...lease.ExpressionAttributeValues, ':now': now };
  return conditionally(() => writeTogether([{ Update: lease }]));
}
