import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * The GET proxy event API Gateway would hand the function of the operation at `path` for `query`:
 * what a call made inside the service (an MCP tool call, a monitor's poll) invokes the operation's
 * handler with, so it runs the one pipeline like any request. `requestContext` carries the caller
 * (the authorizer's context) and the request id; no headers, no body.
 */
export function operationGetEvent(path: string, query: Record<string, string>, requestContext: Record<string, unknown>, stageVariables: APIGatewayProxyEvent['stageVariables'] = null): APIGatewayProxyEvent {
  const names = Object.keys(query);
  return {
    resource: path,
    path,
    httpMethod: 'GET',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: names.length ? { ...query } : null,
    multiValueQueryStringParameters: names.length ? Object.fromEntries(names.map((n) => [n, [query[n]!]])) : null,
    pathParameters: null,
    stageVariables,
    body: null,
    isBase64Encoded: false,
    requestContext: { httpMethod: 'GET', path, resourcePath: path, ...requestContext } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}
