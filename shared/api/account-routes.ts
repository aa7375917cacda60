import { matchRoute, type RouteDef } from './routes';

/**
 * The account API behind the dashboard, written once: the function routes by it, the local
 * gateway serves it, the CDK stack adds one API Gateway method per entry (no API-key authorizer:
 * the session cookie is the credential, or for the reads in KEY_READABLE an API key, both checked
 * by the function's router, shared/api/router.ts, by each route's `caller`).
 */
export const ACCOUNT_ROUTES = [
  { method: 'POST', path: '/v1/account/password', name: 'setPassword', caller: 'public' },
  { method: 'POST', path: '/v1/account/sign-in', name: 'signIn', caller: 'public' },
  { method: 'POST', path: '/v1/account/sign-out', name: 'signOut', caller: 'public' },
  { method: 'GET', path: '/v1/account/me', name: 'me', caller: 'session' },
  { method: 'GET', path: '/v1/account/keys', name: 'listKeys', caller: 'session' },
  { method: 'POST', path: '/v1/account/keys', name: 'createKey', caller: 'session' },
  { method: 'PATCH', path: '/v1/account/keys/{keyId}', name: 'renameKey', caller: 'session' },
  { method: 'DELETE', path: '/v1/account/keys/{keyId}', name: 'revokeKey', caller: 'session' },
  { method: 'GET', path: '/v1/account/credits', name: 'credits', caller: 'either' },
  { method: 'GET', path: '/v1/account/usage', name: 'usage', caller: 'either' },
  { method: 'GET', path: '/v1/account/requests', name: 'requests', caller: 'either' },
  { method: 'POST', path: '/v1/account/me/password', name: 'changePassword', caller: 'session' },
  { method: 'GET', path: '/v1/account/members', name: 'listMembers', caller: 'session' },
  { method: 'DELETE', path: '/v1/account/members/{memberId}', name: 'removeMember', caller: 'session' },
  { method: 'GET', path: '/v1/account/members/{memberId}/sessions', name: 'listSessions', caller: 'session' },
  { method: 'DELETE', path: '/v1/account/members/{memberId}/sessions', name: 'endSessions', caller: 'session' },
  { method: 'DELETE', path: '/v1/account/members/{memberId}/sessions/{sessionId}', name: 'endSession', caller: 'session' },
] as const satisfies readonly RouteDef[];

export type AccountRoute = (typeof ACCOUNT_ROUTES)[number];

/** The dashboard's pages and assets, all served by one function. */
export const DASHBOARD_PATH = '/dashboard';

/** The route for a method and a path (which may carry a stage or base-path prefix). */
export const matchAccountRoute = (method: string, path: string) => matchRoute(ACCOUNT_ROUTES, method, path);

/** The account reads a script may make with an API key instead of a session (free of charge). */
export const KEY_READABLE: readonly AccountRoute['name'][] = ACCOUNT_ROUTES.filter((r) => r.caller === 'either').map((r) => r.name);
