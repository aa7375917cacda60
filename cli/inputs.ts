import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { ApiError } from '../shared/http/errors';
import { validateQuery, type ValidationRules } from '../shared/http/validation';
import { cacheKey } from '../shared/result-cache';
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
  return { values, duplicates, digest: digestOf(values) };
}

const digestOf = (values: string[]) => createHash('sha256').update(values.join('\n')).digest('hex');

/**
 * Values that name the same thing (`alice`, `@alice`, alice's profile URL) run once, as the first of
 * them: two values are the same when the operation's own parameter rules normalise them to one cache
 * key (validateQuery, then the result cache's cacheKey), the rule by which the API already serves
 * them one cache entry. A value the rules refuse is kept: it fails on its own, in the errors file.
 */
export function sameThingOnce(op: { id: string } & ValidationRules, params: Record<string, string>, param: string, inputs: Inputs): Inputs & { sameAs: [string, string][] } {
  const first = new Map<string, string>();
  const sameAs: [string, string][] = [];
  const values = inputs.values.filter((value) => {
    let key: string;
    try {
      key = cacheKey(op.id, validateQuery(op, { ...params, [param]: value }).values);
    } catch (err) {
      if (err instanceof ApiError) return true;
      throw err;
    }
    const earlier = first.get(key);
    if (earlier === undefined) return first.set(key, value), true;
    sameAs.push([value, earlier]);
    return false;
  });
  return { values, duplicates: inputs.duplicates + sameAs.length, digest: digestOf(values), sameAs };
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
