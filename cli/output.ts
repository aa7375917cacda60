import { createWriteStream, type WriteStream } from 'node:fs';
import { stringify } from 'csv-stringify/sync';
import { CSV_OPTIONS, rowOf, type Column } from '../shared/api/columns';

/**
 * The three output formats, written a page at a time (nothing is held beyond the page in hand):
 *   jsonl  one record a line;
 *   json   one array, a record a line (`[`, `,`-separated lines, `]` at the end);
 *   csv    RFC 4180 (CRLF line ends, fields with a comma, quote or line break quoted, quotes doubled),
 *          a header row of the schema's columns, UTF-8 with a byte order mark in a file so that
 *          spreadsheets read it as UTF-8.
 * A record is an item of the operation's list, or the whole `data` of a single resource; in batch runs
 * it starts with the `input` it came from.
 */
export const FORMATS = ['jsonl', 'json', 'csv'] as const;
export type Format = (typeof FORMATS)[number];

export type OutputRecord = Record<string, unknown>;

export interface Encoder {
  /** What starts the output (a CSV header, the array's `[`). */
  start(): string;
  /** A page of records; `written` is how many were written before them. */
  records(records: OutputRecord[], written: number): string;
  /** What ends the output. */
  end(written: number): string;
}

export function encoder(format: Format, columns: Column[], opts: { bom: boolean }): Encoder {
  switch (format) {
    case 'jsonl':
      return { start: () => '', records: (rs) => rs.map((r) => `${JSON.stringify(r)}\n`).join(''), end: () => '' };
    case 'json':
      return {
        start: () => '[\n',
        records: (rs, written) => rs.map((r, i) => `${written + i > 0 ? ',\n' : ''}${JSON.stringify(r)}`).join(''),
        end: (written) => (written > 0 ? '\n]\n' : ']\n'),
      };
    case 'csv': {
      const options = CSV_OPTIONS; // shared/api/columns.ts: the jobs' result files use the same
      return {
        start: () => stringify([columns.map((c) => c.name)], { ...options, bom: opts.bom }),
        records: (rs) => (rs.length ? stringify(rs.map((r) => rowOf(r, columns)), options) : ''),
        end: () => '',
      };
    }
  }
}

/** Where the text goes: a file or standard output; every write resolves once the text is handed to the system. */
export interface Sink {
  write(text: string): Promise<void>;
  close(): Promise<void>;
  /** Bytes written so far, by this sink and before it (a resumed file's kept part). */
  bytes: number;
}

/** A file, new, or (`startAt` > 0) a resumed one whose kept part is `startAt` bytes long (cut to that length already). */
export function fileSink(path: string, startAt: number): Sink {
  const stream: WriteStream = createWriteStream(path, { flags: startAt > 0 ? 'a' : 'w' });
  const sink: Sink = {
    bytes: startAt,
    write: (text) =>
      new Promise((resolve, reject) => {
        if (!text) return resolve();
        const chunk = Buffer.from(text, 'utf8');
        stream.write(chunk, (err) => {
          if (err) return reject(err);
          sink.bytes += chunk.length;
          resolve();
        });
      }),
    close: () => new Promise((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve()))),
  };
  return sink;
}

export function stdoutSink(): Sink {
  const sink: Sink = {
    bytes: 0,
    write: (text) =>
      new Promise((resolve, reject) => {
        if (!text) return resolve();
        process.stdout.write(text, (err) => {
          if (err) return reject(err);
          sink.bytes += Buffer.byteLength(text);
          resolve();
        });
      }),
    close: async () => undefined,
  };
  return sink;
}
