import { randomBytes, randomUUID } from 'node:crypto';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { teamEventWrites } from '../webhooks/events';
import { config } from '../runtime/config';
import { conditionally, db, isConditionalFailure, teamItems } from '../db/client';
import { INVITE_SK, MEMBER_SK, TEAM_INDEX, invitePk, memberPk, teamPk } from '../db/tables';
import { findHashed, storedHash } from './hashing';
import { type AccountChange, changeAlone, heldBy, listKeys, revokeKey, transferKey } from './keys';

export { changeAlone };
import { hashPassword } from './passwords';

/**
 * Dashboard members: people of a team who sign in with e-mail and password. A member is created by
 * an invitation (admin CLI), whose one-time token (24 h) lets them set their password. Inviting an
 * existing member of the same team again issues a new link (a password reset by the operator) and
 * revokes every older one: the member item names the newest token, and a set-password must match it.
 *
 * Every session of a member carries the member's session epoch at sign-in; raising the epoch ends
 * them all at once (sessions.ts checks it on every request). Setting a password raises it, and a
 * removed member keeps only a tombstone (removedAt; no password, out of the team's listing), which
 * no session, invitation or sign-in accepts.
 *
 * An invitation token is stored only as a hash, like API keys and session ids: HMAC-SHA256 with the
 * key pepper (shared/auth/hashing.ts), and looked up under that one hash.
 */
export const INVITE_TTL_SECONDS = 24 * 3600;

/**
 * A member's role in the team's dashboard. Owners manage the team's members: they remove members
 * (owners too, never themselves), see and end other members' sessions, and rename or revoke any
 * key of the team. Members manage themselves: their own sessions, password and the keys they hold.
 * The first member of a team is its owner; the operator names others (admin CLI `member role`).
 * A member item without a role (from before roles) is a member: fail closed.
 */
export const ROLES = ['owner', 'member'] as const;
export type Role = (typeof ROLES)[number];
export const roleOf = (m: { role?: string }): Role => (m.role === 'owner' ? 'owner' : 'member');

export interface Member {
  memberId: string;
  email: string;
  teamId: string;
  createdAt: string;
  passwordHash?: string;
  passwordSetAt?: string;
  /** Sessions started under another epoch are over. Absent: 0. */
  sessionEpoch?: number;
  /** The hash of the newest invitation token (as its INVITE# item is keyed); an older link no longer sets the password. */
  inviteHash?: string;
  removedAt?: string;
  /** Absent: member (roleOf). */
  role?: Role;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const normalizeEmail = (email: string) => email.trim().toLowerCase();
export const isEmail = (email: unknown): email is string => typeof email === 'string' && email.length <= 254 && EMAIL.test(email.trim());
export const epochOf = (m: { sessionEpoch?: number }) => m.sessionEpoch ?? 0;

/** The stored item, tombstones included. */
async function memberItem(email: string): Promise<Member | null> {
  const res = await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: memberPk(normalizeEmail(email)), sk: MEMBER_SK }, ConsistentRead: true }));
  return (res.Item as Member | undefined) ?? null;
}

/** A current member (never a removed one). */
export async function getMember(email: string): Promise<Member | null> {
  const m = await memberItem(email);
  return m && !m.removedAt ? m : null;
}

/** The team's members, oldest first (removed ones leave the listing). */
export async function listMembers(teamId: string): Promise<Member[]> {
  return (await teamItems(teamId, 'MEMBER#')).map(({ memberId, email, teamId: t, createdAt, passwordSetAt, role }) => ({ memberId, email, teamId: t, createdAt, passwordSetAt, role: roleOf({ role: role as string | undefined }) }) as Member);
}

/** A current member of this team by memberId (a member of another team is never found). */
export async function memberOfTeam(teamId: string, memberId: string): Promise<Member | null> {
  const [item] = await teamItems(teamId, 'MEMBER#', { expression: 'memberId = :id', values: { ':id': memberId } });
  return item ? getMember(String(item.email)) : null;
}

/** A current member of this team by e-mail. */
export async function memberByEmail(teamId: string, email: string): Promise<Member | null> {
  const m = await getMember(email);
  return m && m.teamId === teamId ? m : null;
}

/**
 * Creates the member when new (or when only a tombstone is left) and a one-time set-password token;
 * returns the token (shown once). The member item names this token from now on, so every older
 * link of the member stops working.
 */
export async function invite(teamId: string, rawEmail: string, now = Date.now(), role?: Role): Promise<{ member: Member; token: string; expiresAt: string }> {
  if (!isEmail(rawEmail)) throw new Error('not an e-mail address');
  const email = normalizeEmail(rawEmail);
  const existing = await memberItem(email);
  const current = existing && !existing.removedAt ? existing : null;
  if (current && current.teamId !== teamId) throw new Error(`${email} is already a member of another team`);
  const token = randomBytes(32).toString('base64url');
  const hash = storedHash(token);
  const createdAt = new Date(now).toISOString();
  const expiresAt = Math.floor(now / 1000) + INVITE_TTL_SECONDS;
  // A new member: the role asked for, else owner when the team has none yet (its first member).
  const newRole = role ?? ((await listMembers(teamId)).some((m) => m.role === 'owner') ? 'member' : 'owner');
  const member: Member = current ?? { memberId: randomUUID().slice(0, 8), email, teamId, createdAt, role: newRole };
  const memberWrite = current
    ? {
        Update: {
          TableName: config.accountsTable,
          Key: { pk: memberPk(email), sk: MEMBER_SK },
          UpdateExpression: 'SET inviteHash = :h',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(removedAt) AND teamId = :team AND memberId = :id',
          ExpressionAttributeValues: { ':h': hash, ':team': teamId, ':id': member.memberId },
        },
      }
    : {
        Put: {
          TableName: config.accountsTable,
          Item: { pk: memberPk(email), sk: MEMBER_SK, ...member, inviteHash: hash, [TEAM_INDEX.partitionKey]: teamPk(teamId), [TEAM_INDEX.sortKey]: `MEMBER#${createdAt}#${email}` },
          // New, or a tombstone left by a removal (that e-mail may join any team again).
          ConditionExpression: 'attribute_not_exists(pk) OR attribute_exists(removedAt)',
        },
      };
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          memberWrite,
          {
            Put: {
              TableName: config.accountsTable,
              Item: { pk: invitePk(hash), sk: INVITE_SK, email, teamId, memberId: member.memberId, createdAt, expiresAt },
            },
          },
        ],
      }),
    );
  } catch (err) {
    if (isConditionalFailure(err)) throw new Error(`${email} was invited or removed at the same moment; run the command again`);
    throw err;
  }
  return { member, token, expiresAt: new Date(expiresAt * 1000).toISOString() };
}

/**
 * Spends the token and sets the password, atomically: a token works once, within 24 h, only for
 * the member it was issued to, and only while it is the member's newest. Every session of the
 * member ends (a password reset must lock out whoever had the old one). Returns the member's
 * e-mail, or null for a token that is unknown, used, expired or replaced.
 */
export async function setPassword(token: string, password: string, now = Date.now()): Promise<string | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  // Under the hash the link was issued with (one GetItem).
  const found = await findHashed(token, invitePk, INVITE_SK);
  if (!found) return null;
  // The member item names the newest link by this same hash.
  const { hash } = found;
  const pk = invitePk(hash);
  const inv = found.item as { email: string; teamId: string; memberId?: string; expiresAt: number; usedAt?: string };
  const nowS = Math.floor(now / 1000);
  if (inv.usedAt || inv.expiresAt <= nowS) return null;
  const passwordHash = await hashPassword(password);
  const at = new Date(now).toISOString();
  // A link issued before invitations were tracked on the member (no inviteHash, no memberId) still
  // works until a newer one is issued or it expires (24 h).
  const sameMember = inv.memberId ? ' AND memberId = :id' : '';
  // Fails when spent by a concurrent request, replaced by a newer invitation, or the member was removed.
  const set = await conditionally(() =>
    db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: config.accountsTable,
              Key: { pk, sk: INVITE_SK },
              UpdateExpression: 'SET usedAt = :at',
              ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(usedAt) AND expiresAt > :now',
              ExpressionAttributeValues: { ':at': at, ':now': nowS },
            },
          },
          {
            Update: {
              TableName: config.accountsTable,
              Key: { pk: memberPk(inv.email), sk: MEMBER_SK },
              UpdateExpression: 'SET passwordHash = :h, passwordSetAt = :at ADD sessionEpoch :one',
              ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(removedAt) AND teamId = :team${sameMember} AND (attribute_not_exists(inviteHash) OR inviteHash = :invite)`,
              ExpressionAttributeValues: { ':h': passwordHash, ':at': at, ':team': inv.teamId, ':one': 1, ':invite': hash, ...(inv.memberId ? { ':id': inv.memberId } : {}) },
            },
          },
        ],
      }),
    ),
  );
  return set ? inv.email : null;
}

/** After a successful sign-in with a hash of older parameters: today's hash, unless the password changed meanwhile. */
export function upgradePasswordHash(member: Member, oldHash: string, newHash: string): Promise<boolean> {
  return conditionally(() =>
    db().send(
      new UpdateCommand({
        TableName: config.accountsTable,
        Key: { pk: memberPk(member.email), sk: MEMBER_SK },
        UpdateExpression: 'SET passwordHash = :new',
        ConditionExpression: 'passwordHash = :old AND attribute_not_exists(removedAt)',
        ExpressionAttributeValues: { ':new': newHash, ':old': oldHash },
      }),
    ),
  );
}

/**
 * Removes a member of the team: a tombstone without password or pending invitation, out of the
 * team's listing, with a new session epoch, so every session of theirs is refused from the very
 * next request. Returns false when the team has no such (current) member.
 */
export function removeMember(member: Member, now = Date.now(), write: AccountChange = changeAlone): Promise<boolean> {
  const removedAt = new Date(now).toISOString();
  // The removal and its member.removed event (shared/webhooks/events.ts) land together.
  return write(
    {
      TableName: config.accountsTable,
      Key: { pk: memberPk(member.email), sk: MEMBER_SK },
      UpdateExpression: 'SET removedAt = :at REMOVE passwordHash, inviteHash, #role, #gp, #gs ADD sessionEpoch :one',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(removedAt) AND teamId = :team AND memberId = :id',
      ExpressionAttributeNames: { '#role': 'role', '#gp': TEAM_INDEX.partitionKey, '#gs': TEAM_INDEX.sortKey },
      ExpressionAttributeValues: { ':at': removedAt, ':one': 1, ':team': member.teamId, ':id': member.memberId },
    },
    teamEventWrites(member.teamId, 'member.removed', member.memberId, { teamId: member.teamId, memberId: member.memberId, email: member.email, removedAt }, now),
  );
}

/**
 * What revoking a key or removing a member does to the monitors the key or member created (the
 * eager pause, shared/monitors/owner.ts monitorOwners): each answers the AccountChange that writes
 * the revocation or removal together with it, collecting the monitors' ids. The account API is
 * given it by its entry (functions/account.ts: an entry point never imports another); without it
 * the poll-time owner check alone pauses them.
 */
export interface MonitorOwners {
  keyRevoked(teamId: string, keyId: string, paused: string[]): AccountChange;
  memberRemoved(teamId: string, memberId: string, paused: string[]): AccountChange;
  memberTransferred(teamId: string, fromMemberId: string, toMemberId: string, moved: string[]): AccountChange;
}

/**
 * How removeMemberAndKeys writes its changes: each key's revocation and the member's removal
 * (alone unless given: the account API pauses the monitors they created in the same transaction).
 */
export interface RemovalWriters {
  revoke?: (keyId: string) => AccountChange;
  remove?: AccountChange;
}

/** Gives a current member of the team a role (admin CLI). False when the team has no such member. */
export function setRole(member: Member, role: Role): Promise<boolean> {
  return conditionally(() =>
    db().send(
      new UpdateCommand({
        TableName: config.accountsTable,
        Key: { pk: memberPk(member.email), sk: MEMBER_SK },
        UpdateExpression: 'SET #role = :role',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(removedAt) AND teamId = :team AND memberId = :id',
        ExpressionAttributeNames: { '#role': 'role' },
        ExpressionAttributeValues: { ':role': role, ':team': member.teamId, ':id': member.memberId },
      }),
    ),
  );
}

/** What removing a member did to the keys they held. */
export interface Removal {
  removed: boolean;
  /** Keys the member held, revoked with them. */
  revoked: string[];
  /** Keys the member held, now held by `transferTo`. */
  transferred: string[];
}

/**
 * Removes a member and settles the keys they hold (created from the dashboard, or transferred to
 * them): every one is revoked at once (the authorizer refuses it from the next request), or, with
 * `transferTo` (a current member of the same team), held by that member from now on. Keys of the
 * operator (admin CLI) and keys from before creators were recorded belong to the team and stay.
 * The keys are settled before the member is removed and once more after, for a key they created
 * in between.
 */
export async function removeMemberAndKeys(member: Member, transferTo?: Member, now = Date.now(), writers: RemovalWriters = {}): Promise<Removal> {
  if (transferTo && (transferTo.teamId !== member.teamId || transferTo.memberId === member.memberId)) throw new Error('keys go to another member of the same team');
  const revoked = new Set<string>();
  const transferred = new Set<string>();
  const settle = async () => {
    for (const key of await listKeys(member.teamId)) {
      if (key.revokedAt || heldBy(key)?.memberId !== member.memberId) continue;
      if (transferTo) {
        if (await transferKey(member.teamId, key.keyId, member.memberId, { kind: 'member', memberId: transferTo.memberId, email: transferTo.email })) transferred.add(key.keyId);
      } else if (await revokeKey(member.teamId, key.keyId, writers.revoke?.(key.keyId))) {
        revoked.add(key.keyId);
      }
    }
  };
  await settle();
  const removed = await removeMember(member, now, writers.remove);
  if (removed) await settle();
  return { removed, revoked: [...revoked], transferred: [...transferred] };
}

/** Ends every session of the member at once (a new epoch). False when the team has no such (current) member. */
export function endAllSessions(member: Member): Promise<boolean> {
  return conditionally(() =>
    db().send(
      new UpdateCommand({
        TableName: config.accountsTable,
        Key: { pk: memberPk(member.email), sk: MEMBER_SK },
        UpdateExpression: 'ADD sessionEpoch :one',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(removedAt) AND teamId = :team AND memberId = :id',
        ExpressionAttributeValues: { ':one': 1, ':team': member.teamId, ':id': member.memberId },
      }),
    ),
  );
}
