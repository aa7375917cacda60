import { extractionFailed } from '../../http/errors';
import type { DailyData } from './resources';
import { BULLETIN_FIELDS, type BulletinField } from './source';

/**
 * The bulletin out of the source's answer, field by field where the deployer said it is:
 *   JSON source: each field is the string at its JSON Pointer (RFC 6901), as given;
 *   HTML page:   each field is the text content, trimmed, of the first element its CSS selector
 *                matches (./page.ts, loaded only for an HTML source: a JSON source never loads linkedom).
 * A field the answer does not carry (absent, not a string, empty) or a date that is not YYYY-MM-DD
 * is EXTRACTION_FAILED, and the log names the field and where it was looked for. Nothing is made up.
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

/** The bulletin from what was found, or EXTRACTION_FAILED naming what was not. */
export function bulletin(found: Found, where: Where, kind: string): DailyData {
  const missing = BULLETIN_FIELDS.filter((f) => found[f] === null);
  if (missing.length) {
    throw extractionFailed(`citygame source answered without ${missing.map((f) => `${f} (${kind} ${where[f]})`).join(', ')}`);
  }
  const { date, weekday, weather, headline, tip } = found as Record<BulletinField, string>;
  if (!isCalendarDate(date)) throw extractionFailed(`citygame source's date is not YYYY-MM-DD: ${JSON.stringify(date.slice(0, 40))} (${kind} ${where.date})`);
  return { date, weekday, weather, headline, tip };
}
