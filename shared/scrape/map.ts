import { ApiError } from '../http/errors';
import type { Drops } from './context';
/**
 * Small typed coercers for mapping upstream JSON to our resources, in the spirit of yt-dlp's
 * traverse_obj / int_or_none / url_or_none: a missing or mistyped upstream field becomes null,
 * never an exception, so each mapper can be one declarative object literal.
 */
export type Json = unknown;

/** Safe path getter: get(obj, 'a', 0, 'b') ~ obj?.a?.[0]?.b, with no throw on wrong types. */
export function get(obj: Json, ...path: (string | number)[]): unknown {
  let cur: unknown = obj;
  for (const key of path) {
    if (cur === null || cur === undefined) return undefined;
    if (typeof key === 'number') {
      if (!Array.isArray(cur)) return undefined;
      cur = cur[key < 0 ? cur.length + key : key];
    } else {
      if (typeof cur !== 'object' || Array.isArray(cur)) return undefined;
      cur = (cur as Record<string, unknown>)[key];
    }
  }
  return cur;
}

/**
 * A non-empty string, or null. Numbers are stringified (ids arrive as either), except an integer
 * beyond 2^53: JSON parsing has rounded it already, so its digits would name another id.
 */
export function str(v: unknown): string | null {
  if (typeof v === 'string') return v.length > 0 ? v : null;
  if (typeof v === 'number' && Number.isFinite(v) && (!Number.isInteger(v) || Number.isSafeInteger(v))) return String(v);
  return null;
}

/** Like str, but an empty string stays an empty string (for fields the spec types as plain string). */
export function text(v: unknown): string | null {
  return typeof v === 'string' ? v : str(v);
}

/** An integer, or null. Digit strings are accepted ("45013036"). */
export function int(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) {
    const n = Number(v.trim());
    return Number.isSafeInteger(n) ? n : null;
  }
  return null;
}

/** A count: an integer >= 0, or null (upstreams use -1 for "withheld"). */
export function count(v: unknown): number | null {
  const n = int(v);
  return n !== null && n >= 0 ? n : null;
}

/** A number (float allowed), or null. */
export function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  return null;
}

export function bool(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 'true' || v === '1') return true;
  if (v === 0 || v === 'false' || v === '0') return false;
  return null;
}

/** ISO-8601 UTC date-time, or null. Placeholder dates before year 1000 (0001-01-01…) are null. */
export function isoDate(v: unknown): string | null {
  let d: Date | null = null;
  if (typeof v === 'string' && v.trim() !== '') {
    d = new Date(v.trim());
  } else if (typeof v === 'number' && Number.isFinite(v)) {
    d = new Date(v < 1e12 ? v * 1000 : v); // seconds or milliseconds
  }
  if (!d || Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1000) return null;
  return d.toISOString();
}

/**
 * An absolute http(s) URL exactly as the upstream wrote it (surrounding blanks aside), or null.
 * It is checked by parsing but never re-serialised: `new URL(…).toString()` would add a trailing
 * slash, lower-case the host or re-encode the path, and the service passes upstream values through.
 */
export function url(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  const s = v.trim();
  return /^https?:\/\//i.test(s) && URL.canParse(s) ? s : null;
}

/** An array, or []. */
export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Map an array with a mapper, dropping nulls. */
export function list<T>(v: unknown, fn: (item: unknown, index: number) => T | null | undefined): T[] {
  const out: T[] = [];
  arr(v).forEach((item, i) => {
    const m = fn(item, i);
    if (m !== null && m !== undefined) out.push(m);
  });
  return out;
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A value on a resource's required list (its identity: `RequiredValues` in shared/scrape/resource.ts)
 * that the platform did not send, or sent in a form that cannot be read. For a single resource it is
 * the answer: 503 EXTRACTION_FAILED, the missing value named in the log. An item of a list, or a
 * nested part, is left out instead (`keepGood`, `orDropped`), and counted as drift.
 */
export class MissingValue extends ApiError {
  constructor(readonly missing: string) {
    super('EXTRACTION_FAILED', 'The source returned data in an unexpected shape', { internal: `the upstream answer has no ${missing}` });
  }
}

/**
 * A value the resource cannot be built without (on its required list): the value, or MissingValue
 * naming it. Every other value is optional: null (or "" / [] where that is its documented reading)
 * when the platform leaves it out.
 */
export function need<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new MissingValue(what);
  return value;
}

/**
 * The items of a list that can be built, in order: an item whose mapper throws MissingValue is left
 * out and reported to `drops` as `resource` (drift), the others keep the page. A list none of whose
 * items can be built (and that had some) is not a page of that resource: the first MissingValue is
 * the answer (503 EXTRACTION_FAILED).
 */
export function keepGood<T>(items: unknown, map: (item: unknown, index: number) => T | null | undefined, resource: string, drops: Drops): T[] {
  const out: T[] = [];
  let first: MissingValue | undefined;
  let seen = 0;
  arr(items).forEach((item, i) => {
    seen += 1;
    try {
      const m = map(item, i);
      if (m !== null && m !== undefined) out.push(m);
    } catch (err) {
      if (!(err instanceof MissingValue)) throw err;
      first ??= err;
      drops.dropped(resource, err.missing);
    }
  });
  if (first && out.length === 0 && seen > 0) throw first;
  return out;
}

/**
 * A nested part (a quoted post, a reply reference, an image) built by `build`, or null when the
 * platform sent it without a value it cannot be built without (reported to `drops` as `resource`).
 */
export function orDropped<T>(build: () => T, resource: string, drops: Drops): T | null {
  try {
    return build();
  } catch (err) {
    if (!(err instanceof MissingValue)) throw err;
    drops.dropped(resource, err.missing);
    return null;
  }
}

/** `list`, with the items that lack a required value left out and reported (nested lists). */
export function listGood<T>(v: unknown, fn: (item: unknown, index: number) => T | null | undefined, resource: string, drops: Drops): T[] {
  return list(v, (item, i) => orDropped(() => fn(item, i), resource, drops));
}
