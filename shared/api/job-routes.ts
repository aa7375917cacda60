import type { RouteDef } from './routes';

/**
 * The bulk jobs API's routes (docs/jobs.md), written once: the function routes by them
 * (shared/jobs/api.ts), the local gateway serves them, the CDK stack adds one API Gateway method per
 * entry (infra/jobs.ts), and the OpenAPI document, client, CLI and dashboard follow them. Every route
 * answers the team's API key or a dashboard session (`caller: 'either'`, shared/api/router.ts).
 */
export const JOB_ROUTES = [
  // 1,000 inline inputs of up to ~1 KB each: the body may be larger than the other APIs'.
  { method: 'POST', path: '/v1/jobs', name: 'submit', caller: 'either', maxBodyBytes: 1024 * 1024 },
  { method: 'GET', path: '/v1/jobs', name: 'list', caller: 'either' },
  { method: 'POST', path: '/v1/jobs/uploads', name: 'upload', caller: 'either' },
  // Before /v1/jobs/{jobId}: the first route that matches answers.
  { method: 'GET', path: '/v1/jobs/destination', name: 'destination', caller: 'either' },
  { method: 'GET', path: '/v1/jobs/{jobId}', name: 'get', caller: 'either' },
  { method: 'POST', path: '/v1/jobs/{jobId}/cancel', name: 'cancel', caller: 'either' },
  { method: 'POST', path: '/v1/jobs/{jobId}/resume', name: 'resume', caller: 'either' },
  { method: 'GET', path: '/v1/jobs/{jobId}/results', name: 'results', caller: 'either' },
  // An ended job's files written to its destination again (after the customer fixed their role or bucket).
  { method: 'POST', path: '/v1/jobs/{jobId}/destination/retry', name: 'retryDestination', caller: 'either' },
] as const satisfies readonly RouteDef[];
export type JobRouteName = (typeof JOB_ROUTES)[number]['name'];

/** Inline inputs of one POST /v1/jobs, at most; an uploaded file holds up to MAX_UPLOAD_INPUTS. */
export const MAX_INLINE_INPUTS = 1000;
export const MAX_UPLOAD_INPUTS = 100_000;
/** The largest input file (JSON Lines or CSV) an upload may hold. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
/** `pages: "all"` follows the cursor at most this far per input. */
export const MAX_PAGES_PER_INPUT = 50;
export const JOB_STATES = ['queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];
/** The webhook events of a job (sent through the account webhook engine, docs/jobs.md). */
export const JOB_EVENTS = ['job.succeeded', 'job.failed', 'job.paused'] as const;
/** Result files are kept this long (the bucket's lifecycle rule; locally, as long as .local/ is). */
export const JOB_FILES_DAYS = 7;
/**
 * The header of a job's page whose charge the ledger holds (shared/pipeline.ts): charged by this
 * attempt, or by an earlier one of the same page (its request id), the answer then free. The job
 * counts one credit for it (shared/jobs/engine.ts), so its total is the ledger's.
 */
export const JOB_PAGE_CHARGED_HEADER = 'x-job-page-charged';
/**
 * Delivery to the customer's bucket (shared/jobs/destination.ts): every team's external ID starts
 * with this, and the worker's sessions in the customer's role are named `<prefix><jobId>`; the
 * worker's IAM policy allows AssumeRole only with both (infra/jobs.ts).
 */
export const EXTERNAL_ID_PREFIX = 'sda-';
export const SESSION_PREFIX = 'sda-';
