import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ApiError } from './errors';

/**
 * A request's JSON object body (the account API's and the monitors API's): {} without a body, 400
 * BAD_REQUEST when it is larger than `maxBytes` or not a JSON object.
 */
export function jsonObjectBody(event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>, maxBytes: number): Record<string, unknown> {
  if (!event.body) return {};
  const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(raw) > maxBytes) throw new ApiError('BAD_REQUEST', 'The request body is too large');
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    /* below */
  }
  throw new ApiError('BAD_REQUEST', 'The request body must be a JSON object');
}
