import { ApiError, notFound } from '../http/errors';
import { notSignedIn } from '../api/caller';
import { invalid } from '../http/validation';
import { monitorOwnersOr, type Reply, type SessionCtx as Ctx } from './context';
import { endAllSessions, getMember, listMembers, memberOfTeam, removeMemberAndKeys, roleOf, type Member } from '../auth/members';
import { hashPassword, passwordProblem } from '../auth/passwords';
import { endOtherSessions, endSessionById, listSessions, sessionIdFromCookies, type Session } from '../auth/sessions';
import { admit, passwordMatches, sourceAddress } from './signin';
import { signInSucceeded } from './throttle';

/**
 * The member lifecycle in the dashboard: the team's members, removing one (their sessions end at
 * once, the keys they hold are revoked unless transferred), a member's live sessions and ending
 * them, and changing one's own password (which ends one's other sessions). Roles (members.ts):
 * only an owner removes members or sees and ends another member's sessions; everyone manages their
 * own. No one removes themselves here (the admin CLI can), so a team never loses its last owner by
 * a click.
 */
export const CANNOT_REMOVE_SELF = 'You cannot remove yourself; another owner of the team or the operator (admin CLI) can';
export const OWNERS_ONLY = "Only an owner of the team can remove members or see and end another member's sessions";
export const WRONG_PASSWORD = 'The current password is wrong';
const NO_MEMBER = 'Your team has no member with this id';

export const publicMember = (m: Pick<Member, 'memberId' | 'email' | 'createdAt' | 'passwordSetAt' | 'role'>, you: Session) => ({
  memberId: m.memberId,
  email: m.email,
  role: roleOf(m),
  invitedAt: m.createdAt,
  passwordSetAt: m.passwordSetAt ?? null,
  status: m.passwordSetAt ? ('active' as const) : ('invited' as const),
  you: m.memberId === you.memberId,
});

export const publicSession = (s: Session, current: Session | null) => ({
  sessionId: s.sessionId,
  createdAt: s.createdAt,
  expiresAt: new Date(s.expiresAt * 1000).toISOString(),
  address: s.address ?? null,
  userAgent: s.userAgent ?? null,
  current: !!current && s.sessionId === current.sessionId,
});

/** The member of the caller's team named by the route's {memberId}; 404 for any other. */
async function teamMember(ctx: Ctx, you: Session, memberId = ctx.params.memberId ?? ''): Promise<Member> {
  const m = await memberOfTeam(you.teamId, memberId);
  if (!m) throw notFound(NO_MEMBER);
  return m;
}

/** The caller as a member now (their role read afresh, strongly consistent), or 401. */
export async function caller(ctx: Pick<Ctx, 'responseCookies' | 'cookiePath'>, you: Session): Promise<Member> {
  const m = await getMember(you.email);
  if (!m || m.memberId !== you.memberId || m.teamId !== you.teamId) throw notSignedIn(ctx);
  return m;
}

/** Another member's sessions are an owner's business; one's own, everyone's. */
async function mayManage(ctx: Ctx, you: Session, m: Member): Promise<void> {
  if (m.memberId !== you.memberId && roleOf(await caller(ctx, you)) !== 'owner') throw new ApiError('BAD_REQUEST', OWNERS_ONLY);
}

export const TEAM_HANDLERS = {
  async listMembers(ctx: Ctx): Promise<Reply> {
    const you = ctx.session;
    return { data: { members: (await listMembers(you.teamId)).map((m) => publicMember(m, you)) } };
  },

  /** Owners only. Body (optional): `{transferKeysTo: memberId}`, the member who keeps the removed member's keys; else they are revoked. */
  async removeMember(ctx: Ctx): Promise<Reply> {
    const you = ctx.session;
    if (roleOf(await caller(ctx, you)) !== 'owner') throw new ApiError('BAD_REQUEST', OWNERS_ONLY);
    const m = await teamMember(ctx, you);
    if (m.memberId === you.memberId) throw new ApiError('BAD_REQUEST', CANNOT_REMOVE_SELF);
    const to = ctx.body.transferKeysTo;
    if (to !== undefined && (typeof to !== 'string' || to === m.memberId)) throw invalid('transferKeysTo', 'The id of another member of the team, who keeps the removed member\'s keys');
    const recipient = typeof to === 'string' ? await memberOfTeam(you.teamId, to) : undefined;
    if (recipient === null) throw invalid('transferKeysTo', 'Your team has no member with this id');
    // The monitors they created (from a session, or with a key revoked here) are paused in the same
    // transaction as the removal or the revocation; with transferKeysTo, their monitors go to that member too.
    const paused: string[] = [];
    const moved: string[] = [];
    const { removed, revoked, transferred } = await removeMemberAndKeys(m, recipient, Date.now(), {
      revoke: (keyId) => monitorOwnersOr().keyRevoked(you.teamId, keyId, paused),
      remove: recipient ? monitorOwnersOr().memberTransferred(you.teamId, m.memberId, recipient.memberId, moved) : monitorOwnersOr().memberRemoved(you.teamId, m.memberId, paused),
    });
    if (!removed) throw notFound(NO_MEMBER);
    ctx.log.info('member removed', { teamId: you.teamId, by: you.memberId, memberId: m.memberId, keysRevoked: revoked, keysTransferred: transferred, to: recipient?.memberId, monitorsPaused: paused, monitorsTransferred: moved });
    return { data: { removed: { memberId: m.memberId, email: m.email }, keys: { revoked, transferred }, monitors: { paused, transferred: moved } } };
  },

  async listSessions(ctx: Ctx): Promise<Reply> {
    const you = ctx.session;
    const m = await teamMember(ctx, you);
    await mayManage(ctx, you, m);
    return { data: { sessions: (await listSessions(m)).map((s) => publicSession(s, you)) } };
  },

  /** Every session of the member, except the caller's own (ending one's own is signing out). */
  async endSessions(ctx: Ctx): Promise<Reply> {
    const you = ctx.session;
    const m = await teamMember(ctx, you);
    await mayManage(ctx, you, m);
    const self = m.memberId === you.memberId;
    const ok = self ? await endOtherSessions(m, sessionIdFromCookies(ctx.headers.cookie) ?? null) : await endAllSessions(m);
    if (!ok) throw new ApiError('BAD_REQUEST', 'The member changed at the same moment; try again');
    ctx.log.info('sessions ended', { teamId: you.teamId, by: you.memberId, memberId: m.memberId });
    return { data: { sessions: self ? (await listSessions((await getMember(m.email)) ?? m)).map((s) => publicSession(s, you)) : [] } };
  },

  async endSession(ctx: Ctx): Promise<Reply> {
    const you = ctx.session;
    const m = await teamMember(ctx, you);
    await mayManage(ctx, you, m);
    if (!(await endSessionById(m, ctx.params.sessionId ?? ''))) throw notFound('This member has no live session with this id');
    ctx.log.info('session ended', { teamId: you.teamId, by: you.memberId, memberId: m.memberId });
    return { data: { ended: { sessionId: ctx.params.sessionId } } };
  },

  /** The current password proves it is the member (not someone at an unlocked screen); counted like a sign-in. */
  async changePassword(ctx: Ctx): Promise<Reply> {
    const you = ctx.session;
    const problem = passwordProblem(ctx.body.password);
    if (problem) throw invalid('password', problem);
    const current = typeof ctx.body.currentPassword === 'string' ? ctx.body.currentPassword : '';
    await admit(ctx, you.email);
    const m = await getMember(you.email);
    if (!m || m.memberId !== you.memberId || !(await passwordMatches(m, current))) throw new ApiError('BAD_REQUEST', WRONG_PASSWORD);
    await signInSucceeded(you.email, sourceAddress(ctx));
    const changed = await endOtherSessions(m, sessionIdFromCookies(ctx.headers.cookie) ?? null, { passwordHash: await hashPassword(ctx.body.password as string), expectHash: m.passwordHash! });
    if (!changed) throw new ApiError('BAD_REQUEST', 'Your password or sessions changed at the same moment; try again');
    ctx.log.info('password changed', { teamId: you.teamId, memberId: you.memberId });
    return { data: { passwordChanged: true } };
  },
} satisfies Record<string, (ctx: Ctx) => Promise<Reply>>;
