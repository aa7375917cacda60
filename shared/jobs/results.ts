import { once } from 'node:events';
import { PassThrough, type Transform } from 'node:stream';
import { stringify } from 'csv-stringify';
import { CSV_OPTIONS, recordColumns, rowOf } from '../api/columns';
import type { Operation } from '../operations';
import { type FileStore, files, partKey, resultKey } from './files';
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

export const ERROR_COLUMNS = ['line', 'input', 'status', 'code', 'message'] as const;

/** The invalid inputs a job skipped (skipInvalid), kept beside its parts. */
export const invalidKey = (teamId: string, jobId: string) => `jobs/${teamId}/${jobId}/invalid.json`;

export const writePart = (teamId: string, jobId: string, part: Part) => files().put(partKey(teamId, jobId, part.index), JSON.stringify(part), 'application/json');

/** A CSV stream (RFC 4180, as above: csv-stringify's stream API) of array records, `header` its first. */
export function csvStream(header: readonly string[]): Transform {
  const out = stringify(CSV_OPTIONS);
  out.write(header as string[]);
  return out;
}

/** The parts of `indices` in input order, read `ahead` at a time ahead of the one handed out (null: no part). */
async function* partsInOrder(store: FileStore, teamId: string, jobId: string, indices: readonly number[], ahead: number): AsyncGenerator<Part | null> {
  const reading: Promise<Part | null>[] = [];
  let next = 0;
  const fill = () => {
    while (next < indices.length && reading.length < ahead) {
      const read = store.get(partKey(teamId, jobId, indices[next++]!)).then((text) => (text === null ? null : (JSON.parse(text) as Part)));
      read.catch(() => undefined); // awaited in turn below; never an unhandled rejection meanwhile
      reading.push(read);
    }
  };
  fill();
  while (reading.length) {
    const part = await reading.shift()!;
    fill();
    yield part;
  }
}

/** One result file being written from a stream: `write` waits while the stream is full (backpressure). */
function resultStream(store: FileStore, teamId: string, jobId: string, name: ResultFile, stream: Transform) {
  const done = store.putStream(resultKey(teamId, jobId, name), stream, CONTENT_TYPES[name]);
  done.catch(() => undefined); // awaited at the end; a failure meanwhile also ends the waits below
  return {
    stream,
    done,
    async write(chunk: unknown) {
      if (!stream.write(chunk)) await Promise.race([once(stream, 'drain'), done]);
    },
  };
}

/** Parts read ahead of the one being written. */
const READ_AHEAD = 16;

/**
 * Reads the parts of `indices` (the inputs that ran) in input order, READ_AHEAD at a time, and writes
 * the four files as streams while reading (shared/jobs/files.ts putStream: a multipart upload on AWS,
 * a temporary file renamed locally), so the memory a job's end holds does not grow with its size:
 * the parts read ahead and the buffers of the four streams. A file is whole or absent: on a failure
 * every stream is destroyed, which aborts its upload. The counts of items and error rows.
 */
export async function writeResults(op: Operation, teamId: string, jobId: string, indices: readonly number[]): Promise<{ items: number; errors: number }> {
  const store = files();
  const invalid = (JSON.parse((await store.get(invalidKey(teamId, jobId))) ?? '[]') as InvalidInput[]).sort((a, b) => a.line - b.line);
  const columns = recordColumns(op);
  const out = {
    itemsJsonl: resultStream(store, teamId, jobId, 'items.jsonl', new PassThrough()),
    itemsCsv: resultStream(store, teamId, jobId, 'items.csv', csvStream(['input', ...columns.map((c) => c.name)])),
    errorsJsonl: resultStream(store, teamId, jobId, 'errors.jsonl', new PassThrough()),
    errorsCsv: resultStream(store, teamId, jobId, 'errors.csv', csvStream(ERROR_COLUMNS)),
  };
  const all = Object.values(out);
  let items = 0;
  let errors = 0;
  type ErrorRow = { line: number; input: string; status: number; code: string; message: string };
  const writeError = async (e: ErrorRow) => {
    errors += 1;
    await out.errorsJsonl.write(`${JSON.stringify(e)}\n`);
    await out.errorsCsv.write(ERROR_COLUMNS.map((c) => e[c]));
  };
  // The invalid inputs (sorted by line) go between the parts' errors, in line order (the parts' lines grow with their index).
  let nextInvalid = 0;
  const invalidUpTo = async (line: number) => {
    for (; nextInvalid < invalid.length && invalid[nextInvalid]!.line <= line; nextInvalid++) {
      const x = invalid[nextInvalid]!;
      await writeError({ line: x.line, input: x.input, status: 422, code: 'VALIDATION_ERROR', message: x.details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join('; ') });
    }
  };
  try {
    for await (const part of partsInOrder(store, teamId, jobId, indices, READ_AHEAD)) {
      if (!part) continue;
      if (part.items.length) {
        await out.itemsJsonl.write(part.items.map((item) => `${JSON.stringify({ input: part.input, ...item })}\n`).join(''));
        for (const item of part.items) await out.itemsCsv.write([part.input, ...rowOf(item, columns)]);
        items += part.items.length;
      }
      if (part.error) {
        await invalidUpTo(part.line);
        await writeError({ line: part.line, input: part.input, ...part.error });
      }
    }
    await invalidUpTo(Infinity);
    for (const o of all) o.stream.end();
    await Promise.all(all.map((o) => o.done));
  } catch (err) {
    // No file half-written: every stream fails, so every upload is aborted (or its temporary file removed).
    for (const o of all) o.stream.destroy(err as Error);
    await Promise.allSettled(all.map((o) => o.done));
    throw err;
  }
  return { items, errors };
}
