import { jsonApi, type Handlers } from '../api/router';
import { createKey, heldBy, listKeys, renameKey, revokeKey, type KeyRecord } from '../auth/keys';
import { getTeam } from '../accounting/teams';
import { ApiError, notFound } from '../http/errors';
import { invalid } from '../http/validation';
import { notSignedIn } from '../api/caller';
import { getMember, roleOf, setPassword } from '../auth/members';
import { passwordProblem } from '../auth/passwords';
import { ACCOUNT_ROUTES } from '../api/account-routes';
import { clearedSessionCookies, endSession, sessionIdFromCookies, type Session } from '../auth/sessions';
import { signIn } from './signin';
import { TEAM_HANDLERS, caller } from './team';
import { creditsReport, requestsReport, usageReport } from '../api/account-reads';
import { monitorOwnersOr, type SessionCtx } from './context';

/**
 * The account API (ACCOUNT_ROUTES) behind the dashboard. JSON in, `{data}` or the spec's error
 * envelope out. Authorised by the session cookie, and only for the session's own team: every key
 * lookup is by (session team, keyId), so another team's key is simply not found. The three reads
 * a script needs (credits, usage, requests) also answer an API key (`x-api-key` or Bearer) for the
 * key's team, free of charge; every other route ignores a key (it never signs in here), and
 * state-changing requests must carry this site's Origin. Who may call each route is its `caller`
 * (./routes.ts); shared/api/router.ts checks it, and the Origin, before any handler runs.
 */
export { BAD_ORIGIN, NOT_SIGNED_IN } from '../api/caller';
export { SIGN_IN_FAILED, SIGN_IN_THROTTLED } from './signin';
export const NOT_YOUR_KEY = 'Only an owner of the team can rename or revoke a key another member holds, or a key of the team';
export const BAD_TOKEN = 'This set-password link is invalid, used or expired; ask for a new invitation';
const MAX_BODY_BYTES = 8 * 1024;
const KEY_NAME_MAX = 64;

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


const HANDLERS: Handlers<typeof ACCOUNT_ROUTES> = {
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
    return { data: await me(ctx.session) };
  },

  async listKeys(ctx) {
    const { teamId } = ctx.session;
    const keys = (await listKeys(teamId)).map(publicKey).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return { data: { keys } };
  },

  async createKey(ctx) {
    const { teamId, memberId, email } = ctx.session;
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
    // The monitors created with it are paused in the same transaction (shared/monitors/owner.ts ownerChange).
    const paused: string[] = [];
    if (!(await revokeKey(teamId, keyId, monitorOwnersOr().keyRevoked(teamId, keyId, paused)))) throw notFound('Your team has no key with this id');
    ctx.log.info('key revoked', { teamId, memberId, keyId, monitorsPaused: paused });
    const key = (await listKeys(teamId)).find((k) => k.keyId === keyId);
    return { data: { key: key ? publicKey(key) : { keyId, status: 'revoked' }, monitorsPaused: paused } };
  },

  async credits(ctx) {
    return { data: await creditsReport(ctx.teamId) };
  },

  async usage(ctx) {
    return { data: await usageReport(ctx.teamId, ctx.query.days) };
  },

  async requests(ctx) {
    return { data: await requestsReport(ctx.teamId, ctx.query) };
  },

  ...TEAM_HANDLERS,
};

/**
 * The session of a caller who may rename or revoke the route's key: an owner any key of the team, a
 * member only a key they hold (heldBy). A key the team has not is left to the handler's 404.
 */
async function mayChangeKey(ctx: SessionCtx): Promise<Session> {
  const you = ctx.session;
  if (roleOf(await caller(ctx, you)) === 'owner') return you;
  const key = (await listKeys(you.teamId)).find((k) => k.keyId === ctx.params.keyId);
  if (key && heldBy(key)?.memberId !== you.memberId) throw new ApiError('BAD_REQUEST', NOT_YOUR_KEY);
  return you;
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

export const accountHandler = jsonApi('account', ACCOUNT_ROUTES, HANDLERS, { notFound: 'No such account route', maxBodyBytes: MAX_BODY_BYTES });
