import { parse as parseCsv } from 'csv-parse/sync';
import { ApiError, type ValidationDetail } from '../http/errors';
import { validateQuery } from '../http/validation';
import type { Operation } from '../operations';
import type { ParamDef } from '../http/validation';
import { cacheKey } from '../result-cache';

/**
 * A job's inputs, each checked by its operation's own rules (shared/http/validation.ts: the same
 * valibot schemas its function validates a request by) before anything runs, then de-duplicated by
 * the result cache's key: `@alice`, `alice` and alice's profile URL normalise to one key and run once.
 *
 * An input is a JSON object of the operation's query parameters (`{"handle": "alice"}`), or a plain
 * string for its main parameter (the required one, else the first of its either-or pair), as the
 * command line's --input reads a line. An uploaded file is JSON Lines (one such value a line) or CSV
 * (a header row naming the parameters; RFC 4180, read by csv-parse). `line` counts from 1: the index
 * in the inline array plus one, or the file's line (the CSV header is line 1).
 */
export interface JobInput {
  line: number;
  /** The input as given, for the result files' `input` column: the main value, or the JSON object. */
  input: string;
  /** The query parameters it runs with (as given: the operation's function normalises them again). */
  params: Record<string, string>;
}

export interface InvalidInput {
  line: number;
  input: string;
  details: ValidationDetail[];
}

export interface CheckedInputs {
  inputs: JobInput[];
  invalid: InvalidInput[];
  /** Inputs that named what an earlier one names (one cache key): not run again. */
  duplicates: number;
}

/** The parameter a plain string fills. */
export function mainParam(op: Operation): string | undefined {
  const required = Object.entries(op.params as Record<string, ParamDef>).find(([, def]) => def.required)?.[0];
  return required ?? op.oneOf?.[0]?.[0];
}

/** Parameters a job sets itself, never an input: the cursor (pages) and cache_max_age (the job's). */
const JOB_OWNED = (op: Operation) => new Set(['cache_max_age', ...Object.entries(op.params as Record<string, ParamDef>).filter(([, d]) => d.cursor).map(([n]) => n)]);

function shown(raw: unknown): string {
  if (typeof raw === 'string') return raw;
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    const values = Object.values(raw as Record<string, unknown>);
    if (values.length === 1 && typeof values[0] === 'string') return values[0];
  }
  return JSON.stringify(raw) ?? String(raw);
}

/** One raw input to its parameters, or its problems (each with its field). */
function paramsOf(op: Operation, raw: unknown): { params: Record<string, string> } | { details: ValidationDetail[] } {
  const main = mainParam(op);
  if (typeof raw === 'string') {
    if (!main) return { details: [{ path: '', message: 'This operation takes an object of parameters, not a string' }] };
    raw = { [main]: raw };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { details: [{ path: '', message: 'Must be an object of query parameters or a string' }] };
  const owned = JOB_OWNED(op);
  const details: ValidationDetail[] = [];
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (owned.has(k)) details.push({ path: k, message: 'Set by the job (pages, cache_max_age), not by an input' });
    else if (typeof v !== 'string') details.push({ path: k, message: 'Must be a string' });
    else params[k] = v;
  }
  if (details.length) return { details };
  return { params };
}

/** Checks every input; `lineOf(i)` is the line the i-th one came from. */
export function checkInputs(op: Operation, raws: readonly unknown[], lineOf: (i: number) => number = (i) => i + 1): CheckedInputs {
  const rules = { params: op.params, oneOf: op.oneOf };
  const seen = new Set<string>();
  const out: CheckedInputs = { inputs: [], invalid: [], duplicates: 0 };
  raws.forEach((raw, i) => {
    const line = lineOf(i);
    const input = shown(raw);
    const p = paramsOf(op, raw);
    if ('details' in p) return void out.invalid.push({ line, input, details: p.details });
    try {
      const { values } = validateQuery(rules, p.params);
      const key = cacheKey(op.id, values as Record<string, unknown>);
      if (seen.has(key)) return void (out.duplicates += 1);
      seen.add(key);
      out.inputs.push({ line, input, params: p.params });
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      out.invalid.push({ line, input, details: err.details ?? [{ path: '', message: err.message }] });
    }
  });
  return out;
}

/** The 422 details of invalid inputs: `line <n>.<field>` each (at most 20 are sent: shared/http/validation.ts). */
export const inputProblems = (invalid: readonly InvalidInput[]): ValidationDetail[] =>
  invalid.flatMap((x) => x.details.map((d) => ({ path: `line ${x.line}${d.path ? `.${d.path}` : ''}`, message: d.message })));

export type UploadFormat = 'jsonl' | 'csv';

/**
 * An uploaded file's raw inputs and the line each came from; a line that is not JSON is an input of
 * its own that fails (`undefined`: "not JSON"), blank lines are skipped.
 */
export function parseUpload(text: string, format: UploadFormat): { raws: unknown[]; lines: number[]; unreadable: InvalidInput[] } {
  const raws: unknown[] = [];
  const lines: number[] = [];
  const unreadable: InvalidInput[] = [];
  if (format === 'jsonl') {
    text.split(/\r?\n/).forEach((l, i) => {
      if (!l.trim()) return;
      try {
        raws.push(JSON.parse(l) as unknown);
        lines.push(i + 1);
      } catch {
        unreadable.push({ line: i + 1, input: l.slice(0, 200), details: [{ path: '', message: 'Not a JSON value' }] });
      }
    });
    return { raws, lines, unreadable };
  }
  let records: { record: Record<string, string>; line: number }[];
  try {
    records = (parseCsv(text, { columns: true, skip_empty_lines: true, bom: true, info: true, trim: true }) as { record: Record<string, string>; info: { lines: number } }[]).map((r) => ({ record: r.record, line: r.info.lines }));
  } catch (err) {
    throw new ApiError('VALIDATION_ERROR', 'The input file is not valid CSV', { details: [{ path: 'inputsUpload', message: (err as Error).message.slice(0, 200) }] });
  }
  for (const { record, line } of records) {
    // Empty cells are parameters left out (an either-or pair in two columns).
    raws.push(Object.fromEntries(Object.entries(record).filter(([, v]) => v !== '')));
    lines.push(line);
  }
  return { raws, lines, unreadable };
}
