import { extractionFailed } from '../../http/errors';
import { MissingValue } from '../../scrape/map';
import type { DailyData } from './resources';
import { BULLETIN_FIELDS, type BulletinField } from './source';

/**
 * The bulletin out of the source's answer, field by field where the deployer said it is:
 *   JSON source: each field is the string at its JSON Pointer (RFC 6901), as given;
 *   HTML page:   each field is the text content, trimmed, of the first element its CSS selector
 *                matches (./page.ts, loaded only for an HTML source: a JSON source never loads linkedom).
 * The date names the day the bulletin is for: without it (absent, not a string, empty) or with a
 * date that is not YYYY-MM-DD the answer is EXTRACTION_FAILED, and the log names the date and where
 * it was looked for. Any other field the answer does not carry is null (the scraper logs which, and
 * where it looked). Nothing is made up.
 */
export type Where = Record<BulletinField, string>;
export type Found = Record<BulletinField, string | null>;

/** The value at a JSON Pointer, or undefined where the document has none. */
export function atPointer(doc: unknown, pointer: string): unknown {
  let cur = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9]\d*)$/.test(token)) return undefined;
      cur = cur[Number(token)];
    } else if (typeof cur === 'object' && cur !== null && Object.hasOwn(cur, token)) {
      cur = (cur as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return cur;
}

export function mapJsonBulletin(data: unknown, where: Where): DailyData {
  const found = {} as Found;
  for (const f of BULLETIN_FIELDS) {
    const value = atPointer(data, where[f]);
    found[f] = typeof value === 'string' && value.trim() !== '' ? value : null;
  }
  return bulletin(found, where, 'JSON Pointer');
}

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** YYYY-MM-DD naming a day that exists (2026-02-30 does not). */
export function isCalendarDate(s: string): boolean {
  const m = CALENDAR_DATE.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** Where each field the answer did not carry was looked for ("tip (JSON Pointer /tip)"): for the log. */
export function notFound(data: DailyData, where: Where, kind: string): string[] {
  return BULLETIN_FIELDS.filter((f) => data[f] === null).map((f) => `${f} (${kind} ${where[f]})`);
}

/** The bulletin from what was found; EXTRACTION_FAILED naming the date, and where it was looked for, without one. */
export function bulletin(found: Found, where: Where, kind: string): DailyData {
  const { date, weekday, weather, headline, tip } = found;
  if (date === null) throw new MissingValue(`date (${kind} ${where.date})`);
  if (!isCalendarDate(date)) throw extractionFailed(`citygame source's date is not YYYY-MM-DD: ${JSON.stringify(date.slice(0, 40))} (${kind} ${where.date})`);
  return { date, weekday, weather, headline, tip };
}
