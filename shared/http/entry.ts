import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { baseHeaders, failure } from './envelope';
import { toApiError } from './errors';
import { requestScope, type RequestScope } from '../runtime/log';

/**
 * The one wrapper of every HTTP entry point (the operations through shared/pipeline.ts, the account
 * API, the dashboard, the OpenAPI document): one request-id rule and log context (`requestScope`),
 * one error mapping (`toApiError`: an unknown error is 503 SERVICE_UNAVAILABLE everywhere, logged
 * with its cause), and one set of headers on every answer (`baseHeaders`), error answers included.
 * The REQUEST authorizer is not an HTTP answer; it takes the same `requestScope`.
 */
export type ProxyHandler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

export interface EntryScope extends RequestScope {
  /** Headers for this request's answer, whether it succeeds or fails. */
  responseHeaders: Record<string, string>;
  /** Set-Cookie lines of this request's answer, whether it succeeds or fails (a cleared cookie, say): one header each. */
  responseCookies: string[];
}

export function entryPoint(name: string, handle: (event: APIGatewayProxyEvent, scope: EntryScope) => Promise<APIGatewayProxyResult>): ProxyHandler {
  return async (event) => {
    const scope: EntryScope = { ...requestScope(event, name), responseHeaders: {}, responseCookies: [] };
    let answer: APIGatewayProxyResult;
    try {
      answer = await handle(event, scope);
    } catch (err) {
      const apiError = toApiError(err);
      scope.log[apiError.logLevel ?? (apiError.status >= 500 ? 'error' : 'info')]('request failed', {
        code: apiError.code,
        status: apiError.status,
        cause: apiError.internal ?? apiError.message,
      });
      answer = failure(apiError, scope.requestId);
    }
    const cookies = scope.responseCookies.length ? { multiValueHeaders: { ...answer.multiValueHeaders, 'set-cookie': scope.responseCookies } } : {};
    return { ...answer, headers: { ...answer.headers, ...scope.responseHeaders, ...baseHeaders(scope.requestId) }, ...cookies };
  };
}
