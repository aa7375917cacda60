import { RATE_LIMIT } from '../runtime/config';
import { ERROR_STATUS } from './error-status';

/**
 * The spec's error model: one class, one code per condition, one place that knows each status.
 * Everything thrown behind an entry point (shared/http/entry.ts) is turned into one of these by
 * `toApiError`; a scraper's own failures first by `toScrapeError`.
 */
export { ERROR_STATUS };

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];

export interface ValidationDetail {
  path: string;
  message: string;
}

/** Retry-After (seconds) of each code that has one by default; API Gateway's own 5xx answers use SERVICE_UNAVAILABLE's. */
export const RETRY_AFTER_S = {
  UPSTREAM_BLOCKED: 60,
  EXTRACTION_FAILED: 60,
  PLATFORM_UNAVAILABLE: 30,
  SERVICE_UNAVAILABLE: 5,
} as const satisfies Partial<Record<ErrorCode, number>>;
const DEFAULT_RETRY_AFTER: Partial<Record<ErrorCode, number>> = RETRY_AFTER_S;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: ErrorStatus;
  readonly details?: ValidationDetail[];
  /** Seconds; always set for 503 and 429. */
  readonly retryAfter?: number;
  /** Internal cause for logs only; never sent to the caller. */
  readonly internal?: string;
  /**
   * The level the entry point logs this failure at, when not its status's (ERROR for a 5xx, INFO
   * otherwise): an expected 503, such as a deployment that names no source on purpose, is a WARN.
   */
  readonly logLevel?: 'warn' | 'info';

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: ValidationDetail[]; retryAfter?: number; internal?: string; logLevel?: 'warn' | 'info' } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = opts.details;
    this.retryAfter = opts.retryAfter ?? DEFAULT_RETRY_AFTER[code];
    this.internal = opts.internal;
    this.logLevel = opts.logLevel;
  }
}

/** What the gateway itself answers (API Gateway's gateway responses and the local gateway alike). */
export const GATEWAY_MESSAGES = {
  UNAUTHORIZED: 'A valid API key is required (x-api-key or Authorization: Bearer)',
  RATE_LIMITED: `Over the rate limit of ${RATE_LIMIT.requests} requests per ${RATE_LIMIT.windowSeconds} seconds per team`,
  SERVICE_UNAVAILABLE: 'The service is at capacity; try again shortly',
  NOT_FOUND: 'No such operation',
  BAD_REQUEST: 'The request is invalid',
} as const;

/** Headers of the gateway's own refusals (401, 429, its 5xx): nothing was charged (the stack's gateway responses and the local gateway). */
export const GATEWAY_REFUSAL_HEADERS = { 'x-credits-charged': '0' } as const;

export const notFound = (message = 'The requested content does not exist or is not public') =>
  new ApiError('NOT_FOUND', message);
export const badCursor = (internal?: string) =>
  new ApiError('BAD_REQUEST', 'The cursor is invalid or has expired', { internal });
export const blocked = (internal: string, retryAfter?: number) =>
  new ApiError('UPSTREAM_BLOCKED', 'The source blocked the request; try again later', { internal, retryAfter });
export const extractionFailed = (internal: string) =>
  new ApiError('EXTRACTION_FAILED', 'The source returned data in an unexpected shape', { internal });
export const unavailable = (internal: string, retryAfter?: number) =>
  new ApiError('PLATFORM_UNAVAILABLE', 'The source is unavailable; try again later', { internal, retryAfter });
export const atCapacity = (internal: string) =>
  new ApiError('SERVICE_UNAVAILABLE', GATEWAY_MESSAGES.SERVICE_UNAVAILABLE, { internal });
export const validationError = (details: ValidationDetail[]) =>
  new ApiError('VALIDATION_ERROR', 'Invalid query parameters', { details });

const causeOf = (err: unknown) => (err instanceof Error ? `${err.name}: ${err.message}` : String(err));

/**
 * The one mapping of every entry point: an ApiError stands; anything else (a bug, a failing
 * database, a malformed event) is our own failure, never a 500: 503 SERVICE_UNAVAILABLE with
 * Retry-After, its cause kept for the logs.
 */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return atCapacity(causeOf(err));
}

/** An AWS SDK error (it carries $metadata): our database failing or throttling. */
const isAwsError = (err: unknown) => typeof err === 'object' && err !== null && '$metadata' in err;

/**
 * What a scraper throws: its classified answers (ApiErrors) and our database's failures keep their
 * meaning; anything else came out of reading the upstream answer (a TypeError inside a mapper, say),
 * so the upstream data was not the shape we know.
 */
export function toScrapeError(err: unknown): ApiError {
  if (err instanceof ApiError || isAwsError(err)) return toApiError(err);
  return extractionFailed(causeOf(err));
}
