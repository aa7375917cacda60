import type { APIGatewayProxyEvent } from 'aws-lambda';

/** A request made inside the service, as API Gateway would route it to a function. */
export interface InServiceRequest {
  method: string;
  /** The path as requested (the stage's prefix, if any, goes in requestContext.path). */
  path: string;
  /** The route's template (`/v1/monitors/{monitorId}`); the path itself when it has no parameters. */
  resource?: string;
  pathParameters?: Record<string, string> | null;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string | null;
}

/**
 * The proxy event API Gateway would hand a function for `request`: what a call made inside the
 * service (an MCP tool call, a monitor's poll) invokes a handler with, so it runs that handler's
 * one path like any request. `requestContext` carries the caller and the request id.
 */
export function proxyEvent(request: InServiceRequest, requestContext: Record<string, unknown>, stageVariables: APIGatewayProxyEvent['stageVariables'] = null): APIGatewayProxyEvent {
  const { method, path } = request;
  const resource = request.resource ?? path;
  const query = request.query ?? {};
  const headers = request.headers ?? {};
  const names = Object.keys(query);
  return {
    resource,
    path,
    httpMethod: method,
    headers: { ...headers },
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: names.length ? { ...query } : null,
    multiValueQueryStringParameters: names.length ? Object.fromEntries(names.map((n) => [n, [query[n]!]])) : null,
    pathParameters: request.pathParameters ?? null,
    stageVariables,
    body: request.body ?? null,
    isBase64Encoded: false,
    requestContext: { httpMethod: method, path, resourcePath: resource, ...requestContext } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

/**
 * The GET proxy event of the operation at `path` for `query`: the caller in `requestContext` (the
 * authorizer's context) and the request id; no headers, no body.
 */
export function operationGetEvent(path: string, query: Record<string, string>, requestContext: Record<string, unknown>, stageVariables: APIGatewayProxyEvent['stageVariables'] = null): APIGatewayProxyEvent {
  return proxyEvent({ method: 'GET', path, query }, requestContext, stageVariables);
}
