import type { APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from './errors';

export interface Meta {
  requestId: string;
  creditsCharged: number;
  creditsRemaining: number;
  cached: boolean;
  cachedAt?: string;
}

/**
 * What every answer of every entry point carries, whatever its body (shared/http/entry.ts adds them):
 * nosniff, and HSTS (the stage is https-only; the dashboard and its session cookie must never be
 * reached over plain http again; browsers ignore it on the local gateway's http).
 */
export const baseHeaders = (requestId: string): Record<string, string> => ({
  'x-request-id': requestId,
  'x-content-type-options': 'nosniff',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
});

/** A JSON answer: never cached by a browser or proxy unless `headers` says otherwise. */
export function jsonAnswer(statusCode: number, body: unknown, requestId: string, headers: Record<string, string> = {}): APIGatewayProxyResult {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers, ...baseHeaders(requestId) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

/**
 * Every operation answer's accounting, equal to `meta` (an error: charged 0, and the balance when
 * it is known).
 */
export const creditHeaders = (charged: number, remaining: number | undefined): Record<string, string> => ({
  'x-credits-charged': String(charged),
  ...(remaining !== undefined ? { 'x-credits-remaining': String(remaining) } : {}),
});

export function success(data: object, meta: Meta): APIGatewayProxyResult {
  return jsonAnswer(200, { data, meta }, meta.requestId, creditHeaders(meta.creditsCharged, meta.creditsRemaining));
}

function errorBody(err: ApiError, requestId: string) {
  return {
    error: {
      code: err.code,
      message: err.message,
      requestId,
      ...(err.code === 'VALIDATION_ERROR' && err.details ? { details: err.details } : {}),
    },
  };
}

export function failure(err: ApiError, requestId: string): APIGatewayProxyResult {
  const headers: Record<string, string> = {};
  if (err.retryAfter !== undefined && (err.status === 503 || err.status === 429)) {
    headers['retry-after'] = String(Math.max(1, Math.ceil(err.retryAfter)));
  }
  return jsonAnswer(err.status, errorBody(err, requestId), requestId, headers);
}
