/**
 * The account API behind the dashboard, written once: the function routes by it, the local
 * gateway serves it, the CDK stack adds one API Gateway method per entry (no API-key authorizer:
 * the session cookie is the credential, or for the reads in KEY_READABLE an API key, both checked
 * by the function).
 */
export const ACCOUNT_ROUTES = [
  { method: 'POST', path: '/v1/account/password', name: 'setPassword' },
  { method: 'POST', path: '/v1/account/sign-in', name: 'signIn' },
  { method: 'POST', path: '/v1/account/sign-out', name: 'signOut' },
  { method: 'GET', path: '/v1/account/me', name: 'me' },
  { method: 'GET', path: '/v1/account/keys', name: 'listKeys' },
  { method: 'POST', path: '/v1/account/keys', name: 'createKey' },
  { method: 'PATCH', path: '/v1/account/keys/{keyId}', name: 'renameKey' },
  { method: 'DELETE', path: '/v1/account/keys/{keyId}', name: 'revokeKey' },
  { method: 'GET', path: '/v1/account/credits', name: 'credits' },
  { method: 'GET', path: '/v1/account/usage', name: 'usage' },
  { method: 'GET', path: '/v1/account/requests', name: 'requests' },
  { method: 'POST', path: '/v1/account/me/password', name: 'changePassword' },
  { method: 'GET', path: '/v1/account/members', name: 'listMembers' },
  { method: 'DELETE', path: '/v1/account/members/{memberId}', name: 'removeMember' },
  { method: 'GET', path: '/v1/account/members/{memberId}/sessions', name: 'listSessions' },
  { method: 'DELETE', path: '/v1/account/members/{memberId}/sessions', name: 'endSessions' },
  { method: 'DELETE', path: '/v1/account/members/{memberId}/sessions/{sessionId}', name: 'endSession' },
] as const;

export type AccountRoute = (typeof ACCOUNT_ROUTES)[number];

/** The dashboard's pages and assets, all served by one function. */
export const DASHBOARD_PATH = '/dashboard';

const pattern = (path: string) => new RegExp(`${path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`);
const COMPILED = ACCOUNT_ROUTES.map((r) => ({ route: r, re: pattern(r.path) }));

/** The route for a method and a path (which may carry a stage or base-path prefix). */
export function matchAccountRoute(method: string, path: string): { route: AccountRoute; params: Record<string, string> } | null {
  for (const { route, re } of COMPILED) {
    if (route.method !== method) continue;
    const m = re.exec(path);
    if (m) return { route, params: { ...(m.groups ?? {}) } };
  }
  return null;
}

/** The account reads a script may make with an API key instead of a session (free of charge). */
export const KEY_READABLE: readonly AccountRoute['name'][] = ['credits', 'usage', 'requests'];
