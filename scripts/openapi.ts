/**
 * The OpenAPI 3.1 document (docs/openapi.json) and the client's operation table
 * (client/operations.gen.ts), both generated from the one source of truth: the operation table
 * (shared/operations.ts) with its valibot parameter and resource schemas, converted to JSON Schema
 * with @valibot/to-json-schema. `npm run docs` writes them; test/contract/openapi.test.ts fails when a
 * committed file is not a fresh generation, and checks every gateway response against the document.
 */
import path from 'node:path';
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { ERROR_STATUS } from '../shared/http/errors';
import { RATE_LIMIT } from '../shared/runtime/config';
import { answeredStatuses, operations, type Operation, type Status } from '../shared/operations';
import { OPENAPI_ROUTE } from '../shared/public/openapi-document';
import { CACHE_MAX_AGE_SECONDS } from '../shared/http/validation';
import { parameters } from '../shared/api/parameter-schema';
import { accountPaths, accountSchemas, sessionScheme } from './openapi-account';
import { agentPaths, agentSchemas } from './openapi-agents';
import { statusPaths, statusSchemas } from './openapi-status';
import { monitorPaths, monitorSchemas, monitorWebhooks } from './openapi-monitors';
import { jobPaths, jobSchemas } from './openapi-jobs';
import { JOB_ROUTES } from '../shared/api/job-routes';
import { teamWebhooks, webhookPaths, webhookSchemas } from './openapi-webhooks';
import { WEBHOOK_ROUTES } from '../shared/api/webhook-routes';
import { TEAM_EVENT_TYPES } from '../shared/webhooks/catalogue';
import { MONITOR_ROUTES } from '../shared/api/monitor-routes';
import { applyExamples, readExamples, type Examples } from './openapi-examples';

const ROOT = path.join(__dirname, '..');
/** The generated document's file (served at OPENAPI_ROUTE). */
export const OPENAPI_FILE = path.join(ROOT, 'docs', 'openapi.json');
export const CLIENT_TABLE_PATH = path.join(ROOT, 'client', 'operations.gen.ts');

type Json = Record<string, unknown>;

/**
 * A resource schema as JSON Schema. Recursive shapes (a quoted post of the same shape) come back with
 * local `$defs`; those move into components.schemas under `<name>Def<n>` (`defs`), with every
 * reference rewritten, so the `$ref`s resolve inside the OpenAPI document.
 */
function convert(schema: v.GenericSchema, name: string, defs: Json): Json {
  const out = toJsonSchema(schema, { target: 'draft-2020-12', errorMode: 'ignore' }) as Json;
  delete out.$schema;
  const local = (out.$defs ?? {}) as Json;
  delete out.$defs;
  let text = JSON.stringify(out);
  let localText = JSON.stringify(local);
  for (const key of Object.keys(local)) {
    const ref = JSON.stringify(`#/$defs/${key}`);
    const to = JSON.stringify(`#/components/schemas/${name}Def${key}`);
    text = text.split(ref).join(to);
    localText = localText.split(ref).join(to);
  }
  for (const [key, def] of Object.entries(JSON.parse(localText) as Json)) defs[`${name}Def${key}`] = def;
  return JSON.parse(text) as Json;
}

/** `microblog-a-user-posts` -> `microblogAUserPosts` */
export const camel = (id: string) => id.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
const pascal = (id: string) => camel(id).replace(/^./, (c) => c.toUpperCase());

const STATUS_TEXT: Record<Exclude<Status, 200>, string> = {
  400: 'Invalid or expired cursor (BAD_REQUEST)',
  401: 'Missing, invalid or revoked API key (UNAUTHORIZED)',
  402: 'Balance lower than the cost of 1 credit (INSUFFICIENT_CREDITS)',
  404: 'Not found, or not public (NOT_FOUND)',
  422: 'Invalid query parameters (VALIDATION_ERROR, with details)',
  429: `Over the rate limit of ${RATE_LIMIT.requests} requests per ${RATE_LIMIT.windowSeconds} s per team (RATE_LIMITED)`,
  503: 'The source blocked the request, returned unexpected data or is down, or the service is at capacity',
};


function operationObject(op: Operation): Json {
  const responses: Json = {
    200: {
      description: 'The success envelope',
      headers: {
        'x-request-id': { $ref: '#/components/headers/RequestId' },
        'x-credits-charged': { $ref: '#/components/headers/CreditsCharged' },
        'x-credits-remaining': { $ref: '#/components/headers/CreditsRemaining' },
      },
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['data', 'meta'],
            properties: {
              data: { allOf: [{ $ref: `#/components/schemas/${pascal(op.id)}Data` }, { $ref: '#/components/schemas/FetchedAt' }] },
              meta: { $ref: '#/components/schemas/Meta' },
            },
          },
        },
      },
    },
  };
  for (const status of answeredStatuses(op).filter((s): s is Exclude<Status, 200> => s !== 200)) {
    responses[status] = {
      description: STATUS_TEXT[status],
      headers: {
        'x-request-id': { $ref: '#/components/headers/RequestId' },
        'x-credits-charged': { $ref: '#/components/headers/CreditsCharged' },
        ...(status === 429 || status === 503 ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}),
      },
      content: {
        // Its examples, one per code (`examples`), are real answers: scripts/openapi-examples.ts.
        'application/json': { schema: { $ref: '#/components/schemas/Error' } },
      },
    };
  }
  return {
    operationId: camel(op.id),
    summary: op.summary,
    description: `Operation ${op.number} of the spec.${op.status === 'planned' ? ' **Planned**: parameters are defined; the operation is not deployed yet.' : ''}`,
    tags: [op.platform],
    'x-status': op.status,
    ...(op.pageSize ? { 'x-page-size': op.pageSize } : {}),
    parameters: parameters(op),
    responses,
  };
}

/** The document with its examples: real answers of the local API (scripts/openapi-examples.ts, docs/openapi-examples.json). */
export const openApiDocument = (examples: Examples = readExamples()): Json => applyExamples(documentWithoutExamples(), examples);

function documentWithoutExamples(): Json {
  const ordered = [...operations].sort((a, b) => a.number - b.number) as Operation[];
  const defs: Json = {};
  const dataSchemas = Object.fromEntries(ordered.map((op) => [`${pascal(op.id)}Data`, convert(op.data, `${pascal(op.id)}Data`, defs)]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Social data API',
      version: '1.0.0',
      description:
        'A read-only HTTP API: thirteen GET operations fetch publicly visible data from social, video, live-stream, link-page and game sites and return clean JSON in one envelope. Each successful live scrape costs 1 credit; errors and cache hits cost 0.',
    },
    servers: [{ url: 'http://localhost:3000', description: 'npm start' }],
    security: [{ apiKey: [] }, { bearer: [] }],
    tags: [...[...new Set(ordered.map((o) => o.platform))].map((name) => ({ name })), { name: 'account', description: 'The account dashboard API (session cookie, not an API key)' }, { name: 'agents', description: 'MCP and llms.txt' }, { name: 'status', description: 'The public status of every operation' }, { name: 'monitors', description: 'Monitors: an operation polled every interval, what changed POSTed as signed webhooks (the API key or a dashboard session; free)' }, { name: 'webhooks', description: 'Team webhook endpoints: account and service events (credits, keys, members, operation status, bulk jobs) POSTed signed, on the monitors\' engine (the API key or a dashboard session; free)' }, { name: 'jobs', description: 'Bulk jobs: up to 100,000 inputs in one request, run at the platforms\' pace, results as files (each live page 1 credit; docs/jobs.md)' }],
    paths: {
      ...Object.fromEntries(ordered.map((op) => [op.path, { get: operationObject(op) }])),
      [OPENAPI_ROUTE]: {
        get: {
          operationId: 'openapi',
          summary: 'This document',
          security: [],
          responses: { 200: { description: 'The OpenAPI document', content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
      ...statusPaths(),
      ...accountPaths(),
      ...agentPaths(),
      ...monitorPaths(),
      ...webhookPaths(),
      ...jobPaths(),
    },
    // The job events are the team catalogue's (shared/webhooks/catalogue.ts): teamWebhooks() describes them.
    webhooks: { ...monitorWebhooks(), ...teamWebhooks() },
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A 28-character key from the account dashboard' },
        bearer: { type: 'http', scheme: 'bearer', description: 'The same key as `Authorization: Bearer <key>`' },
        session: sessionScheme,
      },
      headers: {
        RequestId: { description: 'Equal to meta.requestId / error.requestId', schema: { type: 'string' } },
        RetryAfter: { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
        CreditsCharged: { description: 'Equal to meta.creditsCharged; 0 on every error (the gateway\'s own refusals included)', schema: { type: 'integer', minimum: 0 } },
        CreditsRemaining: {
          description: 'Equal to meta.creditsRemaining. An error answered by the operation carries it too, when the balance is known',
          schema: { type: 'integer', minimum: 0 },
        },
      },
      schemas: {
        FetchedAt: {
          type: 'object',
          required: ['fetchedAt'],
          properties: { fetchedAt: { type: 'string', format: 'date-time', description: 'When the data was fetched from the source (UTC)' } },
        },
        Meta: {
          type: 'object',
          required: ['requestId', 'creditsCharged', 'creditsRemaining', 'cached'],
          properties: {
            requestId: { type: 'string' },
            creditsCharged: { type: 'integer', minimum: 0 },
            creditsRemaining: { type: 'integer', minimum: 0 },
            cached: { type: 'boolean' },
            cachedAt: { type: 'string', format: 'date-time', description: 'Only on a cache hit' },
          },
        },
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message', 'requestId'],
              properties: {
                code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
                message: { type: 'string' },
                requestId: { type: 'string' },
                details: {
                  type: 'array',
                  description: 'Only with VALIDATION_ERROR',
                  items: { type: 'object', required: ['path', 'message'], properties: { path: { type: 'string' }, message: { type: 'string' } } },
                },
              },
            },
          },
        },
        ...dataSchemas,
        ...defs,
        ...accountSchemas,
        ...agentSchemas,
        ...statusSchemas,
        ...monitorSchemas,
        ...webhookSchemas,
        ...jobSchemas,
      },
    },
  };
}

export const renderOpenApi = () => `${JSON.stringify(openApiDocument(), null, 2)}\n`;

/** The small runtime tables the typed client needs (operation paths and which parameter is a cursor; the monitors API's routes), with no server code. */
export function renderClientTable(): string {
  const ordered = [...operations].sort((a, b) => a.number - b.number) as Operation[];
  const rows = ordered.map((op) => {
    const cursor = Object.entries(op.params).find(([, d]) => d.cursor)?.[0];
    return `  ${camel(op.id)}: { id: '${op.id}', path: '${op.path}', status: '${op.status}'${cursor ? `, cursor: '${cursor}'` : ''} },`;
  });
  const monitorRows = MONITOR_ROUTES.map((r) => `  ${r.name}: { method: '${r.method}', path: '${r.path}' },`);
  return [
    '// Generated by `npm run docs` (scripts/openapi.ts) from shared/operations.ts MONITOR_ROUTES and JOB_ROUTES (shared/api/*-routes.ts). Do not edit by hand.',
    'export const OPERATIONS = {',
    ...rows,
    '} as const;',
    '',
    '/** The monitors API, by route name. */',
    'export const MONITOR_ROUTES = {',
    ...monitorRows,
    '} as const;',
    '',
    '/** The team webhook endpoints API, by route name. */',
    'export const WEBHOOK_ROUTES = {',
    ...WEBHOOK_ROUTES.map((r) => `  ${r.name}: { method: '${r.method}', path: '${r.path}' },`),
    '} as const;',
    '',
    '/** Every event type a team webhook endpoint may want (shared/webhooks/catalogue.ts). */',
    `export const TEAM_EVENT_TYPES = [${TEAM_EVENT_TYPES.map((t) => `'${t}'`).join(', ')}] as const;`,
    '',
    '/** The bulk jobs API, by route name. */',
    'export const JOB_ROUTES = {',
    ...JOB_ROUTES.map((r) => `  ${r.name}: { method: '${r.method}', path: '${r.path}' },`),
    '} as const;',
    '',
  ].join('\n');
}
