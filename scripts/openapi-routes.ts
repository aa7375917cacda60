/**
 * One OpenAPI operation of a route table (the account API's ACCOUNT_ROUTES, the monitors API's
 * MONITOR_ROUTES): its path parameters, JSON body, success envelope `{data}` and errors in the
 * spec's shape (Retry-After on 429 and 503). Used by scripts/openapi-account.ts and
 * scripts/openapi-monitors.ts.
 */
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

export function routeOperation(
  route: { path: string },
  spec: RouteSpec,
  errorText: Record<number, string>,
  about: { operationId: string; description?: string; tags: string[]; security: Json[] },
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
    security: about.security,
    ...(params.length ? { parameters: params } : {}),
    ...(spec.body ? { requestBody: { required: !spec.bodyOptional, content: { 'application/json': { schema: spec.body } } } } : {}),
    responses,
  };
}
