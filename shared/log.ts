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

export const requestLogger = (requestId: string, operation: string): Log =>
  logger.createChild({ persistentKeys: { requestId, operation } });
