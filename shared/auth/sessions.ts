import { randomBytes } from 'node:crypto';
import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../runtime/config';
import { conditionally, db, teamItems } from '../db/client';
import { MEMBER_SK, SESSION_SK, TEAM_INDEX, memberPk, sessionPk, teamPk } from '../db/tables';
import { findHashed, storedHash } from './hashing';
import { epochOf, getMember, type Member } from './members';

/**
 * Dashboard sessions: a random 32-byte id in an HttpOnly cookie; the table keeps only its hash
 * (HMAC-SHA256 with the deployment's pepper: ../auth/hashing.ts),
 * with an absolute expiry (config.sessionTtlSeconds, also the TTL attribute). A session is live
 * while it is not ended (sign-out, or ended from the member list), not expired, and its member
 * still exists with the session epoch it started under: removing a member or setting their
 * password ends all their sessions at once, checked on every request (strongly consistent reads).
 * Each session also has a short public id (sessionId) by which it is listed and ended; the team
 * index lists a member's sessions.
 */
export const SESSION_COOKIE = 'sda_session';

export interface Session {
  /** Public id (listing, ending); never the cookie's secret. */
  sessionId: string;
  teamId: string;
  email: string;
  memberId: string;
  createdAt: string;
  expiresAt: number;
  endedAt?: string;
  /** The member's session epoch at sign-in. Absent (older sessions): 0. */
  epoch?: number;
  /** Where and with what it signed in, so a member can tell their sessions apart. */
  address?: string;
  userAgent?: string;
}

const ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** Where a new session is stored. */
const sessionKey = (id: string) => ({ pk: sessionPk(storedHash(id)), sk: SESSION_SK });

/** The stored item of a session id, under whichever hash it was stored (read together), or undefined. */
async function sessionItem(id: string): Promise<Record<string, unknown> | undefined> {
  return (await findHashed(id, sessionPk, SESSION_SK))?.item;
}
const memberPrefix = (memberId: string) => `SESSION#${memberId}#`;

export async function startSession(member: Member, from: { address?: string; userAgent?: string } = {}, now = Date.now()): Promise<{ id: string; session: Session }> {
  const id = randomBytes(32).toString('base64url');
  const session: Session = {
    sessionId: randomBytes(9).toString('base64url'),
    teamId: member.teamId,
    email: member.email,
    memberId: member.memberId,
    createdAt: new Date(now).toISOString(),
    expiresAt: Math.floor(now / 1000) + config.sessionTtlSeconds,
    epoch: epochOf(member),
    ...(from.address ? { address: from.address.slice(0, 64) } : {}),
    ...(from.userAgent ? { userAgent: from.userAgent.slice(0, 200) } : {}),
  };
  await db().send(
    new PutCommand({
      TableName: config.accountsTable,
      Item: {
        ...sessionKey(id),
        ...session,
        [TEAM_INDEX.partitionKey]: teamPk(member.teamId),
        [TEAM_INDEX.sortKey]: `${memberPrefix(member.memberId)}${session.createdAt}#${session.sessionId}`,
      },
    }),
  );
  return { id, session };
}

const live = (s: Session, member: Member | null, nowS: number) =>
  !s.endedAt && s.expiresAt > nowS && !!member && member.memberId === s.memberId && member.teamId === s.teamId && epochOf(member) === (s.epoch ?? 0);

/** The live session for this id, or null (unknown, ended, expired, member removed or sessions ended). */
export async function findSession(id: string, now = Date.now()): Promise<Session | null> {
  if (!ID_PATTERN.test(id)) return null;
  const s = (await sessionItem(id)) as Session | undefined;
  if (!s || s.endedAt || s.expiresAt <= Math.floor(now / 1000)) return null;
  return live(s, await getMember(s.email), Math.floor(now / 1000)) ? s : null;
}

const endUpdate = (now: number) => ({
  UpdateExpression: 'SET endedAt = :at, expiresAt = :s',
  ExpressionAttributeValues: { ':at': new Date(now).toISOString(), ':s': Math.floor(now / 1000) },
});

/** Sign-out. */
export async function endSession(id: string, now = Date.now()): Promise<void> {
  if (!ID_PATTERN.test(id)) return;
  const item = await sessionItem(id);
  if (!item) return;
  await conditionally(() => db().send(new UpdateCommand({ TableName: config.accountsTable, Key: { pk: item.pk, sk: SESSION_SK }, ...endUpdate(now), ConditionExpression: 'attribute_exists(pk)' })));
}

/** The member's live sessions, newest first. */
export async function listSessions(member: Member, now = Date.now()): Promise<Session[]> {
  const items = (await teamItems(member.teamId, memberPrefix(member.memberId))) as unknown as Session[];
  const nowS = Math.floor(now / 1000);
  return items.filter((s) => live(s, member, nowS)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** Ends one session of the member by its public id. Returns false when the member has no such live session. */
export async function endSessionById(member: Member, sessionId: string, now = Date.now()): Promise<boolean> {
  if (!/^[A-Za-z0-9_-]{12}$/.test(sessionId)) return false;
  const [item] = await teamItems(member.teamId, memberPrefix(member.memberId), { expression: 'sessionId = :sid', values: { ':sid': sessionId } });
  if (!item || !live(item as unknown as Session, member, Math.floor(now / 1000))) return false;
  const end = endUpdate(now);
  return conditionally(() =>
    db().send(
      new UpdateCommand({
        TableName: config.accountsTable,
        Key: { pk: item.pk, sk: SESSION_SK },
        ...end,
        ConditionExpression: 'attribute_not_exists(endedAt) AND teamId = :team AND memberId = :member',
        ExpressionAttributeValues: { ...end.ExpressionAttributeValues, ':team': member.teamId, ':member': member.memberId },
      }),
    ),
  );
}

/**
 * A new session epoch for the member (every session of theirs ends at once), optionally with a new
 * password hash, while the caller's own session (`keep`, the cookie's id) moves to the new epoch
 * and stays: one transaction, so nothing in between sees a half-done change. Returns false when the
 * member, their epoch or (with `expectHash`) their password changed meanwhile.
 */
export async function endOtherSessions(member: Member, keep: string | null, change?: { passwordHash: string; expectHash: string }, now = Date.now()): Promise<boolean> {
  const next = epochOf(member) + 1;
  const memberUpdate = {
    Update: {
      TableName: config.accountsTable,
      Key: { pk: memberPk(member.email), sk: MEMBER_SK },
      UpdateExpression: `SET sessionEpoch = :next${change ? ', passwordHash = :h, passwordSetAt = :at' : ''}`,
      ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(removedAt) AND memberId = :id AND ${epochOf(member) === 0 ? '(attribute_not_exists(sessionEpoch) OR sessionEpoch = :epoch)' : 'sessionEpoch = :epoch'}${change ? ' AND passwordHash = :old' : ''}`,
      ExpressionAttributeValues: {
        ':next': next,
        ':id': member.memberId,
        ':epoch': epochOf(member),
        ...(change ? { ':h': change.passwordHash, ':at': new Date(now).toISOString(), ':old': change.expectHash } : {}),
      },
    },
  };
  const kept = keep && ID_PATTERN.test(keep) ? await sessionItem(keep) : undefined;
  // The caller's own session is gone (as the transaction's condition on it would have found).
  if (keep && ID_PATTERN.test(keep) && !kept) return false;
  const keepUpdate =
    kept
      ? [
          {
            Update: {
              TableName: config.accountsTable,
              Key: { pk: kept.pk, sk: SESSION_SK },
              UpdateExpression: 'SET epoch = :next',
              ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(endedAt) AND memberId = :id',
              ExpressionAttributeValues: { ':next': next, ':id': member.memberId },
            },
          },
        ]
      : [];
  return conditionally(() => db().send(new TransactWriteCommand({ TransactItems: [memberUpdate, ...keepUpdate] })));
}

/** The session id from a Cookie header (the first cookie of that name). */
export function sessionIdFromCookies(cookie: string | undefined): string | undefined {
  if (!cookie) return undefined;
  for (const part of cookie.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The cookie's path is `<prefix>/v1` (`path` below): the browser sends it to the account API and to
 * the monitors API, which both accept a session, and also to the data API, which never does (its
 * authorizer reads only keys; no caller cookie is logged). Before issue 32 it was `<prefix>/v1/account`:
 * sign-in, sign-out and a refused session also clear a cookie left at that path, which the browser
 * would otherwise send first to the account API. `Secure` always; the local gateway alone drops it
 * over http.
 */
const attributes = (path: string, maxAgeSeconds: number) => `Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Strict`;
const clearedAt = (path: string) => `${SESSION_COOKIE}=; ${attributes(path, 0)}`;
const legacyPath = (path: string) => `${path}/account`;

/** The Set-Cookie lines of a sign-in: the session's cookie first, then the old path's cleared. */
export const sessionCookies = (id: string, path: string, maxAgeSeconds: number): string[] => [`${SESSION_COOKIE}=${id}; ${attributes(path, maxAgeSeconds)}`, clearedAt(legacyPath(path))];
/** The Set-Cookie lines that clear the session cookie (sign-out, a refused session), at both paths. */
export const clearedSessionCookies = (path: string): string[] => [clearedAt(path), clearedAt(legacyPath(path))];
