import * as v from 'valibot';
import { ERROR_STATUS, type ErrorCode } from '../../shared/http/errors';
import { boolean, integer, string, utcDateTime } from '../../shared/scrape/resource';

/**
 * The envelope and error shapes of the spec ("Response envelope", "Errors") as valibot schemas.
 * Each operation's `data` schema is its resource schema from the operation table
 * (shared/platforms/<platform>/resources.ts) plus `fetchedAt`.
 */
// ---- envelope -----------------------------------------------------------------------------------

const metaLive = v.looseObject({
  requestId: string,
  creditsCharged: integer,
  creditsRemaining: integer,
  cached: v.literal(false),
  cachedAt: v.optional(v.never('cachedAt is only sent on a cache hit')),
});
const metaCached = v.looseObject({
  requestId: string,
  creditsCharged: integer,
  creditsRemaining: integer,
  cached: v.literal(true),
  cachedAt: utcDateTime,
});
export const metaSchema = v.variant('cached', [metaLive, metaCached]);

/** Every `data` always contains `fetchedAt` (UTC date-time). */
const dataBase = { fetchedAt: utcDateTime };

export function successSchema<T extends v.GenericSchema>(data: T) {
  return v.looseObject({ data, meta: metaSchema });
}

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];
const detail = v.looseObject({ path: string, message: string });
const otherCodes = ERROR_CODES.filter((c) => c !== 'VALIDATION_ERROR') as [ErrorCode, ...ErrorCode[]];
export const errorSchema = v.looseObject({
  error: v.variant('code', [
    v.looseObject({ code: v.literal('VALIDATION_ERROR'), message: string, requestId: string, details: v.array(detail) }),
    v.looseObject({
      code: v.picklist(otherCodes),
      message: string,
      requestId: string,
      details: v.optional(v.never('details is only sent with VALIDATION_ERROR')),
    }),
  ]),
});

/** A response's `data`: the operation's resource schema (from the table) plus `fetchedAt`. */
export function dataSchema(op: { data: v.ObjectSchema<v.ObjectEntries, undefined> | v.LooseObjectSchema<v.ObjectEntries, undefined> | v.GenericSchema }) {
  const entries = (op.data as { entries?: v.ObjectEntries }).entries;
  if (!entries) throw new Error('an operation data schema must be an object schema');
  return v.looseObject({ ...entries, ...dataBase });
}

/** valibot issues as `path: message (received …)` lines, for failure messages. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .map((i) => {
      const sub = i.issues?.length ? ` [${describeIssues(i.issues).split('\n').join('; ')}]` : '';
      return `  ${v.getDotPath(i) ?? '(root)'}: ${i.message}${sub}`;
    })
    .join('\n');
}
