import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { UsageError } from './usage-error';

/**
 * The values of an --input file: one a line (blank lines skipped), or, with --column, that column of
 * a CSV file with a header row (RFC 4180, a UTF-8 byte order mark allowed). Values are trimmed and
 * a value given twice is run once.
 */
export interface Inputs {
  values: string[];
  /** Values left out because they were given before. */
  duplicates: number;
  /** A digest of the values, so that --resume refuses a changed input file. */
  digest: string;
}

export function readInputs(file: string, column?: string): Inputs {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--input ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  const raw = column === undefined ? text.replace(/^\uFEFF/, '').split(/\r?\n/) : csvColumn(file, text, column);
  const seen = new Set<string>();
  let duplicates = 0;
  for (const value of raw.map((r) => r.trim()).filter((r) => r !== '')) {
    if (seen.has(value)) duplicates += 1;
    else seen.add(value);
  }
  const values = [...seen];
  if (!values.length) throw new UsageError(`--input ${file}: no values${column === undefined ? '' : ` in column ${column}`}`);
  return { values, duplicates, digest: createHash('sha256').update(values.join('\n')).digest('hex') };
}

function csvColumn(file: string, text: string, column: string): string[] {
  let rows: Record<string, string>[];
  try {
    rows = parse(text, { columns: true, bom: true, skip_empty_lines: true, relax_column_count: true }) as Record<string, string>[];
  } catch (err) {
    throw new UsageError(`--input ${file}: not a CSV file (${(err as Error).message})`);
  }
  if (rows.length && !Object.hasOwn(rows[0]!, column)) throw new UsageError(`--column ${column}: ${file} has no such column (it has ${Object.keys(rows[0]!).join(', ')})`);
  return rows.map((r) => r[column] ?? '');
}
