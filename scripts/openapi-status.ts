/**
 * GET /v1/status in the OpenAPI document (merged in by scripts/openapi.ts): the public status
 * document of shared/status/page.ts, its schema written here from its TypeScript shape;
 * test/status/status.test.ts checks live answers against it.
 */
import { STATUS_PATH } from '../shared/status/page';
import { STATES, STATUS_RULES } from '../shared/status/state';

type Json = Record<string, unknown>;

const counts = { type: 'object', additionalProperties: { type: 'integer', minimum: 0 } };
const msOrNull = { type: ['integer', 'null'], minimum: 0 };

export const statusSchemas: Json = {
  StatusWindow: {
    type: 'object',
    required: ['answers', 'byStatus', 'byCode', 'cacheHits', 'droppedItems', 'successShare', 'latencyMs'],
    properties: {
      answers: { type: 'integer', minimum: 0 },
      byStatus: { ...counts, description: 'Answers by HTTP status ("200", "404", ...)' },
      byCode: { ...counts, description: 'Error answers by error code' },
      cacheHits: { type: 'integer', minimum: 0 },
      droppedItems: { type: 'integer', minimum: 0, description: 'List items left out of answers because the platform sent them without a value they cannot be built without (drift: a platform change shows here within minutes of the first affected answer)' },
      successShare: { type: ['number', 'null'], minimum: 0, maximum: 1, description: 'Answers that were not 5xx, over all answers (a 404 or 422 is the caller\'s answer, not a failure); null without answers' },
      latencyMs: {
        type: 'object',
        required: ['p50', 'p95', 'live'],
        description: 'Live answers (scraped and served): the histogram bucket bound under which 50% / 95% of them fell',
        properties: { p50: msOrNull, p95: msOrNull, live: { type: 'integer', minimum: 0 } },
      },
    },
  },
  OperationStatus: {
    type: 'object',
    required: ['operation', 'path', 'state', 'reason', 'last15m', 'last24h', 'lastSuccessAt', 'canary'],
    properties: {
      operation: { type: 'string' },
      path: { type: 'string' },
      state: { type: 'string', enum: [...STATES] },
      reason: { type: 'string' },
      last15m: { $ref: '#/components/schemas/StatusWindow' },
      last24h: { $ref: '#/components/schemas/StatusWindow' },
      lastSuccessAt: { type: ['string', 'null'], format: 'date-time' },
      canary: {
        type: ['object', 'null'],
        required: ['at', 'ok', 'ms', 'code', 'missing', 'newlyNull', 'consecutiveFailures'],
        properties: {
          at: { type: 'string', format: 'date-time' },
          ok: { type: 'boolean' },
          ms: { type: 'integer', minimum: 0 },
          code: { type: ['string', 'null'] },
          missing: { type: 'array', items: { type: 'string' }, description: 'Required fields that came back missing' },
          newlyNull: { type: 'array', items: { type: 'string' }, description: 'Optional fields that came back null although the last good answer had them' },
          consecutiveFailures: { type: 'integer', minimum: 0 },
        },
      },
    },
  },
  Status: {
    type: 'object',
    required: ['generatedAt', 'rules', 'operations'],
    properties: {
      generatedAt: { type: 'string', format: 'date-time' },
      rules: { type: 'object', description: 'The thresholds of the state rules', required: Object.keys(STATUS_RULES), properties: Object.fromEntries(Object.keys(STATUS_RULES).map((k) => [k, { type: 'number' }])) },
      operations: { type: 'array', items: { $ref: '#/components/schemas/OperationStatus' } },
    },
  },
};

export function statusPaths(): Json {
  return {
    [STATUS_PATH]: {
      get: {
        operationId: 'status',
        summary: 'Each operation\'s state, answers by status and code over 15 minutes and 24 hours, latency, last success and last canary',
        description:
          'Public (no key, no credits), throttled like the other unauthenticated routes. States: operational, degraded, down, unknown (too little traffic and no recent canary), not configured (no source). The rules are in docs/status.md. A deployment caches the document up to 30 s.',
        tags: ['status'],
        security: [],
        responses: {
          200: {
            description: 'The status document',
            headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Status' } } },
          },
        },
      },
    },
  };
}
