import { stringify } from 'csv-stringify/sync';
import pLimit from 'p-limit';
import { recordColumns, rowOf } from '../api/columns';
import type { Operation } from '../operations';
import { files, partKey, resultKey } from './files';
import type { InvalidInput } from './inputs';

/**
 * A job's result files, assembled from its inputs' parts (shared/jobs/files.ts) in input order once
 * the job ends:
 *
 *   items.jsonl   one JSON object per item: `input` first, then the item (de-duplicated by id across
 *                 an input's pages; an operation without a list: its whole answer)
 *   items.csv     the same rows, RFC 4180 (csv-stringify): CRLF between records, every field holding a
 *                 comma, a quote, CR or LF (a lone `\n` included) quoted, quotes doubled; the columns the
 *                 command line derives from the operation's schema (shared/api/columns.ts), after `input`
 *   errors.jsonl  one object per input that failed or was invalid: line, input, status, code, message
 *   errors.csv    the same, as CSV
 */
export interface Part {
  index: number;
  line: number;
  input: string;
  items: Record<string, unknown>[];
  pages: number;
  error?: { status: number; code: string; message: string };
}

export const RESULT_FILES = ['items.jsonl', 'items.csv', 'errors.jsonl', 'errors.csv'] as const;
export type ResultFile = (typeof RESULT_FILES)[number];
export const CONTENT_TYPES: Record<ResultFile, string> = {
  'items.jsonl': 'application/x-ndjson',
  'items.csv': 'text/csv; charset=utf-8',
  'errors.jsonl': 'application/x-ndjson',
  'errors.csv': 'text/csv; charset=utf-8',
};

const CSV = { record_delimiter: 'windows', quoted_match: /[\r\n]/, bom: false } as const;
export const ERROR_COLUMNS = ['line', 'input', 'status', 'code', 'message'] as const;

/** The invalid inputs a job skipped (skipInvalid), kept beside its parts. */
export const invalidKey = (teamId: string, jobId: string) => `jobs/${teamId}/${jobId}/invalid.json`;

export const writePart = (teamId: string, jobId: string, part: Part) => files().put(partKey(teamId, jobId, part.index), JSON.stringify(part), 'application/json');

/** The CSV text of rows under a header (RFC 4180, as above). */
export const csvOf = (header: readonly string[], rows: readonly (readonly unknown[])[]) => stringify([header as unknown[], ...(rows as unknown[][])], CSV);

/**
 * Reads every part (`indices`: the inputs that ran), writes the four files; the counts of items and
 * error rows. Parts are read 16 at a time.
 */
export async function writeResults(op: Operation, teamId: string, jobId: string, indices: readonly number[]): Promise<{ items: number; errors: number }> {
  const store = files();
  const limit = pLimit(16);
  const parts = await Promise.all(indices.map((i) => limit(async () => JSON.parse((await store.get(partKey(teamId, jobId, i))) ?? 'null') as Part | null)));
  const invalid = JSON.parse((await store.get(invalidKey(teamId, jobId))) ?? '[]') as InvalidInput[];
  const columns = recordColumns(op);
  const jsonl: string[] = [];
  const rows: string[][] = [];
  const errors: { line: number; input: string; status: number; code: string; message: string }[] = invalid.map((x) => ({
    line: x.line,
    input: x.input,
    status: 422,
    code: 'VALIDATION_ERROR',
    message: x.details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; '),
  }));
  for (const part of parts) {
    if (!part) continue;
    for (const item of part.items) {
      jsonl.push(JSON.stringify({ input: part.input, ...item }));
      rows.push([part.input, ...rowOf(item, columns)]);
    }
    if (part.error) errors.push({ line: part.line, input: part.input, ...part.error });
  }
  errors.sort((a, b) => a.line - b.line);
  const put = (name: ResultFile, body: string) => store.put(resultKey(teamId, jobId, name), body, CONTENT_TYPES[name]);
  await Promise.all([
    put('items.jsonl', jsonl.map((l) => `${l}\n`).join('')),
    put('items.csv', csvOf(['input', ...columns.map((c) => c.name)], rows)),
    put('errors.jsonl', errors.map((e) => `${JSON.stringify(e)}\n`).join('')),
    put('errors.csv', csvOf(ERROR_COLUMNS, errors.map((e) => ERROR_COLUMNS.map((c) => e[c])))),
  ]);
  return { items: jsonl.length, errors: errors.length };
}
