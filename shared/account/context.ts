import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ApiError, type ValidationDetail } from '../http/errors';
import type { Log } from '../runtime/log';
import { clearedSessionCookie, findSession, sessionIdFromCookies, type Session } from './sessions';

/** What every account-API handler gets (api.ts builds it) and answers. */
export type Ctx = {
  event: APIGatewayProxyEvent;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  params: Record<string, string>;
  requestId: string;
  cookiePath: string;
  log: Log;
  /** Headers of the answer, error answers included. */
  responseHeaders: Record<string, string>;
};
export type Reply = { status?: number; data: unknown; cookie?: string };

export const NOT_SIGNED_IN = 'Sign in to the dashboard first (session cookie missing, expired or ended)';

export const invalid = (path: string, message: string) => new ApiError('VALIDATION_ERROR', 'Invalid request body', { details: [{ path, message }] as ValidationDetail[] });

/** 401 for a request without a live session; its answer also clears a stale cookie. */
export function notSignedIn(ctx: Pick<Ctx, 'responseHeaders' | 'cookiePath'>): ApiError {
  ctx.responseHeaders['set-cookie'] = clearedSessionCookie(ctx.cookiePath);
  return new ApiError('UNAUTHORIZED', NOT_SIGNED_IN);
}

/** The caller's live session, or 401 (clearing the stale cookie). */
export async function session(ctx: Pick<Ctx, 'headers' | 'responseHeaders' | 'cookiePath'>): Promise<Session> {
  const id = sessionIdFromCookies(ctx.headers.cookie);
  const s = id ? await findSession(id) : null;
  if (!s) throw notSignedIn(ctx);
  return s;
}
