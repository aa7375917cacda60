import type { APIGatewayProxyEvent } from 'aws-lambda';
import { authorize } from '../auth/authorizer';
import { createKey, heldBy, keyFromHeaders, listKeys, renameKey, revokeKey, type KeyRecord } from '../auth/keys';
import { config } from '../runtime/config';
import { getTeam } from '../accounting/teams';
import { entryPoint } from '../http/entry';
import { loadSecrets } from '../runtime/secrets';
import type { Log } from '../runtime/log';
import { jsonAnswer } from '../http/envelope';
import { jsonObjectBody } from '../http/body';
import { ApiError, GATEWAY_MESSAGES, notFound } from '../http/errors';
import { NOT_SIGNED_IN, invalid, notSignedIn, session, sessionCookiePath, type Ctx, type Reply } from './context';
import { getMember, roleOf, setPassword } from './members';
import { passwordProblem } from './passwords';
import { matchAccountRoute, type AccountRoute } from './routes';
import { clearedSessionCookies, endSession, sessionIdFromCookies, type Session } from './sessions';
import { signIn } from './signin';
import { TEAM_HANDLERS, caller } from './team';
import { creditsReport, requestsReport, usageReport } from './reads';

/**
 * The account API (ACCOUNT_ROUTES) behind the dashboard. JSON in, `{data}` or the spec's error
 * envelope out. Authorised by the session cookie, and only for the session's own team: every key
 * lookup is by (session team, keyId), so another team's key is simply not found. The three reads
 * a script needs (credits, usage, requests) also answer an API key (`x-api-key` or Bearer) for the
 * key's team, free of charge; every other route ignores a key (it never signs in here), and
 * state-changing requests must carry this site's Origin.
 */
export { NOT_SIGNED_IN };
export { SIGN_IN_FAILED, SIGN_IN_THROTTLED } from './signin';
export const BAD_ORIGIN = 'The request must come from the dashboard of this site (Origin header)';
export const NOT_YOUR_KEY = 'Only an owner of the team can rename or revoke a key another member holds, or a key of the team';
export const BAD_TOKEN = 'This set-password link is invalid, used or expired; ask for a new invitation';
const MAX_BODY_BYTES = 8 * 1024;
const KEY_NAME_MAX = 64;

const lowerHeaders = (h: APIGatewayProxyEvent['headers'] | null | undefined) => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) if (typeof v === 'string') out[k.toLowerCase()] = v;
  return out;
};

/** The origin this API is served from: DASHBOARD_ORIGIN when set, else the request's own host. */
export function expectedOrigin(headers: Record<string, string>): string | null {
  if (process.env.DASHBOARD_ORIGIN) return process.env.DASHBOARD_ORIGIN.replace(/\/+$/, '');
  const host = headers.host;
  if (!host) return null;
  const proto = (headers['x-forwarded-proto'] ?? 'https').split(',')[0]!.trim();
  return `${proto}://${host}`;
}

/** A state-changing request made with the session cookie must come from this site (400 BAD_REQUEST otherwise). */
export function requireOwnOrigin(headers: Record<string, string>, log: Log): void {
  const expected = expectedOrigin(headers);
  if (headers.origin && expected && headers.origin === expected) return;
  log.info('origin refused', { origin: headers.origin ?? null, expected });
  throw new ApiError('BAD_REQUEST', BAD_ORIGIN);
}

const parseBody = (event: APIGatewayProxyEvent) => jsonObjectBody(event, MAX_BODY_BYTES);


function keyName(value: unknown): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (!name) throw invalid('name', 'A key name is required');
  if (name.length > KEY_NAME_MAX) throw invalid('name', `At most ${KEY_NAME_MAX} characters`);
  return name;
}

export const publicKey = (k: KeyRecord) => ({
  keyId: k.keyId,
  name: k.name,
  createdAt: k.createdAt,
  createdBy: k.createdBy ?? null,
  heldBy: heldBy(k),
  lastUsedAt: k.lastUsedAt ?? null,
  revokedAt: k.revokedAt ?? null,
  status: k.revokedAt ? ('revoked' as const) : ('active' as const),
});


const HANDLERS: Record<AccountRoute['name'], (ctx: Ctx) => Promise<Reply>> = {
  async setPassword({ body }) {
    const problem = passwordProblem(body.password);
    if (problem) throw invalid('password', problem);
    if (typeof body.token !== 'string') throw invalid('token', 'The token from the invitation link is required');
    const email = await setPassword(body.token, body.password as string);
    if (!email) throw new ApiError('BAD_REQUEST', BAD_TOKEN);
    return { data: { email } };
  },

  signIn: (ctx) => signIn(ctx, me),

  async signOut({ headers, cookiePath }) {
    const id = sessionIdFromCookies(headers.cookie);
    if (id) await endSession(id);
    return { data: { signedOut: true }, cookies: clearedSessionCookies(cookiePath) };
  },

  async me(ctx) {
    return { data: await me(await session(ctx)) };
  },

  async listKeys(ctx) {
    const { teamId } = await session(ctx);
    const keys = (await listKeys(teamId)).map(publicKey).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return { data: { keys } };
  },

  async createKey(ctx) {
    const { teamId, memberId, email } = await session(ctx);
    const name = keyName(ctx.body.name);
    const team = await getTeam(teamId);
    if (!team) throw notSignedIn(ctx);
    const { secret, record } = await createKey(teamId, name, team.usageKey, { kind: 'member', memberId, email });
    ctx.log.info('key created', { teamId, memberId, keyId: record.keyId });
    return { status: 201, data: { key: { ...publicKey(record), secret } } };
  },

  async renameKey(ctx) {
    const { teamId } = await mayChangeKey(ctx);
    const name = keyName(ctx.body.name);
    const updated = await renameKey(teamId, ctx.params.keyId ?? '', name);
    if (!updated) throw notFound('Your team has no key with this id');
    return { data: { key: publicKey(updated) } };
  },

  async revokeKey(ctx) {
    const { teamId, memberId } = await mayChangeKey(ctx);
    const keyId = ctx.params.keyId ?? '';
    if (!(await revokeKey(teamId, keyId))) throw notFound('Your team has no key with this id');
    ctx.log.info('key revoked', { teamId, memberId, keyId });
    const key = (await listKeys(teamId)).find((k) => k.keyId === keyId);
    return { data: { key: key ? publicKey(key) : { keyId, status: 'revoked' } } };
  },

  async credits(ctx) {
    return { data: await creditsReport(await readerTeam(ctx)) };
  },

  async usage(ctx) {
    return { data: await usageReport(await readerTeam(ctx), ctx.event.queryStringParameters?.days) };
  },

  async requests(ctx) {
    return { data: await requestsReport(await readerTeam(ctx), ctx.event.queryStringParameters) };
  },

  ...TEAM_HANDLERS,
};

/**
 * The session of a caller who may rename or revoke the route's key: an owner any key of the team, a
 * member only a key they hold (heldBy). A key the team has not is left to the handler's 404.
 */
async function mayChangeKey(ctx: Ctx): Promise<Session> {
  const you = await session(ctx);
  if (roleOf(await caller(ctx, you)) === 'owner') return you;
  const key = (await listKeys(you.teamId)).find((k) => k.keyId === ctx.params.keyId);
  if (key && heldBy(key)?.memberId !== you.memberId) throw new ApiError('BAD_REQUEST', NOT_YOUR_KEY);
  return you;
}

/**
 * The team of a read's caller: the API key's when the request carries one (checked as the
 * authorizer checks it: unknown or revoked is 401), else the dashboard session's.
 */
async function readerTeam(ctx: Ctx): Promise<string> {
  if (keyFromHeaders(ctx.headers) === undefined) return (await session(ctx)).teamId;
  const key = await authorize(ctx.headers);
  if (!key) throw new ApiError('UNAUTHORIZED', GATEWAY_MESSAGES.UNAUTHORIZED);
  ctx.log.appendKeys({ teamId: key.teamId, keyId: key.keyId });
  return key.teamId;
}

/** The signed-in member, as GET /v1/account/me and a sign-in answer it. */
export type AccountMe = Awaited<ReturnType<typeof me>>;

async function me(s: Session) {
  const [team, member] = await Promise.all([getTeam(s.teamId), getMember(s.email)]);
  return {
    email: s.email,
    memberId: s.memberId,
    role: roleOf(member ?? {}),
    team: { teamId: s.teamId, name: team?.name ?? '' },
    sessionExpiresAt: new Date(s.expiresAt * 1000).toISOString(),
  };
}

const STATE_CHANGING = new Set(['POST', 'PATCH', 'DELETE', 'PUT']);

export const accountHandler = entryPoint('account', async (event, { requestId, log, responseCookies }) => {
  // The key pepper (KEY_PEPPER_SECRET_ARN: keys and session ids are hashed with it), once per cold start.
  await loadSecrets();
  const cookiePath = sessionCookiePath(event);
  const matched = matchAccountRoute(event.httpMethod, event.path);
  if (!matched) throw new ApiError('NOT_FOUND', 'No such account route');
  const headers = lowerHeaders(event.headers);
  if (STATE_CHANGING.has(event.httpMethod)) requireOwnOrigin(headers, log);
  const body = STATE_CHANGING.has(event.httpMethod) ? parseBody(event) : {};
  const reply = await HANDLERS[matched.route.name]({ event, headers, body, params: matched.params, requestId, cookiePath, log, responseCookies });
  responseCookies.push(...(reply.cookies ?? []));
  return jsonAnswer(reply.status ?? 200, { data: reply.data }, requestId);
});
