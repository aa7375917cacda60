import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ApiError, type ValidationDetail } from '../http/errors';
import type { Log } from '../runtime/log';
import { clearedSessionCookies, findSession, sessionIdFromCookies, type Session } from './sessions';

/** What every account-API handler gets (api.ts builds it) and answers. */
export type Ctx = {
  event: APIGatewayProxyEvent;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  params: Record<string, string>;
  requestId: string;
  /** The session cookie's path (sessionCookiePath). */
  cookiePath: string;
  log: Log;
  /** Set-Cookie lines of the answer, error answers included (EntryScope). */
  responseCookies: string[];
};
export type Reply = { status?: number; data: unknown; cookies?: string[] };

export const NOT_SIGNED_IN = 'Sign in to the dashboard first (session cookie missing, expired or ended)';

export const invalid = (path: string, message: string) => new ApiError('VALIDATION_ERROR', 'Invalid request body', { details: [{ path, message }] as ValidationDetail[] });

/** 401 for a request without a live session; its answer also clears a stale cookie. */
export function notSignedIn(ctx: Pick<Ctx, 'responseCookies' | 'cookiePath'>): ApiError {
  ctx.responseCookies.push(...clearedSessionCookies(ctx.cookiePath));
  return new ApiError('UNAUTHORIZED', NOT_SIGNED_IN);
}

/** The caller's live session, or 401 (clearing the stale cookie). */
export async function session(ctx: Pick<Ctx, 'headers' | 'responseCookies' | 'cookiePath'>): Promise<Session> {
  const id = sessionIdFromCookies(ctx.headers.cookie);
  const s = id ? await findSession(id) : null;
  if (!s) throw notSignedIn(ctx);
  return s;
}

/**
 * The session cookie's path: the part of the request path before /v1/ (an API Gateway stage such as
 * /prod, or a custom domain's base path), then /v1: the account API and the monitors API alike.
 */
export function sessionCookiePath(event: APIGatewayProxyEvent): string {
  const full = event.requestContext?.path ?? event.path;
  const i = full.indexOf('/v1/');
  return `${i > 0 ? full.slice(0, i) : ''}/v1`;
}
