import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import type { JOB_EVENTS } from '../api/job-routes';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
export type JobEventType = (typeof JOB_EVENTS)[number];

/**
 * The writes that announce a job's event (job.succeeded, job.failed, job.paused) to the team's
 * webhook endpoints, for the job-state transaction that makes it true (shared/jobs/engine.ts): the
 * state and its event are written together, and the event's key is derived from the job and the
 * change, so a retried transition re-creates the same event.
 *
 * NOT WIRED YET. The account webhook engine (issue 39, branch h/acctwh) is to export from
 * shared/webhooks/events.ts the producer `teamEventWrites(teamId, type, eventKey, data)` returning the
 * TransactWriteItems of its outbox. It did not exist when this was written (docs/jobs.md, "Webhooks");
 * once merged, this body becomes:
 *
 *     return teamEventWrites(teamId, type, eventKey, data);
 *
 * (importing it from shared/webhooks/events.ts, and shared/webhooks placed below shared/jobs in
 * test/unit/layers.test.ts). Until then no job event is sent: this returns no write, and nothing
 * pretends otherwise (GET /v1/jobs/{id} shows the state the event would announce).
 */
export function jobEventWrites(teamId: string, type: JobEventType, eventKey: string, data: Record<string, unknown>): TransactItem[] {
  void teamId;
  void type;
  void eventKey;
  void data;
  return [];
}
