import { createHash, randomBytes } from 'node:crypto';
import { BatchWriteCommand, GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { type JOB_EVENTS, JOB_FILES_DAYS, type JobState } from '../api/job-routes';
import { batchGetAll, conditionally, db } from '../db/client';
import { JOB_PREFIX, JOB_SLOTS_SK, jobChunkSk, jobDoneSk, jobIdempotencySk, jobPk, jobSk, teamPk } from '../db/tables';
import { config } from '../runtime/config';
import type { Delivery, Destination } from './destination';
import type { JobInput } from './inputs';

/**
 * The jobs table's items (shared/db/tables.ts, JOBS): the job, its checked inputs in chunks, one
 * record per finished input, the team's count of inputs in flight and the Idempotency-Key marks.
 * Every count a worker moves moves in the one transaction that records the input's end (conditional
 * on that record's absence), so a retried input is never counted twice.
 */
export const JOB_CHUNK = 100;
type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export interface Job {
  teamId: string;
  jobId: string;
  operation: string;
  state: JobState;
  /** Inputs to run (after de-duplication; the invalid ones skipped). */
  total: number;
  /** Pages per input: a number, or every page. */
  pages: number | 'all';
  cacheMaxAge?: string;
  keyId?: string;
  memberId?: string;
  /** The next input to hand out, and the inputs handed out and not finished. */
  cursor: number;
  inFlight: number;
  done: number;
  failed: number;
  /** Inputs finished without running (the job was cancelled first). */
  skipped: number;
  pagesDone: number;
  items: number;
  credits: number;
  /** Inputs given as the same thing as an earlier one (run once), and invalid ones skipped (skipInvalid). */
  duplicates: number;
  invalid: number;
  /** Inputs set aside when the job paused (no credit left), run first when it resumes. */
  parked: number[];
  pausedReason?: string;
  error?: string;
  /** The job's own webhook (POST /v1/jobs `webhook`): where its events also go, which. Its sealed secret is the webhook's item's (shared/webhooks/store.ts), never the job's. */
  webhook?: { url: string; events: (typeof JOB_EVENTS)[number][] };
  /** The customer's bucket the files are also written to when the job ends, and how that went. */
  destination?: Destination;
  delivery?: Delivery;
  createdAt: number;
  startedAt?: number;
  finishedAt?: number;
  updatedAt: number;
  /** The result files written (names under results/), once the job has ended. */
  files?: string[];
  expiresAt?: number;
}

/**
 * A transaction of the job's bookkeeping: true when written, false when a condition refused it. Many
 * inputs of one job end at once and all move the job's item and the team's slots item: DynamoDB
 * cancels a transaction that meets another on the same item (TransactionConflict), which is no
 * refusal: it is sent again after a short jittered wait, never read as "already done".
 */
async function transact(items: TransactItem[]): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items }));
      return true;
    } catch (err) {
      const name = (err as { name?: string }).name;
      if (name === 'ConditionalCheckFailedException') return false;
      if (name !== 'TransactionCanceledException') throw err;
      const codes = ((err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code ?? 'None');
      if (codes.includes('ConditionalCheckFailed')) return false;
      if (!codes.includes('TransactionConflict') || attempt >= 8) throw err;
      await new Promise((r) => setTimeout(r, 20 * 2 ** Math.min(attempt, 5) * (0.5 + Math.random())));
    }
  }
}

export const newJobId = () => `job_${Date.now().toString(36).padStart(9, '0')}${randomBytes(6).toString('hex')}`;
/** Whether `id` has newJobId's shape: anything else is no job, found without a read. */
const isJobId = (id: string) => /^job_[a-z0-9]{9}[0-9a-f]{12}$/.test(id);

const jobKey = (teamId: string, jobId: string) => ({ pk: teamPk(teamId), sk: jobSk(jobId) });
const slotsKey = (teamId: string) => ({ pk: teamPk(teamId), sk: JOB_SLOTS_SK });
const expiry = (from: number) => Math.floor(from / 1000) + (JOB_FILES_DAYS + 1) * 86_400;

function jobOf(i: Record<string, unknown>): Job {
  const { pk: _pk, sk: _sk, parked, ...rest } = i;
  return { ...(rest as unknown as Job), parked: parked instanceof Set ? [...(parked as Set<number>)].map(Number).sort((a, b) => a - b) : [] };
}

export async function getJob(teamId: string, jobId: string): Promise<Job | null> {
  if (!isJobId(jobId)) return null;
  const res = await db().send(new GetCommand({ TableName: config.jobsTable, Key: jobKey(teamId, jobId), ConsistentRead: true }));
  return res.Item ? jobOf(res.Item) : null;
}

/** The team's jobs, newest first (at most `limit`). */
export async function listJobs(teamId: string, limit = 50): Promise<Job[]> {
  const res = await db().send(
    new QueryCommand({
      TableName: config.jobsTable,
      KeyConditionExpression: 'pk = :p AND begins_with(sk, :j)',
      ExpressionAttributeValues: { ':p': teamPk(teamId), ':j': JOB_PREFIX },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (res.Items ?? []).map(jobOf);
}

export const idempotencyHash = (teamId: string, key: string) => createHash('sha256').update(`${teamId}\n${key}`).digest('hex');

/** The job an Idempotency-Key made, if any. */
export async function jobOfIdempotencyKey(teamId: string, key: string): Promise<Job | null> {
  const res = await db().send(new GetCommand({ TableName: config.jobsTable, Key: { pk: teamPk(teamId), sk: jobIdempotencySk(idempotencyHash(teamId, key)) }, ConsistentRead: true }));
  return res.Item ? getJob(teamId, String(res.Item.jobId)) : null;
}

/** When every item of a job expires (epoch seconds): its own webhook's too. */
export const jobExpiry = (job: Pick<Job, 'createdAt'>) => expiry(job.createdAt);

/**
 * Writes the inputs (chunks first: nothing points at them until the job exists), then the job, its
 * Idempotency-Key mark and `extra` (its own webhook's item) in one transaction: false when the key
 * made another job meanwhile.
 */
export async function createJob(job: Job, inputs: readonly JobInput[], idempotencyKey?: string, extra: TransactItem[] = []): Promise<boolean> {
  const exp = expiry(job.createdAt);
  const chunks: Record<string, unknown>[] = [];
  for (let i = 0; i < inputs.length; i += JOB_CHUNK) chunks.push({ pk: jobPk(job.jobId), sk: jobChunkSk(i / JOB_CHUNK), inputs: inputs.slice(i, i + JOB_CHUNK), expiresAt: exp });
  for (let i = 0; i < chunks.length; i += 25) {
    let requests = chunks.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } }));
    for (let round = 0; requests.length; round++) {
      if (round > 8) throw new Error('job inputs not written: unprocessed items');
      const res = await db().send(new BatchWriteCommand({ RequestItems: { [config.jobsTable]: requests } }));
      requests = (res.UnprocessedItems?.[config.jobsTable] ?? []) as typeof requests;
      if (requests.length) await new Promise((r) => setTimeout(r, 50 * 2 ** round));
    }
  }
  const { parked: _parked, ...rest } = job;
  const items: TransactItem[] = [{ Put: { TableName: config.jobsTable, Item: { ...jobKey(job.teamId, job.jobId), ...rest, expiresAt: exp }, ConditionExpression: 'attribute_not_exists(pk)' } }];
  if (idempotencyKey) {
    items.push({
      Put: {
        TableName: config.jobsTable,
        Item: { pk: teamPk(job.teamId), sk: jobIdempotencySk(idempotencyHash(job.teamId, idempotencyKey)), jobId: job.jobId, expiresAt: Math.floor(job.createdAt / 1000) + 86_400 },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
  }
  return transact([...items, ...extra]);
}

/** Items of the jobs table by key, in one BatchGetItem (consistent), its unprocessed keys asked again; each key's item or undefined. */
async function getMany(keys: Record<string, string>[]): Promise<(Record<string, unknown> | undefined)[]> {
  const found = new Map((await batchGetAll(config.jobsTable, keys, { consistent: true })).map((i) => [`${String(i.pk)}\n${String(i.sk)}`, i]));
  return keys.map((k) => found.get(`${k.pk}\n${k.sk}`));
}

/**
 * The chunks of inputs this process read lately (a chunk never changes once written: createJob
 * writes it before the job exists), so the other inputs of a chunk it runs are not read again:
 * at most CHUNKS_KEPT, the oldest read dropped first.
 */
const chunksRead = new Map<string, JobInput[]>();
const CHUNKS_KEPT = 64;

/**
 * What a worker needs to run input `index`, in one BatchGetItem (consistent): the job, whether the
 * input has its record already, and the input (null when the job is not found); its chunk only
 * when this process has not read it already.
 */
export async function inputToRun(teamId: string, jobId: string, index: number): Promise<{ job: Job; recorded: boolean; input: JobInput | null } | null> {
  if (!isJobId(jobId)) return null;
  const chunkKey = { pk: jobPk(jobId), sk: jobChunkSk(Math.floor(index / JOB_CHUNK)) };
  const cacheKey = `${chunkKey.pk}\n${chunkKey.sk}`;
  const known = chunksRead.get(cacheKey);
  const [job, done, chunk] = await getMany([jobKey(teamId, jobId), { pk: jobPk(jobId), sk: jobDoneSk(index) }, ...(known ? [] : [chunkKey])]);
  if (!job) return null;
  const inputs = known ?? (chunk?.inputs as JobInput[] | undefined);
  if (inputs && !known) {
    chunksRead.set(cacheKey, inputs);
    if (chunksRead.size > CHUNKS_KEPT) chunksRead.delete(chunksRead.keys().next().value as string);
  }
  return { job: jobOf(job), recorded: done !== undefined, input: (inputs ?? [])[index % JOB_CHUNK] ?? null };
}

/** The job and how many of the team's inputs are in flight now, in one BatchGetItem (consistent). */
export async function jobAndInFlight(teamId: string, jobId: string): Promise<{ job: Job | null; inFlight: number }> {
  if (!isJobId(jobId)) return { job: null, inFlight: 0 };
  const [job, slots] = await getMany([jobKey(teamId, jobId), slotsKey(teamId)]);
  return { job: job ? jobOf(job) : null, inFlight: Number(slots?.inFlight ?? 0) };
}

/** How many of the team's inputs are in flight now. */
export async function teamInFlight(teamId: string): Promise<number> {
  const res = await db().send(new GetCommand({ TableName: config.jobsTable, Key: slotsKey(teamId), ConsistentRead: true }));
  return Number(res.Item?.inFlight ?? 0);
}

/**
 * Hands out up to `count` inputs of a running (or queued) job within the team's bound: the
 * parked ones first, then from the cursor. One transaction moves the job's cursor (conditional on
 * the cursor read) and the team's count (conditional on the bound): inputs are never handed out
 * twice, and the team never has more than its bound in flight. Null when nothing was handed out.
 */
export async function claimInputs(job: Job, count: number, bound: number, now: number): Promise<number[] | null> {
  const parked = job.parked.slice(0, count);
  const fresh = Math.max(0, Math.min(count - parked.length, job.total - job.cursor));
  const n = parked.length + fresh;
  if (n <= 0) return null;
  const indices = [...parked, ...Array.from({ length: fresh }, (_, i) => job.cursor + i)];
  const names: Record<string, string> = { '#st': 'state', '#c': 'cursor', '#f': 'inFlight', '#u': 'updatedAt', '#s': 'startedAt' };
  const values: Record<string, unknown> = { ':c': job.cursor, ':n': n, ':fresh': fresh, ':now': now, ':running': 'running', ':queued': 'queued' };
  let update = 'SET #c = #c + :fresh, #st = :running, #u = :now, #s = if_not_exists(#s, :now) ADD #f :n';
  let condition = '#c = :c AND (#st = :running OR #st = :queued)';
  if (parked.length) {
    names['#p'] = 'parked';
    values[':parked'] = new Set(parked);
    update += ' DELETE #p :parked';
    condition += ` AND ${parked.map((_, i) => `contains(#p, :p${i})`).join(' AND ')}`;
    parked.forEach((p, i) => (values[`:p${i}`] = p));
  }
  const ok = await transact([
          { Update: { TableName: config.jobsTable, Key: jobKey(job.teamId, job.jobId), UpdateExpression: update, ConditionExpression: condition, ExpressionAttributeNames: names, ExpressionAttributeValues: values } },
          {
            Update: {
              TableName: config.jobsTable,
              Key: slotsKey(job.teamId),
              UpdateExpression: 'ADD #f :n',
              ConditionExpression: 'attribute_not_exists(#f) OR #f <= :most',
              ExpressionAttributeNames: { '#f': 'inFlight' },
              ExpressionAttributeValues: { ':n': n, ':most': bound - n },
            },
          },
        ]);
  return ok ? indices : null;
}

/** Gives handed-out inputs back (their messages could not be sent): parked, to be handed out again. */
export async function unclaim(job: Pick<Job, 'teamId' | 'jobId'>, indices: number[]): Promise<void> {
  await transact([
        { Update: { TableName: config.jobsTable, Key: jobKey(job.teamId, job.jobId), UpdateExpression: 'ADD #f :minus, #p :set', ExpressionAttributeNames: { '#f': 'inFlight', '#p': 'parked' }, ExpressionAttributeValues: { ':minus': -indices.length, ':set': new Set(indices) } } },
        { Update: { TableName: config.jobsTable, Key: slotsKey(job.teamId), UpdateExpression: 'ADD #f :minus', ExpressionAttributeNames: { '#f': 'inFlight' }, ExpressionAttributeValues: { ':minus': -indices.length } } },
      ]);
}

/** What one input came to. */
export interface InputOutcome {
  status: number;
  code?: string;
  pages: number;
  items: number;
  credits: number;
  /** succeeded, failed, or skipped (the job was cancelled before it ran). */
  result: 'succeeded' | 'failed' | 'skipped';
}

/**
 * Records the end of input `index` once: its record (conditional on its absence), the job's counts
 * and the team's count of inputs in flight, in one transaction (plus `extra`, the job's event when
 * this ends it). False when an earlier attempt recorded it already: nothing is counted again.
 */
export async function recordInput(job: Pick<Job, 'teamId' | 'jobId' | 'createdAt'>, index: number, o: InputOutcome, now: number, extra: TransactItem[] = []): Promise<boolean> {
  const counter = o.result === 'succeeded' ? 'done' : o.result === 'failed' ? 'failed' : 'skipped';
  return transact([
          { Put: { TableName: config.jobsTable, Item: { pk: jobPk(job.jobId), sk: jobDoneSk(index), ...o, at: now, expiresAt: expiry(job.createdAt) }, ConditionExpression: 'attribute_not_exists(pk)' } },
          {
            Update: {
              TableName: config.jobsTable,
              Key: jobKey(job.teamId, job.jobId),
              UpdateExpression: 'ADD #n :one, #f :minus, pagesDone :pages, #i :items, credits :credits SET updatedAt = :now',
              ConditionExpression: 'attribute_exists(pk)',
              ExpressionAttributeNames: { '#n': counter, '#f': 'inFlight', '#i': 'items' },
              ExpressionAttributeValues: { ':one': 1, ':minus': -1, ':pages': o.pages, ':items': o.items, ':credits': o.credits, ':now': now },
            },
          },
          { Update: { TableName: config.jobsTable, Key: slotsKey(job.teamId), UpdateExpression: 'ADD #f :minus', ExpressionAttributeNames: { '#f': 'inFlight' }, ExpressionAttributeValues: { ':minus': -1 } } },
          ...extra,
        ]);
}

/**
 * Sets input `index` aside (no credit left, or the job paused meanwhile): the job pauses (when it
 * was running: `paused` true), the input joins the parked set, the team's slot is freed, its
 * pages so far counted (`credits` charged before the 402). One transaction.
 */
export async function parkInput(job: Pick<Job, 'teamId' | 'jobId'>, index: number, reason: string, credits: number, now: number, onPause: (paused: boolean) => TransactItem[] = () => []): Promise<boolean> {
  const base = (pausing: boolean): TransactItem[] => [
    {
      Update: {
        TableName: config.jobsTable,
        Key: jobKey(job.teamId, job.jobId),
        UpdateExpression: `ADD #f :minus, #p :set, credits :credits SET updatedAt = :now${pausing ? ', #st = :paused, pausedReason = :reason' : ''}`,
        ConditionExpression: pausing ? '#st = :running' : '#st <> :running',
        ExpressionAttributeNames: { '#f': 'inFlight', '#p': 'parked', '#st': 'state' },
        ExpressionAttributeValues: { ':minus': -1, ':set': new Set([index]), ':credits': credits, ':now': now, ':running': 'running', ...(pausing ? { ':paused': 'paused', ':reason': reason } : {}) },
      },
    },
    { Update: { TableName: config.jobsTable, Key: slotsKey(job.teamId), UpdateExpression: 'ADD #f :minus', ExpressionAttributeNames: { '#f': 'inFlight' }, ExpressionAttributeValues: { ':minus': -1 } } },
  ];
  // Running: this input pauses the job (and its event rides along); otherwise it was paused (or cancelled) already.
  if (await transact([...base(true), ...onPause(true)])) return true;
  if (!(await transact(base(false)))) throw new Error('input not set aside: the job is running again; the queue retries it');
  return false;
}

/** Moves the job from one of `from` to `to` (with `set`; undefined removes), conditionally, with `extra` in the same transaction; false when it was not in `from`. */
export async function moveJob(teamId: string, jobId: string, from: readonly JobState[], to: JobState, set: Record<string, unknown>, extra: TransactItem[] = []): Promise<boolean> {
  const names: Record<string, string> = { '#st': 'state' };
  const values: Record<string, unknown> = { ':to': to };
  from.forEach((s, i) => (values[`:from${i}`] = s));
  const sets = ['#st = :to'];
  const removes: string[] = [];
  Object.entries(set).forEach(([k, v], i) => {
    names[`#a${i}`] = k;
    if (v === undefined) removes.push(`#a${i}`);
    else {
      values[`:a${i}`] = v;
      sets.push(`#a${i} = :a${i}`);
    }
  });
  const update = {
    TableName: config.jobsTable,
    Key: jobKey(teamId, jobId),
    UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
    ConditionExpression: `#st IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
  if (!extra.length) return conditionally(() => db().send(new UpdateCommand(update)));
  return transact([{ Update: update }, ...extra]);
}

/** Every input record of a job, in index order (for the result files' counts, and tests). */
export async function inputRecords(jobId: string): Promise<(InputOutcome & { index: number })[]> {
  const out: (InputOutcome & { index: number })[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const res = await db().send(
      new QueryCommand({ TableName: config.jobsTable, KeyConditionExpression: 'pk = :p AND begins_with(sk, :d)', ExpressionAttributeValues: { ':p': jobPk(jobId), ':d': 'DONE#' }, ExclusiveStartKey: start, ConsistentRead: true }),
    );
    for (const i of res.Items ?? []) out.push({ ...(i as unknown as InputOutcome), index: Number(String(i.sk).slice(5)) });
    start = res.LastEvaluatedKey;
  } while (start);
  return out;
}

/** The job states a job ends in: its files are written then, and its destination's delivery recorded. */
const ENDED: readonly JobState[] = ['succeeded', 'failed', 'cancelled'];

/**
 * Claims a new delivery of an ended job's files to its destination (POST /v1/jobs/{id}/destination/retry):
 * one conditional write moves the recorded delivery from `failed` (or from a claim older than
 * `staleMs`, whose request died) to `retrying` with this attempt's `token`. Two retries at once: one
 * claims, the other is refused (false) and nothing runs twice.
 */
export async function claimRedelivery(teamId: string, jobId: string, token: string, now: number, staleMs: number): Promise<boolean> {
  return conditionally(() =>
    db().send(
      new UpdateCommand({
        TableName: config.jobsTable,
        Key: jobKey(teamId, jobId),
        UpdateExpression: 'SET delivery.#s = :retrying, delivery.#t = :token, delivery.#at = :now, updatedAt = :now',
        ConditionExpression: `attribute_exists(destination) AND attribute_exists(files) AND #st IN (${ENDED.map((_, i) => `:e${i}`).join(', ')}) AND (delivery.#s = :failed OR (delivery.#s = :retrying AND delivery.#at < :stale))`,
        ExpressionAttributeNames: { '#s': 'state', '#t': 'token', '#at': 'at', '#st': 'state' },
        ExpressionAttributeValues: { ':retrying': 'retrying', ':failed': 'failed', ':token': token, ':now': now, ':stale': now - staleMs, ...Object.fromEntries(ENDED.map((s, i) => [`:e${i}`, s])) },
      }),
    ),
  );
}

/** Records how the claimed delivery went, only while `token` still holds the claim (false otherwise). */
export async function settleRedelivery(teamId: string, jobId: string, token: string, delivery: Delivery): Promise<boolean> {
  return conditionally(() =>
    db().send(
      new UpdateCommand({
        TableName: config.jobsTable,
        Key: jobKey(teamId, jobId),
        UpdateExpression: 'SET delivery = :d, updatedAt = :now',
        ConditionExpression: 'delivery.#s = :retrying AND delivery.#t = :token',
        ExpressionAttributeNames: { '#s': 'state', '#t': 'token' },
        ExpressionAttributeValues: { ':d': delivery, ':now': Date.now(), ':retrying': 'retrying', ':token': token },
      }),
    ),
  );
}
