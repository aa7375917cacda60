import { SQSClient, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSBatchResponse } from 'aws-lambda';
import { atCapacity } from '../http/errors';
import { type OperationId, operation } from '../operations';
import { config } from '../runtime/config';
import { invokeProxy } from '../runtime/invoke';
import { logger } from '../runtime/log';
import { loadSecrets } from '../runtime/secrets';
import { type Engine, type InputRef, type Invoke, MAX_ATTEMPTS, giveUpInput, runInput } from './engine';
import { currentLocalQueue } from './local-queue';

/**
 * The job engine on AWS (infra/jobs.ts; docs/jobs.md, "Why SQS and Lambda"), the monitors' shape:
 *
 *   jobs API / worker  -> the inputs handed out (shared/jobs/engine.ts pump) to their platform's input queue
 *   input worker (SQS) -> runInput: the pages through the operation's own function (invoked), the part file,
 *                         the input's record; then the next inputs to the queue; the last one writes the files
 *
 * Each platform's queue has its own event source, whose maximum concurrency is that platform's bound
 * for jobs; every queue has a dead-letter queue, and an input on its last receive that still fails is
 * recorded as failed (giveUpInput) instead, so a job always ends.
 */
const sqs = new SQSClient({});

const queueOf = (platform: string): string => {
  const url = config.jobQueues[platform];
  if (!url) throw new Error(`no job queue for ${platform}`);
  return url;
};

const invokeFunction: Invoke = async (operationId, event) => {
  const name = config.jobFunctions[operationId];
  if (!name) throw new Error(`no function for ${operationId}`);
  return invokeProxy(name, event);
};

const awsEngine: Engine = {
  invoke: invokeFunction,
  log: logger,
  send: async (job, refs) => {
    const url = queueOf(operation(job.operation as OperationId).platform);
    for (let i = 0; i < refs.length; i += 10) {
      const batch = refs.slice(i, i + 10);
      const res = await sqs.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: batch.map((r, j) => ({ Id: String(j), MessageBody: JSON.stringify(r) })) }));
      if (res.Failed?.length) throw new Error(`queue refused ${res.Failed.length} inputs: ${res.Failed[0]!.Code}`);
    }
  },
};

/** The engine of this process: SQS when the stack configured queues, else the local stack's in-process queue. */
export function jobEngine(): Engine {
  if (Object.keys(config.jobQueues).length) return awsEngine;
  const local = currentLocalQueue();
  if (!local) throw atCapacity('no job queue configured (JOB_QUEUES) and no in-process queue');
  return local.engine;
}

/** An SQS batch of inputs, side by side, each failing alone (ReportBatchItemFailures). */
export async function inputWorker(event: SQSEvent): Promise<SQSBatchResponse> {
  await loadSecrets();
  const failures: { itemIdentifier: string }[] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      const attempt = Number(record.attributes?.ApproximateReceiveCount ?? 1) || 1;
      let ref: InputRef | undefined;
      try {
        ref = JSON.parse(record.body) as InputRef;
        await runInput(ref, attempt, awsEngine);
      } catch (err) {
        // The last receive before the dead-letter queue: the input is recorded as failed, so the job ends.
        if (ref && attempt >= MAX_ATTEMPTS) {
          await giveUpInput(ref, (err as Error).message, awsEngine).catch((e: unknown) => {
            logger.error('job input not recorded', { error: (e as Error).message });
            failures.push({ itemIdentifier: record.messageId });
          });
          return;
        }
        logger.warn('job input failed; the queue retries it', { error: (err as Error).message, attempt });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
}
