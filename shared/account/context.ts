import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ApiError, type ValidationDetail } from '../errors';
import type { Log } from '../log';
import { findSession, sessionIdFromCookies, type Session } from './sessions';

/** What every account-API handler gets (api.ts builds it) and answers. */
export type Ctx = {
  event: APIGatewayProxyEvent;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  params: Record<string, string>;
  requestId: string;
  cookiePath: string;
  log: Log;
};
export type Reply = { status?: number; data: unknown; cookie?: string };

export const NOT_SIGNED_IN = 'Sign in to the dashboard first (session cookie missing, expired or ended)';

export const invalid = (path: string, message: string) => new ApiError('VALIDATION_ERROR', 'Invalid request body', { details: [{ path, message }] as ValidationDetail[] });

/** The caller's live session, or 401. */
export async function session(ctx: Pick<Ctx, 'headers'>): Promise<Session> {
  const id = sessionIdFromCookies(ctx.headers.cookie);
  const s = id ? await findSession(id) : null;
  if (!s) throw new ApiError('UNAUTHORIZED', NOT_SIGNED_IN);
  return s;
}
