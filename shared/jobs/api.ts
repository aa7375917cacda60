import { randomBytes } from 'node:crypto';
import { JOB_EVENTS, JOB_FILES_DAYS, JOB_ROUTES, MAX_INLINE_INPUTS, MAX_PAGES_PER_INPUT, MAX_UPLOAD_BYTES, MAX_UPLOAD_INPUTS } from '../api/job-routes';
import { jsonApi, type Handlers, type TeamContext } from '../api/router';
import { webhookUrlProblem } from '../api/webhook-url';
import { ApiError, notFound, type ValidationDetail } from '../http/errors';
import { CACHE_MAX_AGE_SECONDS, invalidBody } from '../http/validation';
import { type Operation, routedOperations } from '../operations';
import { config } from '../runtime/config';
import { jobEngine } from './aws';
import { type Destination, SESSION_PREFIX, SESSION_SECONDS, deliver, destinationsAvailable, parseDestination, storedExternalId, teamExternalId } from './destination';
import { pump } from './engine';
import { files, resultKey, uploadKey } from './files';
import { type CheckedInputs, type UploadFormat, checkInputs, inputProblems, parseUpload } from './inputs';
import { CONTENT_TYPES, RESULT_FILES, invalidKey } from './results';
import { type Job, claimRedelivery, createJob, getJob, jobExpiry, jobOfIdempotencyKey, listJobs, moveJob, newJobId, settleRedelivery } from './store';
import { newSecret, sealSecret } from '../webhooks/secret';
import { publicDeliveryWithAttempts } from '../webhooks/shapes';
import { type DeliveryRecord, jobWebhookPut, senderDeliveries } from '../webhooks/store';

/**
 * The bulk jobs API (JOB_ROUTES; docs/jobs.md), served as the monitors API is: the team's API key or a
 * dashboard session, team-scoped (another team's job is simply 404), errors in the spec's shape, free
 * (the inputs' pages are charged as requests when they run). A job is checked whole before anything
 * runs: every input by its operation's own rules (422 with the line and field of each problem, at most
 * 20 details), unless `skipInvalid` runs the valid ones and lists the rest in its errors file.
 */
const NO_JOB = 'Your team has no job with this id';
const MAX_BODY_BYTES = 16 * 1024;
const UPLOAD_ID = /^upl_[0-9a-f]{24}$/;

type Problems = ValidationDetail[];
type Ctx = TeamContext;

/** What GET /v1/jobs/{id} shows; `deliveries`: its own webhook's (the list of jobs shows none). */
export function publicJob(j: Job, now = Date.now(), deliveries?: DeliveryRecord[]) {
  const recorded = j.done + j.failed + j.skipped;
  const left = Math.max(0, j.total - recorded);
  const running = j.state === 'running' && j.startedAt !== undefined && recorded > 0;
  const secondsLeft = running ? Math.ceil((((now - j.startedAt!) / recorded) * left) / 1000) : null;
  return {
    id: j.jobId,
    operation: j.operation,
    state: j.state,
    inputs: { total: j.total, done: j.done, failed: j.failed, skipped: j.skipped, left, inFlight: Math.max(0, j.inFlight), duplicates: j.duplicates, invalid: j.invalid },
    pages: j.pagesDone,
    items: j.items,
    creditsCharged: j.credits,
    options: { pages: j.pages, cache_max_age: j.cacheMaxAge ?? null },
    createdAt: new Date(j.createdAt).toISOString(),
    startedAt: j.startedAt ? new Date(j.startedAt).toISOString() : null,
    finishedAt: j.finishedAt ? new Date(j.finishedAt).toISOString() : null,
    estimatedSecondsLeft: secondsLeft,
    ...(j.pausedReason && j.state === 'paused' ? { pausedReason: j.pausedReason } : {}),
    ...(j.error ? { error: j.error } : {}),
    resultsReady: Boolean(j.files?.length),
    ...(j.destination ? { destination: publicDestination(j) } : {}),
    ...(j.webhook ? { webhook: { url: j.webhook.url, events: j.webhook.events, ...(deliveries ? { deliveries: newestFirst(deliveries).map(publicDeliveryWithAttempts) } : {}) } } : {}),
  };
}

const newestFirst = (ds: DeliveryRecord[]) => [...ds].sort((a, b) => b.createdAt - a.createdAt);

/** One job as GET /v1/jobs/{id} (and the changes) answer it: with its own webhook's deliveries and their recent attempts (the engine's, at most a few: one per event). */
async function jobView(j: Job) {
  return publicJob(j, Date.now(), j.webhook ? await senderDeliveries(j.teamId, j.jobId) : undefined);
}

/**
 * The body's `webhook` (docs/jobs.md, "The job's own webhook"): an https URL, or {url, events?}
 * (events: which of the job's; all three unless given). The URL by the webhook URL rule of every
 * webhook (public https after name resolution: shared/api/webhook-url.ts).
 */
async function checkWebhook(raw: unknown, problems: Problems): Promise<Job['webhook']> {
  if (raw === undefined) return undefined;
  const form = typeof raw === 'string' ? { url: raw } : raw;
  if (!form || typeof form !== 'object' || Array.isArray(form)) {
    problems.push({ path: 'webhook', message: 'An https URL, or {url, events?}' });
    return undefined;
  }
  const { url, events, ...rest } = form as Record<string, unknown>;
  const before = problems.length;
  for (const k of Object.keys(rest)) problems.push({ path: `webhook.${k}`, message: 'Unknown field: url and events' });
  const urlPath = typeof raw === 'string' ? 'webhook' : 'webhook.url';
  const problem = await webhookUrlProblem(url);
  if (problem) problems.push({ path: urlPath, message: problem });
  const known = JOB_EVENTS as readonly unknown[];
  if (events !== undefined && !(Array.isArray(events) && events.length > 0 && events.every((e) => known.includes(e)))) problems.push({ path: 'webhook.events', message: `A non-empty list of ${JOB_EVENTS.join(', ')}` });
  if (problems.length > before) return undefined;
  const wanted = events === undefined ? [...JOB_EVENTS] : JOB_EVENTS.filter((e) => (events as unknown[]).includes(e));
  return { url: new URL((url as string).trim()).href, events: wanted };
}

/** A job's destination as GET /v1/jobs/{id} shows it: where, and `pending` until the job ends, then `delivered` or `failed` (code, message). */
function publicDestination(j: Job) {
  const d = j.destination!;
  const x = j.delivery;
  return {
    type: d.type,
    bucket: d.bucket,
    prefix: d.prefix,
    roleArn: d.roleArn,
    state: x?.state ?? 'pending',
    ...(x?.code ? { code: x.code } : {}),
    ...(x?.message ? { message: x.message } : {}),
    ...(x?.keys ? { keys: x.keys } : {}),
    ...(x ? { at: new Date(x.at).toISOString() } : {}),
  };
}

async function mine(ctx: Ctx): Promise<Job> {
  const j = await getJob(ctx.teamId, ctx.params.jobId ?? '');
  if (!j) throw notFound(NO_JOB);
  return j;
}

function checkOperation(raw: unknown, problems: Problems): Operation | undefined {
  const op = typeof raw === 'string' ? routedOperations().find((o) => o.id === raw) : undefined;
  if (!op) problems.push({ path: 'operation', message: `One of ${routedOperations().map((o) => o.id).join(', ')}` });
  return op;
}

function checkPages(raw: unknown, problems: Problems): number | 'all' {
  if (raw === undefined) return 1;
  if (raw === 'all') return 'all';
  if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 && raw <= MAX_PAGES_PER_INPUT) return raw;
  problems.push({ path: 'pages', message: `1 to ${MAX_PAGES_PER_INPUT}, or "all"` });
  return 1;
}

/** The inputs inline or from an upload, checked; problems of the body itself go to `problems`. */
async function readInputs(ctx: Ctx, op: Operation | undefined, problems: Problems): Promise<CheckedInputs | undefined> {
  const { inputs, inputsUpload } = ctx.body;
  if ((inputs === undefined) === (inputsUpload === undefined)) {
    problems.push({ path: 'inputs', message: 'Give either inputs (up to 1,000, inline) or inputsUpload (the id of an uploaded file)' });
    return undefined;
  }
  if (inputs !== undefined) {
    if (!Array.isArray(inputs) || inputs.length === 0 || inputs.length > MAX_INLINE_INPUTS) {
      problems.push({ path: 'inputs', message: `An array of 1 to ${MAX_INLINE_INPUTS} inputs; more in an uploaded file (POST /v1/jobs/uploads)` });
      return undefined;
    }
    return op ? checkInputs(op, inputs) : undefined;
  }
  if (typeof inputsUpload !== 'string' || !UPLOAD_ID.test(inputsUpload)) {
    problems.push({ path: 'inputsUpload', message: 'The uploadId POST /v1/jobs/uploads gave' });
    return undefined;
  }
  const key = uploadKey(ctx.teamId, inputsUpload);
  const size = await files().size(key);
  if (size === null) throw invalidBody([{ path: 'inputsUpload', message: 'Nothing was uploaded under this id (or it expired)' }]);
  if (size > MAX_UPLOAD_BYTES) throw invalidBody([{ path: 'inputsUpload', message: `The file is larger than ${MAX_UPLOAD_BYTES / 1024 / 1024} MB` }]);
  const meta = JSON.parse((await files().get(`${key}.meta`)) ?? '{}') as { format?: UploadFormat };
  const text = (await files().get(key)) ?? '';
  const { raws, lines, unreadable } = parseUpload(text, meta.format ?? 'jsonl');
  if (raws.length + unreadable.length > MAX_UPLOAD_INPUTS) throw invalidBody([{ path: 'inputsUpload', message: `More than ${MAX_UPLOAD_INPUTS.toLocaleString('en')} inputs` }]);
  if (!raws.length && !unreadable.length) throw invalidBody([{ path: 'inputsUpload', message: 'The file holds no input' }]);
  if (!op) return undefined;
  const checked = checkInputs(op, raws, (i) => lines[i]!);
  checked.invalid.push(...unreadable);
  checked.invalid.sort((a, b) => a.line - b.line);
  return checked;
}

/** The body's destination (docs/jobs.md, "Your own bucket"), checked: its rules, then the team's external ID. */
async function checkDestination(ctx: Ctx, problems: Problems): Promise<Destination | undefined> {
  if (ctx.body.destination === undefined) return undefined;
  if (!destinationsAvailable()) {
    problems.push({ path: 'destination', message: "Delivery to your own bucket needs the service on AWS (or, locally, an S3 endpoint in JOBS_S3_ENDPOINT); the files are in the results location (GET /v1/jobs/{id}/results)" });
    return undefined;
  }
  const { destination, problems: found } = parseDestination(ctx.body.destination);
  problems.push(...found);
  if (!destination) return undefined;
  if (destination.externalId !== (await storedExternalId(ctx.teamId))) {
    problems.push({ path: 'destination.externalId', message: "Not your team's external ID: GET /v1/jobs/destination shows it (your role's trust policy requires it)" });
    return undefined;
  }
  return destination;
}

/** Hands out the job's first inputs; a failure leaves the job queued (a resume or the same POST again hands them out). */
async function start(ctx: Ctx, j: Job): Promise<void> {
  try {
    await pump(j.teamId, j.jobId, jobEngine());
  } catch (err) {
    ctx.log.error('job not started', { jobId: j.jobId, error: (err as Error).message });
  }
}

const HANDLERS: Handlers<typeof JOB_ROUTES> = {
  async submit(ctx) {
    const { body } = ctx;
    const idem = ctx.headers['idempotency-key'];
    if (idem !== undefined && (idem.length < 1 || idem.length > 255)) throw new ApiError('BAD_REQUEST', 'Idempotency-Key must be 1 to 255 characters');
    if (idem) {
      const earlier = await jobOfIdempotencyKey(ctx.teamId, idem);
      if (earlier) return { status: 200, data: { job: await jobView(earlier) } };
    }
    const problems: Problems = [];
    for (const k of Object.keys(body)) if (!['operation', 'inputs', 'inputsUpload', 'pages', 'cache_max_age', 'format', 'skipInvalid', 'destination', 'webhook'].includes(k)) problems.push({ path: k, message: 'Unknown field' });
    const destination = await checkDestination(ctx, problems);
    const webhook = await checkWebhook(body.webhook, problems);
    const op = checkOperation(body.operation, problems);
    const pages = checkPages(body.pages, problems);
    const cacheMaxAge = body.cache_max_age;
    if (cacheMaxAge !== undefined && !(typeof cacheMaxAge === 'string' && Object.hasOwn(CACHE_MAX_AGE_SECONDS, cacheMaxAge))) problems.push({ path: 'cache_max_age', message: `One of ${Object.keys(CACHE_MAX_AGE_SECONDS).join(', ')}` });
    if (body.format !== undefined && body.format !== 'jsonl' && body.format !== 'csv') problems.push({ path: 'format', message: 'jsonl or csv (both files are written either way)' });
    if (body.skipInvalid !== undefined && typeof body.skipInvalid !== 'boolean') problems.push({ path: 'skipInvalid', message: 'true or false' });
    const checked = await readInputs(ctx, op, problems);
    if (problems.length || !op || !checked) throw invalidBody(problems);
    if (checked.invalid.length && body.skipInvalid !== true) throw invalidBody(inputProblems(checked.invalid));
    const now = Date.now();
    const job: Job = {
      teamId: ctx.teamId,
      jobId: newJobId(),
      operation: op.id,
      state: 'queued',
      total: checked.inputs.length,
      pages,
      ...(typeof cacheMaxAge === 'string' ? { cacheMaxAge } : {}),
      ...(destination ? { destination } : {}),
      ...(webhook ? { webhook } : {}),
      ...(ctx.keyId ? { keyId: ctx.keyId } : ctx.session ? { memberId: ctx.session.memberId } : {}),
      cursor: 0,
      inFlight: 0,
      done: 0,
      failed: 0,
      skipped: 0,
      pagesDone: 0,
      items: 0,
      credits: 0,
      duplicates: checked.duplicates,
      invalid: checked.invalid.length,
      parked: [],
      createdAt: now,
      updatedAt: now,
    };
    if (checked.invalid.length) await files().put(invalidKey(job.teamId, job.jobId), JSON.stringify(checked.invalid), 'application/json');
    // The job's own webhook: its signing secret made here, stored sealed beside the job (the same transaction), shown in this answer only.
    const secret = webhook ? newSecret() : undefined;
    const hook = webhook && secret ? [jobWebhookPut({ teamId: job.teamId, jobId: job.jobId, url: webhook.url, types: webhook.events, secret: await sealSecret(secret), createdAt: now, expiresAt: jobExpiry(job) })] : [];
    if (!(await createJob(job, checked.inputs, idem, hook))) {
      // The same Idempotency-Key made a job meanwhile (two retries at once): that one is the answer (its secret is not shown again).
      const earlier = idem ? await jobOfIdempotencyKey(ctx.teamId, idem) : null;
      if (earlier) return { status: 200, data: { job: await jobView(earlier) } };
      throw new ApiError('SERVICE_UNAVAILABLE', 'The job could not be created; try again');
    }
    ctx.log.info('job created', { jobId: job.jobId, operation: op.id, inputs: job.total, invalid: job.invalid, duplicates: job.duplicates, webhook: Boolean(webhook) });
    await start(ctx, job);
    const view = await jobView((await getJob(job.teamId, job.jobId)) ?? job);
    return { status: 201, data: { job: view.webhook && secret ? { ...view, webhook: { ...view.webhook, secret } } : view } };
  },

  async list(ctx) {
    return { data: { jobs: (await listJobs(ctx.teamId)).map((j) => publicJob(j)) } };
  },

  async get(ctx) {
    return { data: { job: await jobView(await mine(ctx)) } };
  },

  async destination(ctx) {
    const externalId = await teamExternalId(ctx.teamId);
    const principals = config.jobsDeliveryPrincipals;
    const trustPolicy = principals.length
      ? { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Principal: { AWS: principals }, Action: 'sts:AssumeRole', Condition: { StringEquals: { 'sts:ExternalId': externalId } } }] }
      : null;
    return { data: { destination: { type: 's3', externalId, principals, sessionNamePrefix: `${SESSION_PREFIX}job_`, available: destinationsAvailable(), trustPolicy } } };
  },

  async upload(ctx) {
    const format = ctx.body.format ?? 'jsonl';
    if (format !== 'jsonl' && format !== 'csv') throw invalidBody([{ path: 'format', message: 'jsonl (JSON Lines) or csv (a header row naming the parameters)' }]);
    const uploadId = `upl_${randomBytes(12).toString('hex')}`;
    const key = uploadKey(ctx.teamId, uploadId);
    const contentType = format === 'csv' ? 'text/csv' : 'application/x-ndjson';
    await files().put(`${key}.meta`, JSON.stringify({ format }), 'application/json');
    const ttl = config.jobUrlTtlSeconds;
    const url = await files().signedPut(key, contentType, ttl);
    return {
      status: 201,
      data: { upload: { id: uploadId, url, method: 'PUT', headers: { 'content-type': contentType }, format, expiresAt: new Date(Date.now() + ttl * 1000).toISOString(), maxBytes: MAX_UPLOAD_BYTES, maxInputs: MAX_UPLOAD_INPUTS } },
    };
  },

  async cancel(ctx) {
    const j = await mine(ctx);
    if (!(await moveJob(j.teamId, j.jobId, ['queued', 'running', 'paused'], 'cancelled', { finishedAt: Date.now() }))) throw new ApiError('BAD_REQUEST', `The job is ${j.state} already`);
    ctx.log.info('job cancelled', { jobId: j.jobId });
    // Nothing in flight: its files of what ran are written now; otherwise by the last input to finish.
    await start(ctx, j);
    return { data: { job: await jobView((await getJob(j.teamId, j.jobId))!) } };
  },

  async resume(ctx) {
    const j = await mine(ctx);
    if (!(await moveJob(j.teamId, j.jobId, ['paused'], 'running', { pausedReason: undefined }))) throw new ApiError('BAD_REQUEST', `Only a paused job can be resumed; this one is ${j.state}`);
    ctx.log.info('job resumed', { jobId: j.jobId });
    await start(ctx, j);
    return { data: { job: await jobView((await getJob(j.teamId, j.jobId))!) } };
  },

  async results(ctx) {
    const j = await mine(ctx);
    if (!j.files?.length) throw new ApiError('BAD_REQUEST', `The result files are written when the job ends; it is ${j.state}`);
    const ttl = config.jobUrlTtlSeconds;
    const expiresAt = new Date(Date.now() + ttl * 1000).toISOString();
    const kept = new Date((j.finishedAt ?? j.updatedAt) + JOB_FILES_DAYS * 86_400_000).toISOString();
    const list = await Promise.all(RESULT_FILES.map(async (name) => ({ name, contentType: CONTENT_TYPES[name], url: await files().signedGet(resultKey(j.teamId, j.jobId, name), `${j.jobId}-${name}`, ttl), expiresAt })));
    return { data: { files: list, keptUntil: kept } };
  },

  /**
   * Writes an ended job's files to its destination again, after a failed delivery (the customer fixed
   * their role's trust policy or their bucket): one conditional write claims the retry (the recorded
   * delivery `failed` -> `retrying`), so a second retry meanwhile is refused and nothing is written
   * twice at once; then the same delivery as the job's end, and its outcome recorded under that claim.
   */
  async retryDestination(ctx) {
    const j = await mine(ctx);
    const refused = (job: Job) => {
      if (!job.destination) return 'This job has no destination: only a job submitted with `destination` delivers to your bucket';
      if (!job.files?.length || !ENDED.includes(job.state)) return `The files are delivered when the job ends; it is ${job.state}`;
      if (job.delivery?.state === 'delivered') return 'The files are delivered already';
      if (job.delivery?.state === 'retrying' && job.delivery.at > Date.now() - SESSION_SECONDS * 1000) return 'A retry of this delivery is under way: read the job for its outcome';
      return null;
    };
    const why = refused(j);
    if (why) throw new ApiError('BAD_REQUEST', why);
    const kept = (j.finishedAt ?? j.updatedAt) + JOB_FILES_DAYS * 86_400_000;
    if (Date.now() > kept) throw notFound(`The job's files were kept ${JOB_FILES_DAYS} days, until ${new Date(kept).toISOString()}: nothing is left to deliver`);
    const token = randomBytes(12).toString('hex');
    if (!(await claimRedelivery(j.teamId, j.jobId, token, Date.now(), SESSION_SECONDS * 1000))) {
      const now = await getJob(j.teamId, j.jobId);
      throw new ApiError('BAD_REQUEST', (now && refused(now)) ?? 'A retry of this delivery is under way: read the job for its outcome');
    }
    ctx.log.info('job destination retried', { jobId: j.jobId });
    const delivery = await deliver(j.teamId, j.jobId, j.destination!, ctx.log);
    await settleRedelivery(j.teamId, j.jobId, token, delivery);
    return { data: { job: await jobView((await getJob(j.teamId, j.jobId))!) } };
  },
};

const ENDED: readonly string[] = ['succeeded', 'failed', 'cancelled'];

export const jobsHandler = jsonApi('jobs', JOB_ROUTES, HANDLERS, { notFound: 'No such jobs route', maxBodyBytes: MAX_BODY_BYTES });
