import { Duration } from 'aws-cdk-lib/core';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { acknowledge } from './acknowledge';

/**
 * The SQS queues of the service's workers (the monitors' poll and delivery queues, the jobs' input
 * queues): encrypted, TLS only, redriven to a dead-letter queue after 5 receives, with the visibility
 * timeout AWS advises for an SQS event source (at least six times the worker's timeout).
 */

/** `microblog-a` -> `MicroblogA`: a platform's part of a construct id. */
export const pascalCase = (name: string) => name.replace(/(^|-)(\w)/g, (_m, _dash, c: string) => c.toUpperCase());

/** A dead-letter queue: kept 14 days. */
export function deadLetterQueue(scope: Construct, id: string): sqs.Queue {
  const dlq = new sqs.Queue(scope, id, { enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED, retentionPeriod: Duration.days(14) });
  acknowledge(dlq, 'AwsSolutions-SQS3', 'This is a dead-letter queue itself.');
  return dlq;
}

/** A worker's queue, redriven to `dlq` after 5 receives. */
export function workQueue(scope: Construct, id: string, dlq: sqs.IQueue, workerTimeout: Duration): sqs.Queue {
  return new sqs.Queue(scope, id, { enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED, visibilityTimeout: Duration.seconds(6 * workerTimeout.toSeconds()), deadLetterQueue: { queue: dlq, maxReceiveCount: 5 } });
}

/**
 * One queue per platform (`<prefix><Platform>`), all redriven to `dlq`: each gets an event source of
 * its own, whose maximum concurrency is that platform's bound, so a platform's slow upstream holds only
 * its own share. The workers find a platform's queue by the JSON map `queueUrls` (platform -> URL).
 */
export function platformQueues(scope: Construct, prefix: string, platforms: readonly string[], dlq: sqs.IQueue, workerTimeout: Duration): { platform: string; q: sqs.Queue }[] {
  return platforms.map((platform) => ({ platform, q: workQueue(scope, `${prefix}${pascalCase(platform)}`, dlq, workerTimeout) }));
}

/** The JSON map of platform -> queue URL a worker's environment names (MONITOR_POLL_QUEUES, JOB_QUEUES). */
export const queueUrls = (queues: readonly { platform: string; q: sqs.IQueue }[]): string => JSON.stringify(Object.fromEntries(queues.map(({ platform, q }) => [platform, q.queueUrl])));
