/**
 * Bulk jobs in the OpenAPI document (docs/jobs.md), merged in by scripts/openapi.ts:
 * - `paths`: one operation per route of JOB_ROUTES (shared/jobs/api.ts), with the request bodies the
 *   API checks and the shape publicJob answers (its property list typed by that function);
 * (the job.* events' bodies are the team event catalogue's: scripts/openapi-webhooks.ts).
 */
import { JOB_EVENTS, JOB_ROUTES, JOB_STATES, MAX_INLINE_INPUTS, MAX_PAGES_PER_INPUT, MAX_UPLOAD_BYTES, MAX_UPLOAD_INPUTS } from '../shared/api/job-routes';
import { CACHE_MAX_AGE_SECONDS } from '../shared/http/validation';
import type { publicJob } from '../shared/jobs/api';
import { RESULT_FILES } from '../shared/jobs/results';
import { routedOperations } from '../shared/operations';
import { type RouteSpec, routeOperation } from './openapi-routes';

type Json = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const obj = (properties: Json, required = Object.keys(properties)): Json => ({ type: 'object', required, properties });
const dateTime = { type: 'string', format: 'date-time' };
const count = { type: 'integer', minimum: 0 };
const nullable = (type: string, more: Json = {}) => ({ type: [type, 'null'], ...more });

const jobProperties: Record<keyof ReturnType<typeof publicJob>, Json> = {
  id: { type: 'string', description: 'The job id (`job_…`)' },
  operation: { type: 'string', enum: routedOperations().map((o) => o.id) },
  state: { type: 'string', enum: [...JOB_STATES], description: 'queued, running, paused (no credit left: resume after a top-up), succeeded, failed (no input succeeded), cancelled' },
  inputs: obj({
    total: { ...count, description: 'Inputs to run (after de-duplication, without the invalid ones)' },
    done: count,
    failed: count,
    skipped: { ...count, description: 'Not run: the job was cancelled first' },
    left: count,
    inFlight: count,
    duplicates: { ...count, description: 'Inputs that named the same thing as an earlier one (one cache key): run once' },
    invalid: { ...count, description: 'Invalid inputs skipped (skipInvalid), listed in the errors file' },
  }),
  pages: { ...count, description: 'Pages answered' },
  items: { ...count, description: 'Items in the result files' },
  creditsCharged: { ...count, description: 'Credits the job cost: 1 per live page; equal to the ledger' },
  options: obj({ pages: { oneOf: [{ type: 'integer', minimum: 1, maximum: MAX_PAGES_PER_INPUT }, { const: 'all' }] }, cache_max_age: nullable('string') }),
  createdAt: dateTime,
  startedAt: nullable('string', { format: 'date-time' }),
  finishedAt: nullable('string', { format: 'date-time' }),
  estimatedSecondsLeft: nullable('integer', { description: 'At the pace so far; null before the first input ends or when not running' }),
  pausedReason: { type: 'string', enum: ['no_credits'], description: 'While paused' },
  error: { type: 'string', description: 'Why the job failed' },
  resultsReady: { type: 'boolean', description: 'The result files are written (GET /v1/jobs/{id}/results)' },
  destination: obj(
    {
      type: { const: 's3' },
      bucket: { type: 'string' },
      prefix: { type: 'string' },
      roleArn: { type: 'string' },
      state: { type: 'string', enum: ['pending', 'delivered', 'failed', 'retrying'], description: 'pending until the job ends; failed: the files could not be written there (they stay in the results bucket; POST /v1/jobs/{id}/destination/retry writes them again); retrying: such a retry is under way' },
      code: { type: 'string', enum: ['ROLE_NOT_ASSUMABLE', 'BUCKET_NOT_FOUND', 'WRITE_DENIED', 'DELIVERY_FAILED'], description: 'When failed' },
      message: { type: 'string', description: 'When failed: what AWS answered and what to check' },
      keys: { type: 'array', items: { type: 'string' }, description: 'When delivered: the keys written (<prefix>/<jobId>/<file>)' },
      at: dateTime,
    },
    ['type', 'bucket', 'prefix', 'roleArn', 'state'],
  ),
  webhook: obj(
    {
      url: { type: 'string', format: 'uri', description: "The job's own webhook (never its secret)" },
      events: { type: 'array', items: { type: 'string', enum: [...JOB_EVENTS] } },
      deliveries: { type: 'array', items: ref('WebhookDeliveryWithAttempts'), description: 'Its deliveries of the job\'s events, newest first (the engine\'s: state, attempts, last status, next retry, the last 20 attempts); not in the list of jobs' },
    },
    ['url', 'events'],
  ),
};

export const jobSchemas: Json = {
  Job: obj(jobProperties, Object.keys(jobProperties).filter((k) => !['pausedReason', 'error', 'destination', 'webhook'].includes(k))),
  JobWithWebhookSecret: {
    allOf: [
      ref('Job'),
      obj({
        webhook: obj({ secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$', description: "The job's webhook signing secret (Standard Webhooks form): in the 201 answer only, when the job has a webhook (never again, not on an Idempotency-Key replay)" } }),
      }, []),
    ],
  },
  JobFile: obj({ name: { type: 'string', enum: [...RESULT_FILES] }, contentType: { type: 'string' }, url: { type: 'string', format: 'uri', description: 'Pre-signed, short-lived' }, expiresAt: dateTime }),
};

const input = { oneOf: [{ type: 'string', description: "The operation's main parameter" }, { type: 'object', additionalProperties: { type: 'string' }, description: 'Query parameters' }] };
const submitBody = {
  type: 'object',
  required: ['operation'],
  additionalProperties: false,
  properties: {
    operation: { type: 'string', enum: routedOperations().map((o) => o.id) },
    inputs: { type: 'array', minItems: 1, maxItems: MAX_INLINE_INPUTS, items: input, description: `Up to ${MAX_INLINE_INPUTS} inputs inline (or inputsUpload)` },
    inputsUpload: { type: 'string', pattern: '^upl_[0-9a-f]{24}$', description: `An uploaded JSON Lines or CSV file of up to ${MAX_UPLOAD_INPUTS} inputs (POST /v1/jobs/uploads)` },
    pages: { oneOf: [{ type: 'integer', minimum: 1, maximum: MAX_PAGES_PER_INPUT }, { const: 'all' }], default: 1, description: `Pages per input; "all" follows the cursor (at most ${MAX_PAGES_PER_INPUT}), items de-duplicated by id` },
    cache_max_age: { type: 'string', enum: Object.keys(CACHE_MAX_AGE_SECONDS), description: 'Accept cached answers this old (0 credits)' },
    format: { type: 'string', enum: ['jsonl', 'csv'], description: 'Both are written either way' },
    skipInvalid: { type: 'boolean', default: false, description: 'Run the valid inputs, list the invalid ones in the errors file (else 422)' },
    destination: {
      type: 'object',
      additionalProperties: false,
      required: ['type', 'bucket', 'roleArn', 'externalId'],
      description: "Also write the result files to your own S3 bucket when the job ends, as your role (docs/jobs.md): under <prefix>/<jobId>/. The files stay in the results bucket either way",
      properties: {
        type: { const: 's3' },
        bucket: { type: 'string', minLength: 3, maxLength: 63, pattern: '^[a-z0-9][a-z0-9.-]*[a-z0-9]$' },
        prefix: { type: 'string', maxLength: 512, description: 'No leading slash, no ".." part' },
        roleArn: { type: 'string', pattern: '^arn:aws(-cn|-us-gov)?:iam::[0-9]{12}:role/.+$' },
        externalId: { type: 'string', description: "Your team's external ID (GET /v1/jobs/destination)" },
      },
    },
    webhook: {
      description: "The job's own webhook (docs/jobs.md): its events (job.succeeded, job.failed, job.paused) are POSTed there too, signed (Standard Webhooks) with a secret shown once in the 201 answer. Public https only (checked after name resolution)",
      oneOf: [
        { type: 'string', format: 'uri', maxLength: 2048, description: 'The URL: every event of the job' },
        {
          type: 'object',
          additionalProperties: false,
          required: ['url'],
          properties: { url: { type: 'string', format: 'uri', maxLength: 2048 }, events: { type: 'array', minItems: 1, items: { type: 'string', enum: [...JOB_EVENTS] }, description: 'Which of the job\'s events (all three unless given)' } },
        },
      ],
    },
  },
};

type RouteName = (typeof JOB_ROUTES)[number]['name'];
const job = obj({ job: ref('Job') });
const ALWAYS = [400, 401, 429, 503];
const SPECS: Record<RouteName, RouteSpec> = {
  submit: {
    summary: "Submit a job: every input is checked by the operation's own rules first, then run at the platform's pace; an Idempotency-Key header makes a retried POST return the same job (200, without the webhook secret)",
    body: submitBody,
    ok: [201, obj({ job: ref('JobWithWebhookSecret') }), "The new job (with its webhook's signing secret, when it has a webhook: this answer only)"],
    errors: [...ALWAYS, 422],
  },
  list: { summary: "The team's jobs, newest first (at most 50)", ok: [200, obj({ jobs: { type: 'array', items: ref('Job') } }), 'The jobs'], errors: ALWAYS },
  upload: {
    summary: `A pre-signed URL to PUT an input file to (JSON Lines, or CSV with a header row naming the parameters; up to ${MAX_UPLOAD_INPUTS} inputs, ${MAX_UPLOAD_BYTES / 1024 / 1024} MB)`,
    body: { type: 'object', additionalProperties: false, properties: { format: { type: 'string', enum: ['jsonl', 'csv'], default: 'jsonl' } } },
    bodyOptional: true,
    ok: [201, obj({ upload: obj({ id: { type: 'string' }, url: { type: 'string', format: 'uri' }, method: { const: 'PUT' }, headers: { type: 'object', additionalProperties: { type: 'string' } }, format: { type: 'string', enum: ['jsonl', 'csv'] }, expiresAt: dateTime, maxBytes: count, maxInputs: count }) }), 'Where to PUT the file; then POST /v1/jobs with inputsUpload'],
    errors: [...ALWAYS, 422],
  },
  destination: {
    summary: "Your team's external ID for delivery to your own bucket (made once, the same every time), the principals your role must trust and a trust policy to paste",
    ok: [
      200,
      obj({
        destination: obj({
          type: { const: 's3' },
          externalId: { type: 'string' },
          principals: { type: 'array', items: { type: 'string' }, description: "The service's roles that end jobs (the job worker's and the jobs API's): your role's trust policy names them (empty off AWS)" },
          sessionNamePrefix: { type: 'string', description: 'Sessions are named <prefix><jobId>' },
          available: { type: 'boolean', description: 'Whether this deployment can deliver (off AWS only with JOBS_S3_ENDPOINT)' },
          trustPolicy: nullable('object'),
        }),
      }),
      'The external ID',
    ],
    errors: ALWAYS,
  },
  get: { summary: 'One job of the team: state, inputs done / failed / left, pages, items, credits, times, an estimate of the time left', ok: [200, job, 'The job'], errors: [...ALWAYS, 404] },
  cancel: { summary: 'Cancel a job: no input starts after this (nothing further charged); the files of what ran are written', ok: [200, job, 'The job, cancelled'], errors: [...ALWAYS, 404] },
  resume: { summary: 'Resume a paused job (after a top-up): its set-aside inputs run first', ok: [200, job, 'The job, running'], errors: [...ALWAYS, 404] },
  retryDestination: {
    summary: "Deliver an ended job's files to its destination again, after a failed delivery (once your role's trust policy or your bucket is fixed): the same keys, under the destination's prefix and the job's id; answers the job with the new outcome (delivered, or failed with its code); one retry at a time",
    ok: [200, job, 'The job, its destination delivered or failed again'],
    errors: [...ALWAYS, 404],
  },
  results: { summary: 'Short-lived pre-signed URLs of the result files (items JSONL and CSV, errors JSONL and CSV), kept 7 days', ok: [200, obj({ files: { type: 'array', items: ref('JobFile') }, keptUntil: dateTime }), 'The files'], errors: [...ALWAYS, 404] },
};

const ERROR_TEXT: Record<number, string> = {
  400: "A body that is not a JSON object, a job that cannot make this change (cancel an ended job, resume one not paused, results before the end; retry the delivery of a job that has not ended, has no destination, is delivered already or has a retry under way), or a state-changing request on a dashboard session without this site's Origin (BAD_REQUEST)",
  401: 'No API key or session, or an unknown or revoked key, or an ended session (UNAUTHORIZED)',
  404: "The team has no such job: another team's job is 404 too; for a delivery retry, also files past their 7 days (NOT_FOUND)",
  422: 'Invalid body or inputs (VALIDATION_ERROR, with details: `line <n>.<field>` for each problem of an input, at most 20; `destination.<field>` for a malformed destination or another external ID than the team\'s; `webhook` or `webhook.url` for a URL that is not public https after name resolution)',
  429: "Over the API's request rate (RATE_LIMITED, with Retry-After)",
  503: 'The service is at capacity (SERVICE_UNAVAILABLE)',
};

const camelName = (name: string) => `jobs${name.charAt(0).toUpperCase()}${name.slice(1)}`;

export function jobPaths(): Json {
  const paths: Record<string, Json> = {};
  for (const route of JOB_ROUTES) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = routeOperation(route, SPECS[route.name], ERROR_TEXT, {
      operationId: camelName(route.name),
      description: "Free: each input's pages are charged as requests when they run (1 credit per live page). Team-scoped: another team's job is 404. With a dashboard session, a state-changing request must also carry this site's Origin.",
      tags: ['jobs'],
    });
  }
  return paths;
}
