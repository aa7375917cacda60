import * as v from 'valibot';
import { ApiError, badCursor, validationError, type ValidationDetail } from './errors';

/**
 * Parameter validation with valibot. Each parameter of each operation is a valibot schema from a
 * string to its normalized value; `validateQuery` applies them, adds the either-or and required
 * rules from the operation table, and reports every problem as a `{path, message}` detail.
 */
export type ParamSchema = v.GenericSchema<string, unknown>;

export interface ParamDef<S extends ParamSchema = ParamSchema> {
  schema: S;
  required?: boolean;
  /** A bad cursor is "invalid or expired" (400 BAD_REQUEST), not a malformed parameter (422). */
  cursor?: boolean;
  description: string;
  example?: string;
  /**
   * The value an absent parameter takes (validated like a given one), so that leaving it out and
   * giving the default are one request, and one cache entry.
   */
  default?: string;
}

export const CACHE_MAX_AGE_SECONDS = { '1d': 86_400, '3d': 3 * 86_400, '7d': 7 * 86_400, '14d': 14 * 86_400, '30d': 30 * 86_400 } as const;
export type CacheMaxAge = keyof typeof CACHE_MAX_AGE_SECONDS;

const CACHE_MAX_AGES = Object.keys(CACHE_MAX_AGE_SECONDS) as CacheMaxAge[];
export const cacheMaxAgeSchema = v.picklist(CACHE_MAX_AGES, `Must be one of ${CACHE_MAX_AGES.join(', ')}`);

/** A string matching a pattern, with a message that says what was expected. */
export const matching = (re: RegExp, message: string) => v.pipe(v.string(), v.regex(re, message));

/** `true` or `false`, nothing else. */
export const booleanParam = v.pipe(
  v.picklist(['true', 'false'], 'Must be true or false'),
  v.transform((s) => s === 'true'),
);

/** A printable opaque token (cursors the upstream invented). */
export const opaqueToken = (max = 512) =>
  v.pipe(v.string(), v.minLength(1, 'Must not be empty'), v.maxLength(max, `Must be at most ${max} characters`), v.regex(/^[\x21-\x7e]+$/, 'Must be printable ASCII without spaces'));

/**
 * A parameter read by a parser of the platform's own (handle forms, public URL forms). The parser
 * returns the normalized value or null; null is a 422 with `message`. URL parsers go through
 * `parseHostUrl`, so a URL on any other host is refused and never fetched.
 */
export function parsedBy<T>(parse: (raw: string) => T | null, message: string, maxLength = 2048) {
  return v.pipe(
    v.string(),
    v.maxLength(maxLength, `Must be at most ${maxLength} characters`),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      let parsed: T | null;
      try {
        parsed = parse(dataset.value);
      } catch {
        // A parser that throws (decodeURIComponent on a broken %-escape, say) read a malformed value: a 422, never a 5xx.
        parsed = null;
      }
      if (parsed === null) {
        addIssue({ message });
        return NEVER;
      }
      return parsed;
    }),
  );
}

/**
 * A URL on one of the platform's own hosts: https (or http), no credentials, no port, host equal
 * to one of `hosts` (a leading "www.", "m." or "mobile." is accepted). Nothing else is ever fetched.
 */
export function parseHostUrl(raw: string, hosts: readonly string[]): URL | null {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return null;
  if (u.username || u.password || u.port) return null;
  const host = u.hostname.toLowerCase().replace(/^(www|m|mobile)\./, '');
  return hosts.includes(host) ? u : null;
}

/**
 * A 422 answer stays small whatever the request: at most MAX_DETAILS details (the last one counting
 * those left out) and paths cut at MAX_DETAIL_PATH characters. Without it, 2,000 unknown parameters
 * were 2,000 details, each naming the operation's parameters: a 181 KB answer to a 20 KB request.
 */
export const MAX_DETAILS = 20;
export const MAX_DETAIL_PATH = 64;

export function boundedDetails(details: readonly ValidationDetail[]): ValidationDetail[] {
  const cut = (path: string) => (path.length > MAX_DETAIL_PATH ? `${path.slice(0, MAX_DETAIL_PATH - 1)}…` : path);
  const shown = details.length > MAX_DETAILS ? details.slice(0, MAX_DETAILS - 1) : details;
  const out = shown.map((d) => ({ path: cut(d.path), message: d.message }));
  if (shown.length < details.length) out.push({ path: '*', message: `${details.length - shown.length} more problems with this request, not listed` });
  return out;
}

export interface QueryParams {
  [name: string]: string | undefined;
}

export interface ValidationRules<P extends Record<string, ParamDef> = Record<string, ParamDef>> {
  params: P;
  /** Exactly one of each pair must be present. */
  oneOf?: readonly (readonly [string, string])[];
}

export type RequiredNames<P> = { [K in keyof P]: P[K] extends { required: true } ? K : never }[keyof P];

/**
 * The values a table entry's parameters validate to: each parameter's schema output, required
 * where the table says `required: true`, optional otherwise (an either-or pair is two optional
 * parameters of which the validator guarantees exactly one).
 */
export type ParamValues<P extends Record<string, ParamDef>> = {
  [K in RequiredNames<P>]: v.InferOutput<P[K]['schema']>;
} & {
  [K in Exclude<keyof P, RequiredNames<P>>]?: v.InferOutput<P[K]['schema']>;
};

export interface ValidatedQuery<P extends Record<string, ParamDef>> {
  values: ParamValues<P>;
  cacheMaxAge?: CacheMaxAge;
}

/**
 * `single` holds each parameter once; `multi` (when known) tells us a parameter was repeated,
 * which is refused rather than silently taking one of the values.
 */
export function validateQuery<P extends Record<string, ParamDef>>(
  rules: ValidationRules<P>,
  single: QueryParams | null,
  multi?: Record<string, string[] | undefined> | null,
): ValidatedQuery<P> {
  const query = single ?? {};
  const details: ValidationDetail[] = [];
  const cursorProblems: string[] = [];
  const values: Record<string, unknown> = {};
  let cacheMaxAge: CacheMaxAge | undefined;

  for (const [name, list] of Object.entries(multi ?? {})) {
    if (list && list.length > 1) details.push({ path: name, message: 'Must be given at most once' });
  }
  for (const name of Object.keys(query)) {
    // Own names only: `constructor`, `toString` or `__proto__` are unknown parameters, not Object's.
    if (name !== 'cache_max_age' && !Object.hasOwn(rules.params, name)) {
      const known = Object.keys(rules.params);
      details.push({ path: name, message: known.length ? `Unknown parameter; this operation takes ${[...known, 'cache_max_age'].join(', ')}` : 'Unknown parameter; this operation takes only cache_max_age' });
    }
  }
  const cma = query.cache_max_age;
  if (cma !== undefined) {
    const r = v.safeParse(cacheMaxAgeSchema, cma);
    if (r.success) cacheMaxAge = r.output;
    else details.push({ path: 'cache_max_age', message: r.issues[0].message });
  }
  for (const [name, def] of Object.entries(rules.params)) {
    const raw = query[name] ?? def.default;
    if (raw === undefined || raw === null) {
      if (def.required) details.push({ path: name, message: 'Required' });
      continue;
    }
    if (raw === '') {
      if (def.cursor) cursorProblems.push(name);
      else details.push({ path: name, message: 'Must not be empty' });
      continue;
    }
    const r = v.safeParse(def.schema, raw);
    if (r.success) values[name] = r.output;
    else if (def.cursor) cursorProblems.push(name);
    else details.push({ path: name, message: r.issues[0].message });
  }
  for (const [a, b] of rules.oneOf ?? []) {
    const hasA = query[a] !== undefined;
    const hasB = query[b] !== undefined;
    if (hasA && hasB) details.push({ path: a, message: `Give either ${a} or ${b}, not both` });
    if (!hasA && !hasB) details.push({ path: a, message: `Exactly one of ${a} or ${b} is required` });
  }
  if (details.length) throw validationError(boundedDetails(details));
  if (cursorProblems.length) throw badCursor(`malformed ${cursorProblems.join(', ')}`);
  // Every parameter went through its own schema above and the required / either-or rules held, so
  // `values` is exactly ParamValues<P>: the one place that turns checked data into its type.
  return { values: values as ParamValues<P>, cacheMaxAge };
}

/** 422 VALIDATION_ERROR for a JSON request body: every problem found, at most MAX_DETAILS of them. */
export const invalidBody = (details: readonly ValidationDetail[]) => new ApiError('VALIDATION_ERROR', 'Invalid request body', { details: boundedDetails(details) });
/** 422 for one problem of a JSON request body. */
export const invalid = (path: string, message: string) => invalidBody([{ path, message }]);
