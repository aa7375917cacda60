import * as v from 'valibot';

/**
 * The vocabulary of resource schemas (`shared/platforms/<platform>/resources.ts`): the spec's field
 * types as valibot schemas. Conventions, applied everywhere:
 * - A field is nullable only where the spec says "nullable" (or "object or null", "or null on the
 *   last page"), or where a recorded deviation (`deviation`) says why the upstream has no value.
 * - "integer(s)" are integers, "number" a finite number, "date-time" an ISO 8601 timestamp that
 *   parses, "`YYYY-MM-DD`" a calendar date; where the spec gives a form ("did:plc:<id>", "HLS
 *   playlist", "string of digits", "upper-case") the form is checked.
 * - Where the spec names a field but gives no type, the field must be present and not null
 *   (`given`); where it says only "nullable", any value including null (`anyOrNull`). A platform
 *   replaces these with the precise shape it produces as soon as it is built.
 */

export const string = v.string();
export const stringOrNull = v.nullable(v.string());
export const boolean = v.boolean();
export const booleanOrNull = v.nullable(v.boolean());
export const integer = v.pipe(v.number(), v.integer('Expected an integer'));
export const integerOrNull = v.nullable(integer);
export const number = v.pipe(v.number(), v.finite('Expected a finite number'));
export const numberOrNull = v.nullable(number);

/** Present and not null; the spec names the field but gives no type. */
export const given = v.pipe(v.unknown(), v.check((x) => x !== null && x !== undefined, 'Expected a value (the spec does not make this field nullable)'));
/** Present; the spec says only "nullable" (shape not shown). */
export const anyOrNull = v.unknown();
/** An object (not an array); inner shape not shown by the spec. */
export const object = v.looseObject({});
export const objectOrNull = v.nullable(object);

export const parsesAsDate = v.check((s: string) => !Number.isNaN(Date.parse(s)), 'Must parse as a date');
/** "string, date-time": ISO 8601 date and time (offset or Z), parseable. */
export const dateTime = v.pipe(v.string(), v.isoTimestamp('Must be an ISO 8601 date-time'), parsesAsDate);
/** "string, ISO 8601 date-time, UTC" (envelope fields). */
export const utcDateTime = v.pipe(dateTime, v.regex(/Z$/, 'Must be in UTC (…Z)'));
export const dateTimeOrNull = v.nullable(dateTime);
/** "`YYYY-MM-DD`". */
export const calendarDate = v.pipe(v.string(), v.isoDate('Must be a YYYY-MM-DD date'), parsesAsDate);
export const digits = v.pipe(v.string(), v.regex(/^\d+$/, 'Must be a string of digits'));
export const upperCase = v.pipe(v.string(), v.regex(/^[A-Z0-9_]+$/, 'Must be upper-case'));
export const hlsPlaylist = v.pipe(
  v.string(),
  v.check((s) => {
    try {
      return new URL(s).pathname.toLowerCase().endsWith('.m3u8');
    } catch {
      return false;
    }
  }, 'Must be an HLS playlist URL (.m3u8)'),
);

/** The reason of most deviations: a field the spec makes non-null, for which some upstream answers have no value. */
export const NO_VALUE = 'null where the upstream has no value to give, rather than an invented one';

/**
 * A recorded deviation from the spec's type, with its reason: the contract tests accept it, and the
 * docs and OpenAPI show the reason.
 */
export const deviation = <S extends v.GenericSchema>(schema: S, reason: string) =>
  v.pipe(schema, v.metadata({ description: `Deviation from the spec: ${reason}`, 'x-spec-deviation': reason }));

/**
 * The reason of a field the spec types as non-null that is null when the platform leaves its value
 * out, or sends it in a form that cannot be read (drift tolerance, issue 31): the value is not on
 * its resource's required list (`RequiredValues`), so its absence never costs the caller the rest.
 */
export const OMITTED = 'null when the platform omits it (or sends a form that cannot be read): not on the resource\'s required list, so the rest of the resource still maps';

/** A field the spec types as `schema` (non-null), null when the platform omits it (`OMITTED`). */
export const omitted = <S extends v.GenericSchema>(schema: S, why = OMITTED) => deviation(v.nullable(schema), why);

/**
 * The values without which a resource cannot be built (issue 31): its identity (id, uri or url, the
 * author's identity where the spec makes the author part of the item) and what the operation's own
 * contract depends on. Every other value is optional. An item of a list that lacks one is left out
 * and counted as drift; a single resource that lacks one is 503 EXTRACTION_FAILED, the value named
 * in the log. The operation table lists these per operation (`required`), the docs print them, and
 * the drift-tolerance suite (test/reliability/drift.test.ts) mutates the upstream values they name.
 */
export interface RequiredValues {
  /** The resource as logs and docs name it ("post", "followed account"). */
  resource: string;
  /** Where it sits in the operation's `data`: "posts[]" (an item of a list) or "clip" (a single resource). */
  at: string;
  /**
   * Each value: the field of ours and where the platform carries it, relative to the resource's
   * upstream object ("post.uri"); alternatives the mapper reads in turn are joined by " | ".
   */
  values: readonly { field: string; upstream: string }[];
  /** Where the list comes from: the platform's own schema, else the research note. */
  source: string;
}

/** `RequiredValues` from `field: upstream` pairs. */
export const required = (resource: string, at: string, values: Record<string, string>, source: string): RequiredValues => ({
  resource,
  at,
  values: Object.entries(values).map(([field, upstream]) => ({ field, upstream })),
  source,
});
