import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { operationGetEvent } from '../http/proxy-event';
import { operation } from '../operations';
import type { Log } from '../runtime/log';
import { diff } from './events';
import { enqueue, pause } from './deliver';
import { type DueMonitor, type Monitor, getMonitor, getWatchState, putWatchState, updateMonitor } from './store';

/**
 * One poll of a monitor: a request of its operation through the operation's own handler (the same
 * pipeline: validation, cache, reservation, scrape, settle, record), made as the authorizer would
 * make it (the team in requestContext.authorizer) and marked as the monitor's poll, which accepts a
 * cached result no older than half the interval (0 credits) and is recorded as a monitor poll in
 * usage and request history. Then the events (./events.ts) are queued for delivery.
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

export function pollEvent(m: Monitor, requestId = randomUUID()): APIGatewayProxyEvent {
  return operationGetEvent(operation(m.operation).path, m.params, {
    requestId,
    authorizer: { teamId: m.teamId, keyId: m.keyId ?? '', monitorId: m.monitorId, monitorMaxAgeSeconds: maxAgeFor(m.intervalSeconds) },
  });
}

export interface PollOutcome {
  status: number;
  events: string[];
}

/**
 * Polls the monitor due at `due.dueAt`. The claim of that slot is conditional on it (and on the
 * monitor being active), so a message the queue delivers twice, or sent again by a later tick while
 * the first waits in the queue, polls once: the others find the slot taken and do nothing.
 */
export async function pollMonitor(due: Pick<DueMonitor, 'teamId' | 'monitorId' | 'dueAt'>, now: number, log: Log, invoke: Invoke): Promise<PollOutcome | null> {
  const { teamId, monitorId } = due;
  const [m, seen] = await Promise.all([getMonitor(teamId, monitorId), getWatchState(teamId, monitorId)]);
  if (!m || m.status !== 'active' || m.nextPollAt !== due.dueAt) return null;
  // Claim the next slot first: a poll that fails still moves on to the next interval.
  const claim = { nextPollAt: now + m.intervalSeconds * 1000, lastPollAt: now };
  if (!(await updateMonitor(teamId, monitorId, claim, due.dueAt))) return null;
  const res = await invoke(m.operation, pollEvent(m));
  const body = JSON.parse(res.body) as { data?: Record<string, unknown>; error?: { code: string } };
  if (res.statusCode === 402 || res.statusCode === 404) {
    await pause(m, res.statusCode === 402 ? 'no_credits' : 'not_found', now, { lastPollStatus: res.statusCode });
    return { status: res.statusCode, events: ['monitor.paused'] };
  }
  if (res.statusCode !== 200 || !body.data) {
    await updateMonitor(teamId, monitorId, { lastPollStatus: res.statusCode });
    log.info('monitor poll failed', { monitorId, status: res.statusCode, code: body.error?.code });
    return { status: res.statusCode, events: [] };
  }
  const about = { monitorId: m.monitorId, operation: m.operation, params: m.params };
  const { events, state } = diff(m.operation, seen, body.data, about);
  const fresh = await updateMonitor(teamId, monitorId, { lastPollStatus: 200 });
  if (!fresh) return null; // deleted meanwhile
  // The state only when something changed (the first poll, something new): a quiet poll writes none of it.
  if (!isDeepStrictEqual(state, seen)) await putWatchState(teamId, monitorId, state);
  await enqueue(fresh, events, now);
  return { status: 200, events: events.map((e) => e.type) };
}
