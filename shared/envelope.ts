import type { APIGatewayProxyResult } from 'aws-lambda';
import { ApiError } from './errors';

export interface Meta {
  requestId: string;
  creditsCharged: number;
  creditsRemaining: number;
  cached: boolean;
  cachedAt?: string;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

export function success(data: object, meta: Meta): APIGatewayProxyResult {
  return {
    statusCode: 200,
    headers: { ...JSON_HEADERS, 'x-request-id': meta.requestId },
    body: JSON.stringify({ data, meta }),
  };
}

export function errorBody(err: ApiError, requestId: string): string {
  return JSON.stringify({
    error: {
      code: err.code,
      message: err.message,
      requestId,
      ...(err.code === 'VALIDATION_ERROR' && err.details ? { details: err.details } : {}),
    },
  });
}

export function failure(err: ApiError, requestId: string): APIGatewayProxyResult {
  const headers: Record<string, string> = { ...JSON_HEADERS, 'x-request-id': requestId };
  if (err.retryAfter !== undefined && (err.status === 503 || err.status === 429)) {
    headers['retry-after'] = String(Math.max(1, Math.ceil(err.retryAfter)));
  }
  return { statusCode: err.status, headers, body: errorBody(err, requestId) };
}
