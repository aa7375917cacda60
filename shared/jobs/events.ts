import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { JOB_EVENTS } from '../api/job-routes';
import { teamEventWrites } from '../webhooks/events';
import type { Job } from './store';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
export type JobEventType = (typeof JOB_EVENTS)[number];

/**
 * The writes that announce a job's event (job.succeeded, job.failed, job.paused) to the team's
 * webhook endpoints (the account webhook engine: shared/webhooks/events.ts, docs/webhooks.md), for
 * the job-state transaction that makes it true (shared/jobs/engine.ts): the state and its event are
 * written together, and the event's key is derived from the job and the change (`eventKey`), so a
 * retried transition re-creates the same event id (its `webhook-id`). The body's `data` is the
 * catalogue's: the job's id, its state and its counts. A job with its own webhook (POST /v1/jobs
 * `webhook`) names itself on the same outbox item (directTo): the delivery side sends the event
 * there too, with the same id and body, when the webhook wants the type.
 */
export function jobEventWrites(job: Pick<Job, 'teamId' | 'jobId' | 'webhook'>, type: JobEventType, eventKey: string, data: { jobId: string; state: string; counts: Record<string, number> }): TransactItem[] {
  return teamEventWrites(job.teamId, type, eventKey, data, Date.now(), job.webhook ? job.jobId : undefined);
}
