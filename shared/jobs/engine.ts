import { createHash } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { listOf } from '../api/columns';
import { itemKey } from '../api/columns';
import { JOB_PAGE_CHARGED_HEADER, MAX_PAGES_PER_INPUT } from '../api/job-routes';
import { operationGetEvent } from '../http/proxy-event';
import { CACHE_MAX_AGE_SECONDS, type CacheMaxAge, type ParamDef } from '../http/validation';
import { type Operation, operation, type OperationId } from '../operations';
import { config } from '../runtime/config';
import type { Log } from '../runtime/log';
import { deliver } from './destination';
import { jobEventWrites } from './events';
import { type Part, writePart, writeResults } from './results';
import { type InputOutcome, type Job, claimInputs, getJob, inputToRun, jobAndInFlight, listJobs, moveJob, parkInput, recordInput, teamInFlight, unclaim } from './store';

/**
 * The job engine: the same code in the deployed workers (SQS, shared/jobs/aws.ts) and in process
 * locally (shared/jobs/local-queue.ts). Each input is run by `runInput`: each of its pages is a
 * request of the operation through the operation's own handler (THE pipeline: validation, cache,
 * reservation, scrape, settle, record), made as the authorizer would make it and marked as the job's,
 * so it is charged and recorded exactly as a request (1 credit per live page, 0 cached or error; usage
 * and history say `source: 'job'`). Its outcome goes to a part file, then one transaction records the
 * input's end with the job's counts (shared/jobs/store.ts). After it, `pump` hands out the next inputs
 * within the team's bound, and the input that ends the job writes the result files.
 *
 * A retried input (its worker failed anywhere) runs again with the same request ids (derived from the
 * job, the input and the page) and accepts a cached answer as old as the job. A page is charged once
 * per request id (the ledger's JOBPAGE# item, written with the charge: shared/accounting/ledger.ts), so
 * a page its earlier attempt paid for is free however it is answered (the cache entry that charge
 * wrote, or scraped again when there is none). The job counts a page's credit when the pipeline says
 * the ledger holds its charge (JOB_PAGE_CHARGED_HEADER: charged by this attempt or an earlier one),
 * not what the attempt itself paid, so the job's credits are the ledger's. Its part is written again
 * whole, under the same key; its end is recorded once. So no item twice, no credit twice.
 */
export type Invoke = (operationId: string, event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
/** One input handed out: `retry` when it ran before (parked by a pause): its paid pages come from the cache. */
export interface InputRef {
  teamId: string;
  jobId: string;
  index: number;
  retry?: boolean;
}
/** Hands inputs to the workers (an SQS queue per platform, or the in-process queue). */
export type Send = (job: Job, refs: InputRef[]) => Promise<void>;

export interface Engine {
  invoke: Invoke;
  send: Send;
  log: Log;
}

/** Attempts of an input whose pages meet a transient error (429, 5xx) before it is recorded as failed. */
export const MAX_ATTEMPTS = 3;

/** Thrown for a transient failure: the queue tries the input again (same request ids). */
export class RetryInput extends Error {
  constructor(readonly status: number, readonly code: string) {
    super(`transient ${status} ${code}`);
    this.name = 'RetryInput';
  }
}

/** The request id of one page of one input of a job: the same for every attempt. */
export function pageRequestId(jobId: string, index: number, page: number): string {
  const h = createHash('sha256').update(`job-page\n${jobId}\n${index}\n${page}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export const cursorParamOf = (op: Operation) => Object.entries(op.params as Record<string, ParamDef>).find(([, d]) => d.cursor)?.[0];

const jobMaxAge = (job: Job) => (job.cacheMaxAge ? CACHE_MAX_AGE_SECONDS[job.cacheMaxAge as CacheMaxAge] ?? 0 : 0);

interface Body {
  data?: Record<string, unknown>;
  error?: { code: string; message: string };
}

/**
 * Runs input `ref`, attempt `attempt` (1 the first). Throws RetryInput for a transient failure
 * before MAX_ATTEMPTS; any other throw is the queue's to retry too (the same request ids).
 */
export async function runInput(ref: InputRef, attempt: number, env: Engine): Promise<void> {
  const { teamId, jobId, index } = ref;
  // The job, the input's record (if any) and the input: one read.
  const found = await inputToRun(teamId, jobId, index);
  if (!found) return;
  const { job } = found;
  // A message delivered twice, or an attempt after one that recorded the input: nothing to do.
  if (found.recorded) return void (await pump(teamId, jobId, env));
  const now = Date.now();
  if (job.state === 'cancelled') {
    await recordInput(job, index, { status: 0, pages: 0, items: 0, credits: 0, result: 'skipped' }, now);
    return void (await pump(teamId, jobId, env));
  }
  if (job.state === 'paused') {
    await parkInput(job, index, job.pausedReason ?? 'paused', 0, now);
    return;
  }
  const { input } = found;
  if (!input) throw new Error(`job ${jobId} has no input ${index}`);
  const op = operation(job.operation as OperationId) as Operation;
  const cursorParam = cursorParamOf(op);
  const list = listOf(op);
  const maxPages = !cursorParam ? 1 : job.pages === 'all' ? MAX_PAGES_PER_INPUT : job.pages;
  const retried = attempt > 1 || ref.retry === true;
  // A retried input accepts what its earlier attempts paid for (cached since the job began).
  const maxAgeSeconds = retried ? Math.max(jobMaxAge(job), Math.ceil((now - job.createdAt) / 1000) + 60) : jobMaxAge(job);
  const seen = new Set<string>();
  const items: Record<string, unknown>[] = [];
  let cursor: string | null = null;
  let pages = 0;
  let credits = 0;
  let error: Part['error'];
  for (let p = 0; p < maxPages; p++) {
    if (p > 0 && (await getJob(teamId, jobId))?.state === 'cancelled') break; // cancelled: no further page (nor charge)
    const query = { ...input.params, ...(cursor !== null && cursorParam ? { [cursorParam]: cursor } : {}) };
    const event = operationGetEvent(op.path, query, {
      requestId: pageRequestId(jobId, index, p),
      authorizer: { teamId, keyId: job.keyId ?? '', jobId, jobMaxAgeSeconds: maxAgeSeconds, jobRetry: retried },
    });
    const res = await env.invoke(op.id, event);
    const headers = Object.fromEntries(Object.entries(res.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
    const body = JSON.parse(res.body) as Body;
    // The ledger holds this page's one charge: this answer's (x-credits-charged) or an earlier attempt's
    // (JOB_PAGE_CHARGED_HEADER, also on an error answer: a paid page scraped again): counted once, whatever this answer is.
    if (headers['x-credits-charged'] === '1' || headers[JOB_PAGE_CHARGED_HEADER] === '1') credits += 1;
    if (res.statusCode === 200 && body.data) {
      pages += 1;
      const found = list ? ((body.data[list.field] as Record<string, unknown>[] | undefined) ?? []) : [body.data];
      for (const item of found) {
        const key = list ? itemKey(item) : undefined;
        if (key !== undefined) {
          if (seen.has(key)) continue;
          seen.add(key);
        }
        items.push(item);
      }
      const next = cursorParam ? ((body.data.cursor as string | null | undefined) ?? null) : null;
      if (next === null || next === cursor || body.data.hasMore === false) break;
      cursor = next;
      continue;
    }
    const code = body.error?.code ?? 'SERVICE_UNAVAILABLE';
    if (res.statusCode === 402) {
      // No credit left: the input waits, the job pauses (once, with its event), until a resume after a top-up.
      const paused = await parkInput(job, index, 'no_credits', 0, Date.now(), () => jobEventWrites(job, 'job.paused', `${jobId}:paused:${job.updatedAt}`, { jobId, state: 'paused', counts: countsOf(job) }));
      if (paused) env.log.info('job paused: no credits', { jobId });
      return;
    }
    if ((res.statusCode === 429 || res.statusCode >= 500) && attempt < MAX_ATTEMPTS) throw new RetryInput(res.statusCode, code);
    error = { status: res.statusCode, code, message: body.error?.message ?? 'No answer' };
    break;
  }
  await writePart(teamId, jobId, { index, line: input.line, input: input.input, items, pages, ...(error ? { error } : {}) });
  const outcome: InputOutcome = { status: error?.status ?? 200, ...(error ? { code: error.code } : {}), pages, items: items.length, credits, result: error && pages === 0 ? 'failed' : 'succeeded' };
  await recordInput(job, index, outcome, Date.now());
  await pump(teamId, jobId, env);
}

/**
 * An input whose attempts all failed for another reason than an answer (a crash, a worker timeout):
 * recorded as failed (503), so the job still ends; its part says why.
 */
export async function giveUpInput(ref: InputRef, reason: string, env: Engine): Promise<void> {
  const found = await inputToRun(ref.teamId, ref.jobId, ref.index);
  if (!found || found.recorded) return;
  const { job, input } = found;
  const error = { status: 503, code: 'SERVICE_UNAVAILABLE', message: 'The input could not be run; try it again in a new job' };
  await writePart(ref.teamId, ref.jobId, { index: ref.index, line: input?.line ?? 0, input: input?.input ?? '', items: [], pages: 0, error });
  await recordInput(job, ref.index, { status: 503, code: error.code, pages: 0, items: 0, credits: 0, result: 'failed' }, Date.now());
  env.log.error('job input given up', { jobId: ref.jobId, index: ref.index, reason });
  await pump(ref.teamId, ref.jobId, env);
}

/** The job's counts, as its events carry them (the catalogue's `counts`). */
const countsOf = (j: Job): Record<string, number> => ({ inputs: j.total, succeeded: j.done, failed: j.failed, skipped: j.skipped, pages: j.pagesDone, items: j.items, credits: j.credits });

/** Inputs handed out per claim (one transaction; up to ten messages a SendMessageBatch). */
const CLAIM = 10;

/**
 * Hands out inputs of the job while the team has slots (config.jobInputsPerTeam), then, when this
 * job has none left to hand out, the team's other waiting jobs; ends a job whose every input is
 * recorded (or a cancelled one with none in flight).
 *
 * Every input's end pumps, and many end at once. A claim is conditional on the job's cursor as read,
 * so pumps of one job running together mostly see their claims refused. In one process they do not
 * run together: a pump asked for while one of the same job runs here only asks that one to read
 * again once done (it claims, in one transaction, every slot freed meanwhile). A refused claim (a
 * pump in another process claimed first) is not tried again: it was refused because another claim
 * moved the cursor (whose inputs pump when they end), the team's bound was reached (its inputs in
 * flight pump when they end), or the job paused or was cancelled (a resume pumps). So nothing is
 * left waiting with nothing in flight: the pump after the last input to end reads every slot freed.
 */
export async function pump(teamId: string, jobId: string, env: Engine): Promise<void> {
  const key = `${teamId}\n${jobId}`;
  const running = pumping.get(key);
  if (running) return void (running.again = true);
  const me = { again: false };
  pumping.set(key, me);
  try {
    do {
      me.again = false;
      await pumpOnce(teamId, jobId, env);
    } while (me.again);
  } finally {
    pumping.delete(key);
  }
}

/** The pumps running in this process, by team and job; `again`: asked for meanwhile. */
const pumping = new Map<string, { again: boolean }>();

async function pumpOnce(teamId: string, jobId: string, env: Engine): Promise<void> {
  const bound = config.jobInputsPerTeam;
  for (let round = 0; round < 50; round++) {
    const { job, inFlight } = await jobAndInFlight(teamId, jobId);
    if (!job) return;
    if (await finishIfDone(job, env)) break;
    if (job.state !== 'running' && job.state !== 'queued') return;
    if (job.cursor >= job.total && !job.parked.length) break;
    const free = bound - inFlight;
    if (free <= 0) return;
    const claimed = await claimInputs(job, Math.min(free, CLAIM), bound, Date.now());
    if (!claimed) return; // refused: see pump
    const parked = new Set(job.parked);
    const refs = claimed.map((index) => ({ teamId, jobId, index, ...(parked.has(index) ? { retry: true } : {}) }));
    try {
      await env.send(job, refs);
    } catch (err) {
      await unclaim(job, claimed);
      throw err;
    }
    if (claimed.length === free) return; // the team is at its bound
  }
  // This job hands out no more: the team's other waiting jobs take the free slots.
  for (const other of await listJobs(teamId)) {
    if (other.jobId === jobId || !(other.state === 'queued' || (other.state === 'running' && (other.cursor < other.total || other.parked.length)))) continue;
    if ((await teamInFlight(teamId)) >= bound) return;
    await pump(teamId, other.jobId, env);
  }
}

/**
 * Ends the job when nothing of it is left: a running job whose every input is recorded writes its
 * files and becomes succeeded (failed when no input succeeded), with its event in the same
 * transaction; a cancelled one with nothing in flight writes the files of what ran. True when the
 * job is over.
 */
async function finishIfDone(job: Job, env: Engine): Promise<boolean> {
  const recorded = job.done + job.failed + job.skipped;
  const over = (job.state === 'running' || job.state === 'queued') && recorded >= job.total && job.inFlight <= 0 && !job.parked.length;
  const cancelledIdle = job.state === 'cancelled' && job.inFlight <= 0 && !job.files;
  if (!over && !cancelledIdle) return job.state === 'succeeded' || job.state === 'failed' || job.state === 'cancelled';
  const op = operation(job.operation as OperationId) as Operation;
  const ran = Array.from({ length: Math.min(job.total, job.cursor) }, (_, i) => i);
  const written = await writeResults(op, job.teamId, job.jobId, ran);
  // The customer's bucket, when the job names one: before the state moves, so the job never ends without saying how it went.
  const delivery = job.destination ? { delivery: await deliver(job.teamId, job.jobId, job.destination, env.log) } : {};
  const now = Date.now();
  const files = ['items.jsonl', 'items.csv', 'errors.jsonl', 'errors.csv'];
  if (cancelledIdle) {
    await moveJob(job.teamId, job.jobId, ['cancelled'], 'cancelled', { files, filesWrittenAt: now, ...delivery });
    return true;
  }
  const state = job.done === 0 ? 'failed' : 'succeeded';
  const type = state === 'failed' ? 'job.failed' : 'job.succeeded';
  const data = { jobId: job.jobId, state, counts: { ...countsOf(job), items: written.items } };
  if (await moveJob(job.teamId, job.jobId, ['running', 'queued'], state, { finishedAt: now, files, ...delivery, ...(state === 'failed' ? { error: 'No input succeeded (see errors.csv)' } : {}) }, jobEventWrites(job, type, `${job.jobId}:${state}`, data))) {
    env.log.info('job finished', { jobId: job.jobId, state, items: written.items, errors: written.errors });
  }
  return true;
}
