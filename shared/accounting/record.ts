import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client';
import type { ErrorCode } from '../http/errors';
import type { Log } from '../runtime/log';
import { answerMetrics } from '../runtime/metrics';
import { outcomeUpdate } from './outcome-counts';
import { type Answered, historyUpdate } from './request-history';
import { usageUpdate } from './usage';

/**
 * The record of one answer, written once, after the answer is decided, by `recordAnswer`: its
 * request record (history item), its team's daily usage count and its operation's outcome count,
 * as plain writes sent together (never in a transaction), and its metrics. A live answer's request
 * record rode in its settle transaction already (./ledger.ts), so `historyWritten` leaves it out.
 * An answer without a known team (401) has only its outcome count and metrics. A failure to record
 * is logged and counted (metric `recordFailed`), never the reason an answer fails.
 */
export interface Answer {
  /** Absent when no team is known (the request never passed the authorizer). */
  teamId?: string;
  keyId?: string;
  /** Set on a monitor's poll (shared/monitors/poll.ts). */
  monitorId?: string;
  operation: string;
  requestId: string;
  status: number;
  code: ErrorCode | null;
  credits: number;
  cached: boolean;
  /** Scraped and served. */
  live: boolean;
  /** From the function's start until the answer was decided. */
  ms: number;
  /** When it was decided (epoch ms). */
  time: number;
  upstreamCalls: number;
  /** List items dropped for a missing required value (drift). */
  dropped?: number;
}

/** The history item's view of an answer (a team's). */
export const answered = (a: Omit<Answer, 'live' | 'upstreamCalls' | 'dropped'> & { teamId: string }): Answered => ({
  teamId: a.teamId,
  keyId: a.keyId,
  ...(a.monitorId ? { monitorId: a.monitorId } : {}),
  operation: a.operation,
  requestId: a.requestId,
  status: a.status,
  code: a.code,
  credits: a.credits,
  cached: a.cached,
  ms: a.ms,
  time: a.time,
});

export async function recordAnswer(a: Answer, log: Log, { historyWritten = false, refundFailed = false } = {}): Promise<void> {
  const team = a.teamId !== undefined ? { ...a, teamId: a.teamId } : undefined;
  type Write = [item: string, input: ConstructorParameters<typeof UpdateCommand>[0]];
  const writes: Write[] = [['outcome', outcomeUpdate({ operation: a.operation, status: a.status, code: a.code, cached: a.cached, live: a.live, ms: a.ms, upstreamCalls: a.upstreamCalls, dropped: a.dropped, at: a.time })]];
  if (team) writes.push(['usage', usageUpdate(team)]);
  if (team && !historyWritten) writes.push(['history', historyUpdate(answered(team))]);
  const sent = await Promise.allSettled(writes.map(([, input]) => db().send(new UpdateCommand(input))));
  const failed = sent.flatMap((s, i) => (s.status === 'rejected' ? [{ item: writes[i]![0], error: (s.reason as Error)?.name }] : []));
  if (failed.length) log.warn('answer not fully recorded', { failed });
  const outcome = a.code ?? (a.cached ? 'cache_hit' : 'live');
  answerMetrics(a.operation, outcome, a.upstreamCalls, a.ms, [...(failed.length ? ['recordFailed'] : []), ...(refundFailed ? ['refundFailed'] : [])]);
}
