import { createReadStream, existsSync, readFileSync, renameSync, statSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import type { Format } from './output';
import { UsageError } from './usage-error';

/**
 * The state of a run that writes to a file, kept next to it (`<out>.state.json`) and rewritten
 * (atomically: a temporary file renamed over it) after every page and before every input's first
 * request, so that a run stopped at any moment, even killed, can be continued with --resume:
 *   - the inputs finished (succeeded or failed), as a watermark and the few finished beyond it;
 *   - each input in progress and the cursor of its next page: unless the run stopped cleanly (see
 *     `clean`), that page's request may have been sent (and charged) when it stopped, so the resumed
 *     run asks for it with cache_max_age=1d (unless the run sets its own), which the service answers
 *     from its cache for free when it was scraped;
 *   - the length of the output at the last page written: anything after it is cut off, so a page is
 *     never written twice;
 *   - the totals, so that the closing summary covers the whole run.
 * The ids of the items of an input in progress (for removing duplicates) are read back from the
 * output itself. The state file is removed when the run ends with every input finished.
 */
export interface Totals {
  pages: number;
  items: number;
  credits: number;
  cacheHits: number;
  failed: number;
  /** Items dropped because an earlier page of the same input had them. */
  duplicates: number;
  /** Inputs that stopped with a next page left (without --all, or at --max-pages / --max-items). */
  morePages: number;
}

export interface Progress {
  cursor: string | null;
  pages: number;
  items: number;
}

export interface RunState {
  version: 1;
  /** What the run is (operation, parameters, inputs, format, paging): a resumed run must be the same run. */
  fingerprint: string;
  outputBytes: number;
  records: number;
  /** Inputs 0 … next-1 are finished. */
  next: number;
  /** Finished inputs at or beyond `next`. */
  finished: number[];
  inProgress: Record<string, Progress>;
  /**
   * Set when the run stopped with no request in flight (Ctrl-C once, or a 401/402 that stopped it):
   * the next pages were never asked, so the resumed run asks them live, not from the cache.
   */
  clean?: boolean;
  totals: Totals;
}

/**
 * What makes an item of a list the same item on another page: its id, and for a repost (microblog-a
 * and microblog-c return a repost as the original post, with repostedBy and repostedAt) the time of
 * the repost too. The same for a record read back from JSON and from a CSV row (empty cells there).
 */
import { itemKey } from '../shared/api/columns';
export { ITEM_KEY_FIELDS, itemKey } from '../shared/api/columns';

export const statePath = (out: string) => `${out}.state.json`;

export const emptyTotals = (): Totals => ({ pages: 0, items: 0, credits: 0, cacheHits: 0, failed: 0, duplicates: 0, morePages: 0 });

export function freshState(fingerprint: string): RunState {
  return { version: 1, fingerprint, outputBytes: 0, records: 0, next: 0, finished: [], inProgress: {}, totals: emptyTotals() };
}

export const isFinished = (state: RunState, index: number) => index < state.next || state.finished.includes(index);

export function markFinished(state: RunState, index: number): void {
  delete state.inProgress[index];
  if (!state.finished.includes(index)) state.finished.push(index);
  state.finished.sort((a, b) => a - b);
  while (state.finished[0] === state.next) {
    state.finished.shift();
    state.next += 1;
  }
  state.finished = state.finished.filter((i) => i >= state.next);
}

export function saveState(path: string, state: RunState): void {
  const tmp = `${path}.tmp`;
  writeFileSync(tmp, JSON.stringify(state));
  renameSync(tmp, path);
}

export function removeState(path: string): void {
  if (existsSync(path)) unlinkSync(path);
}

/**
 * The state a run starts from. Fresh: refused when an interrupted run's state is there (it would be
 * lost with the output it describes). Resumed: refused without a state to resume, or when the state is
 * another run's; the output is cut back to the last page the state knows.
 */
export function startingState(out: string, fingerprint: string, resume: boolean): RunState {
  const path = statePath(out);
  const exists = existsSync(path);
  if (!resume) {
    if (exists) throw new UsageError(`${path} holds the state of an interrupted run: add --resume to continue it, or delete it to start again`);
    return freshState(fingerprint);
  }
  if (!exists) {
    if (existsSync(out)) throw new UsageError(`--resume: ${out} has no state file (${path}): the run that wrote it finished; remove it to run again`);
    return freshState(fingerprint);
  }
  let state: RunState;
  try {
    state = JSON.parse(readFileSync(path, 'utf8')) as RunState;
  } catch (err) {
    throw new UsageError(`--resume: ${path} is not a state file (${(err as Error).message})`);
  }
  if (state.version !== 1 || state.fingerprint !== fingerprint) {
    throw new UsageError(`--resume: ${path} is the state of another run (operation, parameters, inputs, --format, --columns, --all, --max-pages or --max-items differ)`);
  }
  const size = existsSync(out) ? statSync(out).size : 0;
  if (size < state.outputBytes) throw new UsageError(`--resume: ${out} is shorter than the state says (${size} < ${state.outputBytes} bytes): it was changed since`);
  truncateSync(out, state.outputBytes);
  return state;
}

/**
 * The ids already written for each input in progress, read back from the output: the records of an
 * input carry its value in `input` (batch runs), or all belong to the one input of a single run.
 */
export async function seenIds(out: string, format: Format, inputsInProgress: Map<string | undefined, number>): Promise<Map<number, Set<string>>> {
  const seen = new Map<number, Set<string>>([...inputsInProgress.values()].map((i) => [i, new Set<string>()]));
  if (!inputsInProgress.size || !existsSync(out)) return seen;
  const note = (record: Record<string, unknown>) => {
    const index = inputsInProgress.get(typeof record.input === 'string' ? record.input : undefined);
    const key = itemKey(record);
    if (index !== undefined && key !== undefined) seen.get(index)!.add(key);
  };
  if (format === 'csv') {
    const parser = createReadStream(out).pipe(parse({ columns: true, bom: true, relax_column_count: true }));
    for await (const row of parser as AsyncIterable<Record<string, string>>) note(row);
    return seen;
  }
  const lines = createInterface({ input: createReadStream(out, 'utf8'), crlfDelay: Infinity });
  for await (const raw of lines) {
    // jsonl: a record a line; json: a record a line too, between `[` and `]`, each but the last followed by `,`.
    const line = raw.trim().replace(/,$/, '');
    if (!line || line === '[' || line === ']') continue;
    try {
      note(JSON.parse(line) as Record<string, unknown>);
    } catch {
      /* not a record line */
    }
  }
  return seen;
}
