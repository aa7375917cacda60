import { config } from '../runtime/config';
import { ApiError } from '../http/errors';
import type { Ctx, Reply } from './context';
import { getMember, isEmail, normalizeEmail, upgradePasswordHash, type Member } from '../auth/members';
import { MAX_PASSWORD_LENGTH, decoyHash, hashPassword, needsRehash, verifyPassword } from '../auth/passwords';
import { sessionCookies, startSession } from '../auth/sessions';
import { admitSignIn, signInSucceeded } from './throttle';

/**
 * Sign-in: the attempt is counted (throttle.ts) before any password is checked; a refused attempt
 * is 429 RATE_LIMITED with Retry-After, the same whether or not the e-mail is a member's. A wrong
 * e-mail, a wrong password and a member without a password yet are one answer (401), and take the
 * same scrypt time (a decoy hash for unknown e-mails). A hash of older parameters is replaced by
 * one of today's after the password proved right.
 */
export const SIGN_IN_FAILED = 'Sign-in failed: the e-mail or password is wrong';
export const SIGN_IN_THROTTLED = 'Too many sign-in attempts for this e-mail or from this address; try again after Retry-After seconds';

/** The client's address as API Gateway saw it (the local gateway fills it from the socket). */
export const sourceAddress = (ctx: Pick<Ctx, 'event'>) => ctx.event.requestContext?.identity?.sourceIp || 'unknown';

/** Whether the password is the member's, after the attempt was admitted; the same time for every answer. */
export async function passwordMatches(member: Member | null, password: string): Promise<boolean> {
  if (!password || password.length > MAX_PASSWORD_LENGTH) return false;
  if (member?.passwordHash) return verifyPassword(password, member.passwordHash);
  await verifyPassword(password, decoyHash());
  return false;
}

/** Counts the attempt of `email` from this request's address; throws 429 when it is refused. */
export async function admit(ctx: Ctx, email: string): Promise<void> {
  const admission = await admitSignIn(email, sourceAddress(ctx));
  if (!admission.admitted) {
    ctx.log.info('sign-in throttled', { retryAfter: admission.retryAfter });
    throw new ApiError('RATE_LIMITED', SIGN_IN_THROTTLED, { retryAfter: admission.retryAfter });
  }
}

export async function signIn(ctx: Ctx, me: (s: Awaited<ReturnType<typeof startSession>>['session']) => Promise<unknown>): Promise<Reply> {
  const { body, log, cookiePath, headers } = ctx;
  const email = typeof body.email === 'string' ? normalizeEmail(body.email).slice(0, 254) : '';
  const password = typeof body.password === 'string' ? body.password : '';
  const [, member] = await Promise.all([admit(ctx, email), isEmail(email) ? getMember(email) : null]);
  // Checked whether or not the e-mail is a member's (a decoy hash when not): the same scrypt work, so
  // the time of the answer does not tell members from strangers.
  const matches = await passwordMatches(member, password);
  if (!member || !matches) {
    log.info('sign-in refused');
    throw new ApiError('UNAUTHORIZED', SIGN_IN_FAILED);
  }
  await signInSucceeded(email, sourceAddress(ctx));
  if (needsRehash(member.passwordHash!)) {
    // Best effort: the member is signed in either way, and the next sign-in tries again.
    const upgraded = await hashPassword(password)
      .then((h) => upgradePasswordHash(member, member.passwordHash!, h))
      .catch((err: unknown) => (log.warn('password hash not upgraded', { error: (err as Error).name }), false));
    log.info('password hash upgraded', { memberId: member.memberId, upgraded });
  }
  const { id, session } = await startSession(member, { address: sourceAddress(ctx), userAgent: headers['user-agent'] });
  log.info('signed in', { teamId: member.teamId, memberId: member.memberId });
  return { data: await me(session), cookies: sessionCookies(id, cookiePath, config.sessionTtlSeconds) };
}
