import type { APIGatewayProxyEvent } from 'aws-lambda';
import { authorize, type AuthorizedContext } from '../auth/authorizer';
import { keyFromHeaders } from '../auth/keys';
import { clearedSessionCookies, findSession, sessionIdFromCookies, type Session } from '../auth/sessions';
import { ApiError, GATEWAY_MESSAGES } from '../http/errors';
import { config } from '../runtime/config';
import type { Log } from '../runtime/log';

/**
 * Who is calling a JSON API (shared/api/router.ts): the team's API key (x-api-key or Bearer, checked
 * as the authorizer checks it) or a dashboard session (its cookie), and the Origin rule for what a
 * browser sends with that cookie. Every JSON API asks here; none reads a header itself.
 */
export const NOT_SIGNED_IN = 'Sign in to the dashboard first (session cookie missing, expired or ended)';
export const BAD_ORIGIN = 'The request must come from the dashboard of this site (Origin header)';

/** A request's headers, names lower-cased (API Gateway passes them as the client wrote them). */
export function lowerHeaders(h: APIGatewayProxyEvent['headers'] | null | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) if (typeof v === 'string') out[k.toLowerCase()] = v;
  return out;
}

/** Whether the request carries an API key at all (a wrong one included). */
export const carriesKey = (headers: Record<string, string>) => keyFromHeaders(headers) !== undefined;

/** The API key's team and id, or 401 with the gateway's own message (unknown, revoked or missing). `readOnly`: authorize's. */
export async function keyCaller(headers: Record<string, string>, opts: { readOnly?: boolean } = {}): Promise<Pick<AuthorizedContext, 'teamId' | 'keyId'>> {
  const key = await authorize(headers, opts);
  if (!key) throw new ApiError('UNAUTHORIZED', GATEWAY_MESSAGES.UNAUTHORIZED);
  return { teamId: key.teamId, keyId: key.keyId };
}

/**
 * The session cookie's path: the part of the request path before /v1/ (an API Gateway stage such as
 * /prod, or a custom domain's base path), then /v1: the account API and the monitors API alike.
 */
export function sessionCookiePath(event: Pick<APIGatewayProxyEvent, 'path' | 'requestContext'>): string {
  const full = event.requestContext?.path ?? event.path;
  const i = full.indexOf('/v1/');
  return `${i > 0 ? full.slice(0, i) : ''}/v1`;
}

/** What a 401 for a missing session needs: where to clear a stale cookie. */
export interface CookieScope {
  responseCookies: string[];
  cookiePath: string;
}

/** 401 for a request without a live session; its answer also clears a stale cookie. */
export function notSignedIn(scope: CookieScope): ApiError {
  scope.responseCookies.push(...clearedSessionCookies(scope.cookiePath));
  return new ApiError('UNAUTHORIZED', NOT_SIGNED_IN);
}

/** The caller's live session, or 401 (clearing the stale cookie). */
export async function sessionCaller(headers: Record<string, string>, scope: CookieScope): Promise<Session> {
  const id = sessionIdFromCookies(headers.cookie);
  const s = id ? await findSession(id) : null;
  if (!s) throw notSignedIn(scope);
  return s;
}

/** The origin this API is served from: DASHBOARD_ORIGIN when set, else the request's own host. */
export function expectedOrigin(headers: Record<string, string>): string | null {
  if (config.dashboardOrigin) return config.dashboardOrigin.replace(/\/+$/, '');
  const host = headers.host;
  if (!host) return null;
  const proto = (headers['x-forwarded-proto'] ?? 'https').split(',')[0]!.trim();
  return `${proto}://${host}`;
}

/** A state-changing request a browser may send (no API key) must come from this site (400 BAD_REQUEST otherwise). */
export function requireOwnOrigin(headers: Record<string, string>, log: Log): void {
  const expected = expectedOrigin(headers);
  if (headers.origin && expected && headers.origin === expected) return;
  log.info('origin refused', { origin: headers.origin ?? null, expected });
  throw new ApiError('BAD_REQUEST', BAD_ORIGIN);
}
