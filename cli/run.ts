import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, unlinkSync } from 'node:fs';
import { ApiClientError, SocialDataClient, type CacheMaxAge, type Meta } from '../client';
import { ApiError } from '../shared/http/errors';
import { validateQuery } from '../shared/http/validation';
import { encoder, fileSink, stdoutSink, type Format, type OutputRecord, type Sink } from './output';
import { progressBar, summaryLine } from './progress';
import { RateGate } from './rate-gate';
import { freshState, isFinished, itemKey, markFinished, removeState, saveState, seenIds, startingState, statePath, type Progress, type RunState } from './state';
import type { Command } from './table';
import { EXIT } from './usage-error';

/**
 * One run of an operation: for each input (one, or every value of --input), its first page or, with
 * --all, every page, following the cursor to the end (within --max-pages / --max-items), removing items
 * an earlier page of the same input had. Inputs run --concurrency at a time, paced by one RateGate.
 * Every page is written as it arrives (see output.ts) and, for a file, recorded in the run's state
 * (state.ts) before the next request. An input that fails is a JSON line in the errors file and the
 * others go on; 401 and 402 stop the run (every other input would fail the same way), its state kept.
 */
export interface RunOptions {
  command: Command;
  /** The operation's parameters given as options (the input's own value is added per input). */
  params: Record<string, string>;
  /** --input: the values, and the parameter they fill. */
  batch?: { param: string; values: string[]; duplicates: number; digest: string; sameAs?: [string, string][] };
  all: boolean;
  maxPages?: number;
  maxItems?: number;
  cacheMaxAge?: CacheMaxAge;
  format: Format;
  /** --columns: the CSV columns, by name, in order (default: all of them). */
  columns?: string[];
  out?: string;
  errors?: string;
  resume: boolean;
  quiet: boolean;
  concurrency: number;
  /** Requests per minute the run may send (the team's limit). */
  rate: number;
  /** Further attempts after a 429 or 503 (the typed client waits each one's Retry-After). */
  retries: number;
  apiUrl: string;
  apiKey: string;
  /** For tests: the client's fetch. */
  fetch?: typeof fetch;
}

interface Task {
  index: number;
  /** The --input value (batch runs). */
  input?: string;
  query: Record<string, string>;
  /** A problem the operation's own rules find in the query: the input fails without a request. */
  invalid?: ApiError;
}

/** A page whose items bring nothing new this many times in a row ends the input (a source re-ranking forever would cost credits for nothing). */
const MAX_PAGES_WITHOUT_NEW_ITEMS = 3;
/** 429s are about pace, not the input: a page is asked again this many more times before its input fails. */
const RATE_LIMITED_ROUNDS = 10;

export interface Runner {
  /** Resolves with the exit code. */
  done: Promise<number>;
  /** Ctrl-C: no new request; the requests in flight end and are written; the state is saved. */
  stop(): void;
  /** A second Ctrl-C: the requests in flight are abandoned too (their pages are asked again on --resume). */
  abort(): void;
}

export function tasksOf(opts: Pick<RunOptions, 'command' | 'params' | 'batch' | 'cacheMaxAge'>): Task[] {
  const values = opts.batch?.values ?? [undefined];
  const rules = { params: opts.command.op.params, oneOf: opts.command.op.oneOf };
  return values.map((input, index) => {
    const query = input === undefined ? { ...opts.params } : { ...opts.params, [opts.batch!.param]: input };
    let invalid: ApiError | undefined;
    try {
      validateQuery(rules, { ...query, ...(opts.cacheMaxAge ? { cache_max_age: opts.cacheMaxAge } : {}) });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      invalid = err;
    }
    return { index, input, query, invalid };
  });
}

export const fingerprintOf = (opts: RunOptions) =>
  createHash('sha256')
    .update(
      JSON.stringify({
        operation: opts.command.op.id,
        params: Object.entries(opts.params).sort(),
        inputs: opts.batch ? { param: opts.batch.param, digest: opts.batch.digest } : null,
        format: opts.format,
        columns: opts.columns ?? null,
        all: opts.all,
        maxPages: opts.maxPages ?? null,
        maxItems: opts.maxItems ?? null,
      }),
    )
    .digest('hex');

export const defaultErrorsFile = (opts: Pick<RunOptions, 'out' | 'command'>) => (opts.out ? `${opts.out}.errors.jsonl` : `${opts.command.op.id}.errors.jsonl`);

export function startRun(opts: RunOptions): Runner {
  const stopper = new AbortController();
  let stopping = false;
  const runner: Runner = {
    done: Promise.resolve(0),
    stop: () => void (stopping = true),
    abort: () => {
      stopping = true;
      stopper.abort(new Error('aborted'));
    },
  };
  runner.done = run(opts, () => stopping, stopper.signal, () => (stopping = true));
  return runner;
}

async function run(opts: RunOptions, isStopping: () => boolean, signal: AbortSignal, stopAll: () => void): Promise<number> {
  const { command } = opts;
  const tasks = tasksOf(opts);
  const batch = opts.batch !== undefined;
  const sameAs = opts.batch?.sameAs ?? [];
  if (sameAs.length && !opts.quiet) {
    const shown = sameAs.slice(0, 3).map(([value, earlier]) => `${value} = ${earlier}`).join(', ');
    process.stderr.write(`social-data: ${sameAs.length} input${sameAs.length === 1 ? '' : 's'} name what an earlier one names, run once: ${shown}${sameAs.length > 3 ? ', …' : ''}\n`);
  }
  const errorsFile = opts.errors ?? (batch ? defaultErrorsFile(opts) : undefined);
  const stateFile = opts.out ? statePath(opts.out) : undefined;
  const state: RunState = opts.out ? startingState(opts.out, fingerprintOf(opts), opts.resume) : freshState('');
  const resumed = state.outputBytes > 0 || Object.keys(state.inProgress).length > 0 || state.next > 0;
  // Whether the pages the stopped run was to ask next may have been asked (and charged) already.
  const mayHaveBeenAsked = !state.clean;
  delete state.clean;
  if (errorsFile && !resumed && existsSync(errorsFile)) unlinkSync(errorsFile);

  const allColumns = batch ? [{ name: 'input', path: ['input'], json: false }, ...command.columns] : command.columns;
  const columns = opts.columns ? opts.columns.map((name) => allColumns.find((c) => c.name === name)!) : allColumns;
  const enc = encoder(opts.format, columns, { bom: opts.out !== undefined });
  const sink: Sink = opts.out ? fileSink(opts.out, state.outputBytes) : stdoutSink();
  if (state.outputBytes === 0) await sink.write(enc.start());
  state.outputBytes = sink.bytes;

  // The ids written for the inputs in progress (read back from the output).
  const inProgress = new Map<string | undefined, number>(Object.keys(state.inProgress).map((i) => [tasks[Number(i)]?.input, Number(i)]));
  const seen = opts.out ? await seenIds(opts.out, opts.format, inProgress) : new Map<number, Set<string>>();

  const gate = new RateGate({ perMinute: opts.rate });
  let requests = 0;
  const client = new SocialDataClient({
    baseUrl: opts.apiUrl,
    apiKey: opts.apiKey,
    retry: { attempts: opts.retries + 1, maxDelayMs: 120_000 },
    beforeRequest: (_url, s) => gate.turn(s),
    onResponse: (res) => {
      requests += 1;
      gate.observe(res.status, res.headers);
    },
    fetch: opts.fetch,
  });
  const progress = progressBar(tasks.length, { quiet: opts.quiet });
  const doneCount = () => state.next + state.finished.length;
  let fatal: ApiClientError | undefined;
  let singleError: string | undefined;

  // Every write to the output, the errors file and the state goes through this one queue, in order.
  let queue: Promise<void> = Promise.resolve();
  const commit = (work: () => Promise<void> | void): Promise<void> => {
    const next = queue.then(work);
    queue = next.catch(() => undefined);
    return next;
  };
  const save = () => {
    if (stateFile) saveState(stateFile, state);
    progress.update(doneCount(), state.totals, requests);
  };

  const fail = (task: Task, error: { status?: number; code: string; message: string; requestId?: string; details?: unknown }, at?: Progress) =>
    commit(() => {
      state.totals.failed += 1;
      const line = { input: task.input ?? null, ...error, ...(at && at.pages > 0 ? { pages: at.pages, cursor: at.cursor } : {}) };
      if (errorsFile) appendFileSync(errorsFile, `${JSON.stringify(line)}\n`);
      if (!batch) singleError = `${error.code}${error.status ? ` (${error.status})` : ''}: ${error.message}${error.requestId ? ` [request ${error.requestId}]` : ''}`;
      markFinished(state, task.index);
      save();
    });

  const page = async (query: Record<string, string>, cacheMaxAge: CacheMaxAge | undefined) => {
    for (let round = 0; ; round++) {
      gate.inFlight += 1;
      try {
        return await client.call<{ data: Record<string, unknown>; meta: Meta }>(command.op.path, query, { cacheMaxAge, signal });
      } catch (err) {
        if (err instanceof ApiClientError && err.status === 429 && round < RATE_LIMITED_ROUNDS && !isStopping()) continue;
        throw err;
      } finally {
        gate.inFlight -= 1;
      }
    }
  };

  const runTask = async (task: Task) => {
    if (task.invalid) {
      return fail(task, { status: task.invalid.status, code: task.invalid.code, message: task.invalid.message, details: task.invalid.details });
    }
    const wasInProgress = state.inProgress[task.index];
    let at: Progress = wasInProgress ?? { cursor: null, pages: 0, items: 0 };
    const ids = seen.get(task.index) ?? new Set<string>();
    let firstRequest = true;
    let withoutNew = 0;
    if (!wasInProgress) {
      // Recorded before the first request: if the run stops while it is in flight, --resume asks it from the cache.
      await commit(() => {
        state.inProgress[task.index] = at;
        save();
      });
    }
    for (;;) {
      if (isStopping()) return;
      const query = { ...task.query, ...(at.cursor !== null && command.cursorParam ? { [command.cursorParam]: at.cursor } : {}) };
      // The page in flight when an earlier run stopped may have been charged: its cache entry, if so, is free.
      const cacheMaxAge = opts.cacheMaxAge ?? (firstRequest && wasInProgress && mayHaveBeenAsked ? '1d' : undefined);
      firstRequest = false;
      let answer: { data: Record<string, unknown>; meta: Meta };
      try {
        answer = await page(query, cacheMaxAge);
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof ApiClientError) {
          if (err.status === 401 || err.status === 402) {
            fatal ??= err;
            stopAll();
            return;
          }
          return fail(task, { status: err.status, code: err.code, message: err.message, requestId: err.requestId || undefined, ...(err.details ? { details: err.details } : {}) }, at);
        }
        return fail(task, { code: 'NETWORK_ERROR', message: err instanceof Error ? `${err.message}${err.cause instanceof Error ? `: ${err.cause.message}` : ''}` : String(err) }, at);
      }
      const { data, meta } = answer;
      const list = command.listField ? ((data[command.listField] as OutputRecord[] | undefined) ?? []) : [data];
      // Only items an earlier page had are dropped: on one page, a post and its repost share an id.
      const fresh: OutputRecord[] = [];
      const keys: string[] = [];
      let duplicates = 0;
      for (const item of list) {
        const key = command.listField ? itemKey(item) : undefined;
        if (key !== undefined && ids.has(key)) {
          duplicates += 1;
          continue;
        }
        if (key !== undefined) keys.push(key);
        fresh.push(batch ? { input: task.input, ...item } : item);
      }
      for (const key of keys) ids.add(key);
      const room = opts.maxItems === undefined ? fresh.length : Math.max(0, opts.maxItems - at.items);
      const records = fresh.slice(0, room);
      withoutNew = fresh.length ? 0 : withoutNew + 1;
      const next = command.cursorParam ? (data.cursor as string | null | undefined) ?? null : null;
      const after: Progress = { cursor: next, pages: at.pages + 1, items: at.items + records.length };
      const hasNext = next !== null && next !== at.cursor && data.hasMore !== false;
      const within = (opts.maxPages === undefined || after.pages < opts.maxPages) && (opts.maxItems === undefined || after.items < opts.maxItems);
      const more = hasNext && opts.all && within && withoutNew < MAX_PAGES_WITHOUT_NEW_ITEMS;
      await commit(async () => {
        await sink.write(enc.records(records, state.records));
        state.outputBytes = sink.bytes;
        state.records += records.length;
        const t = state.totals;
        t.pages += 1;
        t.items += records.length;
        t.duplicates += duplicates;
        t.credits += meta.creditsCharged;
        if (meta.cached) t.cacheHits += 1;
        if (more) state.inProgress[task.index] = after;
        else {
          if (hasNext) t.morePages += 1;
          markFinished(state, task.index);
        }
        save();
      });
      if (!more) return;
      at = after;
    }
  };

  // The inputs in progress first (they finish what a stopped run began), then the rest in order.
  const pending = tasks.filter((t) => !isFinished(state, t.index));
  pending.sort((a, b) => Number(b.index in state.inProgress) - Number(a.index in state.inProgress) || a.index - b.index);
  let cursor = 0;
  const worker = async () => {
    while (!isStopping() && cursor < pending.length) await runTask(pending[cursor++]!);
  };
  progress.update(doneCount(), state.totals);
  await Promise.all(Array.from({ length: Math.max(1, Math.min(opts.concurrency, pending.length)) }, worker));
  await queue;

  const complete = doneCount() === tasks.length;
  if (complete) {
    await sink.write(enc.end(state.records));
    if (stateFile) removeState(stateFile);
  } else if (stateFile && !signal.aborted) {
    // Every request sent was answered and written: none is in flight.
    state.clean = true;
    saveState(stateFile, state);
  }
  await sink.close();
  progress.stop();

  const again = opts.out ? 'run again with --resume to continue' : undefined;
  const stopped = complete ? undefined : fatal ? `stopped: ${fatal.code} (${fatal.status}): ${fatal.message}${again ? `; ${again} once that is solved` : ''}` : `interrupted${again ? `: ${again}` : ''}`;
  // Errors are written whatever --quiet says; the summary is not.
  if (singleError) process.stderr.write(`social-data ${command.op.id}: ${singleError}\n`);
  if (fatal && opts.quiet) process.stderr.write(`social-data ${command.op.id}: ${stopped}\n`);
  if (!opts.quiet) {
    const hint = opts.all ? 'more pages left (--max-pages / --max-items)' : 'more pages left: --all follows them';
    process.stderr.write(`${summaryLine(state.totals, tasks.length, { errorsFile: batch ? errorsFile : undefined, stopped, hint })}\n`);
  }
  if (fatal) return EXIT.failed;
  if (!complete) return EXIT.interrupted;
  return state.totals.failed ? EXIT.failed : EXIT.ok;
}
