import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { SQSClient, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { config } from '../runtime/config';
import { invokeProxy } from '../runtime/invoke';
import { logger } from '../runtime/log';
import { loadSecrets } from '../runtime/secrets';
import { attempt, expandTeamEvent } from './deliver';
import { FANOUT_SENDER } from '../webhooks/store';
import type { Invoke } from './poll';
import { pollMonitor } from './poll';
import { DELIVERIES_PER_TEAM, limiterBy, platformOf, runMinuteChecks } from './scheduler';
import type { BuildStatus } from '../webhooks/status-watch';
import { type Delivery, dueDeliveries, dueMonitors, listDeliveries } from './store';

/**
 * The monitors' engine on AWS (infra/monitors.ts), the same code as the local scheduler's:
 *
 *   tick (every minute)  -> due monitors to their platform's poll queue; due (or stranded) deliveries to the delivery queue
 *   poll worker (SQS)    -> pollMonitor: invokes the operation's own function (the same pipeline), queues its events;
 *                           a batch's polls side by side, each failing alone (Powertools Batch: reportBatchItemFailures)
 *   delivery worker (SQS) -> one attempt; a retry within 15 min goes back on the queue with DelaySeconds
 *
 * Every queue has a dead-letter queue; each poll queue's event source has its own maximum
 * concurrency (POLLS_PER_PLATFORM), so one platform's slow upstream never holds another's polls.
 */
const sqs = new SQSClient({});
/** MONITOR_POLL_QUEUES: JSON, platform -> its poll queue's URL (infra/monitors.ts). */
const pollQueueOf = (platform: string): string => {
  const url = config.monitorPollQueues[platform];
  if (!url) throw new Error(`no poll queue for ${platform}`);
  return url;
};
const DELIVERY_QUEUE = () => config.monitorDeliveryQueueUrl!;

type Ref = Record<string, string | number>;
/**
 * Sends the references, 10 a call. An entry SQS refuses is logged, not retried here: what it names
 * is still in its due partition, so the next tick sends it again.
 */
async function sendAll(queueUrl: string, refs: Ref[]): Promise<void> {
  for (let i = 0; i < refs.length; i += 10) {
    const batch = refs.slice(i, i + 10);
    const res = await sqs.send(new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: batch.map((r, j) => ({ Id: String(j), MessageBody: JSON.stringify(r) })) }));
    if (res.Failed?.length) logger.warn('queue refused messages; the next tick sends them again', { queueUrl, failed: res.Failed.length, code: res.Failed[0]!.Code });
  }
}

export async function tickHandler(buildStatus?: BuildStatus): Promise<{ polls: number; deliveries: number }> {
  const now = Date.now();
  // The account events' safety nets: a credits crossing a crash left unannounced; a change of an operation's public status.
  if (buildStatus) await runMinuteChecks(now, logger, buildStatus);
  const [monitors, deliveries] = await Promise.all([dueMonitors(now, 20_000), dueDeliveries(now, 20_000)]);
  const byPlatform = new Map<string, Ref[]>();
  for (const { teamId, monitorId, operation, dueAt } of monitors) {
    const platform = platformOf({ operation });
    (byPlatform.get(platform) ?? byPlatform.set(platform, []).get(platform)!).push({ teamId, monitorId, dueAt });
  }
  await Promise.all([
    ...[...byPlatform].map(([platform, due]) => sendAll(pollQueueOf(platform), due)),
    sendAll(DELIVERY_QUEUE(), deliveries),
  ]);
  return { polls: monitors.length, deliveries: deliveries.length };
}

/** The operation's function, by name from MONITOR_FUNCTIONS (JSON: operation id -> function name). */
const invokeFunction: Invoke = async (operationId, event) => {
  const name = config.monitorFunctions[operationId];
  if (!name) throw new Error(`no function for ${operationId}`);
  return invokeProxy(name, event);
};

/**
 * An SQS batch by Powertools Batch (BatchProcessor, processPartialResponse): the records handled
 * side by side, one that throws logged and reported alone (ReportBatchItemFailures), so SQS
 * retries it and not the others. A batch whose every record failed is answered the same way (each
 * listed), not thrown: the queue retries them all either way.
 */
const processor = new BatchProcessor(EventType.SQS);
async function eachRecord(event: SQSEvent, context: Context | undefined, what: string, handle: (body: Record<string, unknown>) => Promise<void>): Promise<SQSBatchResponse> {
  await loadSecrets();
  const record = async (r: SQSRecord) => {
    try {
      // A body that is not JSON fails alone too.
      await handle(JSON.parse(r.body) as Record<string, unknown>);
    } catch (err) {
      logger.error(`${what} failed`, { error: (err as Error).message });
      throw err;
    }
  };
  return processPartialResponse(event, record, processor, { ...(context ? { context } : {}), throwOnFullBatchFailure: false });
}

export const pollWorker = (event: SQSEvent, context?: Context) =>
  eachRecord(event, context, 'monitor poll', async (body) => {
    const due = body as { teamId: string; monitorId: string; dueAt: number };
    const polled = await pollMonitor(due, Date.now(), logger, invokeFunction);
    if (!polled?.events.length) return;
    const fresh = (await listDeliveries(due.teamId, due.monitorId, 20)).filter((d) => d.state === 'pending' && d.attempts === 0);
    await sendAll(DELIVERY_QUEUE(), fresh.map((d) => ({ teamId: d.teamId, monitorId: d.monitorId, eventId: d.eventId })));
  });

const requeue = async (d: Delivery, delaySeconds: number) => {
  await sqs.send(new SendMessageCommand({ QueueUrl: DELIVERY_QUEUE(), DelaySeconds: Math.ceil(delaySeconds), MessageBody: JSON.stringify({ teamId: d.teamId, monitorId: d.monitorId, eventId: d.eventId }) }));
  return true;
};

/** A batch's attempts side by side, at most DELIVERIES_PER_TEAM of one team at once. */
export const deliveryWorker = (event: SQSEvent, context?: Context) => {
  const teamLimit = limiterBy(DELIVERIES_PER_TEAM);
  return eachRecord(event, context, 'delivery', async (body) => {
    const { teamId, monitorId, eventId } = body as Record<string, string>;
    if (monitorId === FANOUT_SENDER) {
      // A team event: its deliveries written, then queued at once (the tick would find them within a minute).
      const made = await expandTeamEvent(String(teamId), String(eventId));
      await sendAll(DELIVERY_QUEUE(), made.map((d) => ({ teamId: d.teamId, monitorId: d.monitorId, eventId: d.eventId })));
      return;
    }
    await teamLimit(String(teamId))(() => attempt(teamId!, monitorId!, eventId!, Date.now(), logger, requeue));
  });
};
