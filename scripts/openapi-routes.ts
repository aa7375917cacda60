/**
 * One OpenAPI operation of a route table (the account API's ACCOUNT_ROUTES, the monitors API's
 * MONITOR_ROUTES): its path parameters, JSON body, success envelope `{data}` and errors in the
 * spec's shape (Retry-After on 429 and 503), and who may call it (`security`, from the route's
 * `caller`). Used by scripts/openapi-account.ts and
 * scripts/openapi-monitors.ts.
 */
import type { Caller } from '../shared/api/routes';

type Json = Record<string, unknown>;

export interface RouteSpec {
  summary: string;
  body?: Json;
  bodyOptional?: boolean;
  query?: Json[];
  /** Status, schema of `data`, description. */
  ok: [number, Json, string];
  errors: number[];
}

const requestId = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };
const KEY = [{ apiKey: [] }, { bearer: [] }];
const SESSION = [{ session: [] }];

/**
 * The `security` of a route, from its `caller` (shared/api/routes.ts): none for a public route; the
 * session cookie; the API key (x-api-key or Bearer); or either, listed in the order the API is mostly
 * called by (`first`).
 */
export function securityOf(caller: Caller, first: 'key' | 'session' = 'key'): Json[] {
  if (caller === 'public') return [];
  if (caller === 'session') return SESSION;
  if (caller === 'key') return KEY;
  return first === 'key' ? [...KEY, ...SESSION] : [...SESSION, ...KEY];
}

export function routeOperation(
  route: { path: string; caller: Caller },
  spec: RouteSpec,
  errorText: Record<number, string>,
  about: { operationId: string; description?: string; tags: string[]; callerFirst?: 'key' | 'session' },
): Json {
  const [okStatus, okSchema, okText] = spec.ok;
  const params = [
    ...[...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...(spec.query ?? []),
  ];
  const responses: Json = {
    [okStatus]: { description: okText, headers: requestId, content: { 'application/json': { schema: { type: 'object', required: ['data'], properties: { data: okSchema } } } } },
  };
  for (const status of spec.errors) {
    responses[status] = {
      description: errorText[status],
      headers: { ...requestId, ...(status === 503 || status === 429 ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}) },
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return {
    operationId: about.operationId,
    summary: spec.summary,
    ...(about.description ? { description: about.description } : {}),
    tags: about.tags,
    security: securityOf(route.caller, about.callerFirst),
    ...(params.length ? { parameters: params } : {}),
    ...(spec.body ? { requestBody: { required: !spec.bodyOptional, content: { 'application/json': { schema: spec.body } } } } : {}),
    responses,
  };
}
