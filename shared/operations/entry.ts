import type * as v from 'valibot';
import type { ParamDef, ParamSchema } from '../http/validation';
import type { RequiredValues } from '../scrape/resource';

/**
 * What an entry of the operation table (shared/operations.ts) holds, and the helpers its entries are
 * written with. Each platform's entries are written in shared/operations/<platform>.ts, so that an
 * operation's function imports its own entry (its platform's parameter and resource schemas) and
 * evaluates no other platform's at cold start (shortvideo's, one module per operation:
 * shared/operations/shortvideo/<operation>.ts, none of the other operations'); the table lists
 * them all, in the spec's order.
 */
export type Platform = 'microblog-a' | 'microblog-b' | 'microblog-c' | 'shortvideo' | 'livestream' | 'professional' | 'linkpage' | 'citygame';
export type Status = 200 | 400 | 401 | 402 | 404 | 422 | 429 | 503;

/** What an operation accepts: its route and its query's rules. */
export interface OperationQuery {
  path: `/v1/${string}`;
  params: Record<string, ParamDef>;
  /** Exactly one of each pair must be present. */
  oneOf?: readonly (readonly [string, string])[];
}

export interface Operation extends OperationQuery {
  /** Stable id: names the Lambda function, the handler file and the cache key prefix. */
  id: string;
  /** The spec's operation number. */
  number: number;
  platform: Platform;
  summary: string;
  /**
   * The environment variable that names the deployment's source, for an operation whose source is
   * configuration: unset, the operation is routed but answers 503, and /v1/status says 'not configured'.
   */
  sourceVariable?: string;
  /** The operation's `data` without `fetchedAt` (which the pipeline adds). */
  data: v.GenericSchema;
  /**
   * Per resource of `data`, the values it cannot be built without (issue 31; the platform's
   * resources.ts, with where each list comes from). An item of a list lacking one is left out and
   * counted as drift; a single resource lacking one is 503 EXTRACTION_FAILED. Every other value is
   * optional: null when the platform leaves it out.
   */
  required: readonly RequiredValues[];
  pageSize?: number;
  /** Responses the spec lists for this operation. */
  responses: readonly Status[];
  /**
   * Statuses the service answers beyond the spec's per-operation list, where a common rule of the
   * spec applies that the list leaves out (documented in docs, OpenAPI and the README).
   */
  alsoAnswers?: readonly Status[];
  status: 'live' | 'planned';
  /** Whether the scraper parses HTML (and so bundles linkedom). */
  parsesHtml: boolean;
}

export const cursor = <S extends ParamSchema>(schema: S, description: string) => ({ schema, cursor: true, description }) as const satisfies ParamDef<S>;

export const ALL: readonly Status[] = [200, 400, 401, 402, 404, 422, 429, 503];
export const NO_400: readonly Status[] = [200, 401, 402, 404, 422, 429, 503];
