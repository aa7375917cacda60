import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';

/**
 * Structured JSON logs (Powertools). Every request logs through a child carrying its requestId.
 * Values under secret-looking keys are replaced before serialisation, and credentials inside URLs
 * (a proxy URL, say) are masked, so a key or secret never reaches a log line.
 */
const SECRET_KEY = /authorization|api[-_]?key|x-api-key|secret|password|passwd|token|cookie|credential|proxy[-_]?url/i;

export function redactValue(key: string, value: unknown): unknown {
  if (key && SECRET_KEY.test(key) && value !== null && value !== undefined && typeof value !== 'object') return '[REDACTED]';
  if (typeof value === 'string') return value.replace(/\/\/[^/@\s:]+:[^/@\s]+@/g, '//[REDACTED]@');
  return value;
}

export const logger = new Logger({
  serviceName: process.env.POWERTOOLS_SERVICE_NAME || 'social-data-api',
  jsonReplacerFn: (key: string, value: unknown) => redactValue(key, value),
});

export type Log = Logger;

export interface RequestScope {
  requestId: string;
  /** A child logger: every line carries the requestId and the entry point's name as `operation`. */
  log: Log;
}

/**
 * The request id and log context of every entry point (functions/*.ts): API Gateway's request id,
 * else (an event without one, a direct invocation) a fresh random UUID, never a fixed value.
 */
export function requestScope(event: { requestContext?: { requestId?: string } | null } | null | undefined, operation: string): RequestScope {
  const requestId = event?.requestContext?.requestId || randomUUID();
  return { requestId, log: logger.createChild({ persistentKeys: { requestId, operation } }) };
}
