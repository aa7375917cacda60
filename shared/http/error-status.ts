/**
 * The HTTP status of each error code of the spec: the one table (shared/http/errors.ts re-exports it).
 * A module of its own, importing nothing, so that the dashboard's browser bundle can read it too.
 */
export const ERROR_STATUS = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  INSUFFICIENT_CREDITS: 402,
  NOT_FOUND: 404,
  VALIDATION_ERROR: 422,
  RATE_LIMITED: 429,
  UPSTREAM_BLOCKED: 503,
  EXTRACTION_FAILED: 503,
  PLATFORM_UNAVAILABLE: 503,
  SERVICE_UNAVAILABLE: 503,
} as const;
