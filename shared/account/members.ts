import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { db, isConditionalFailure, teamItems } from '../db/client';
import { INVITE_SK, MEMBER_SK, TEAM_INDEX, invitePk, memberPk, teamPk } from '../db/tables';
import { hashPassword } from './passwords';

/**
 * Dashboard members: people of a team who sign in with e-mail and password. A member is created by
 * an invitation (admin CLI), whose one-time token (24 h) lets them set their password. Inviting an
 * existing member of the same team again issues a new link (a password reset by the operator).
 */
export const INVITE_TTL_SECONDS = 24 * 3600;

export interface Member {
  memberId: string;
  email: string;
  teamId: string;
  createdAt: string;
  passwordHash?: string;
  passwordSetAt?: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const normalizeEmail = (email: string) => email.trim().toLowerCase();
export const isEmail = (email: unknown): email is string => typeof email === 'string' && email.length <= 254 && EMAIL.test(email.trim());
const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

export async function getMember(email: string): Promise<Member | null> {
  const res = await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: memberPk(normalizeEmail(email)), sk: MEMBER_SK }, ConsistentRead: true }));
  return (res.Item as Member | undefined) ?? null;
}

/** The team's members, oldest first. */
export async function listMembers(teamId: string): Promise<Member[]> {
  return (await teamItems(teamId, 'MEMBER#')).map(({ memberId, email, teamId: t, createdAt, passwordSetAt }) => ({ memberId, email, teamId: t, createdAt, passwordSetAt }) as Member);
}

/** Creates the member when new and a one-time set-password token; returns the token (shown once). */
export async function invite(teamId: string, rawEmail: string, now = Date.now()): Promise<{ member: Member; token: string; expiresAt: string }> {
  if (!isEmail(rawEmail)) throw new Error('not an e-mail address');
  const email = normalizeEmail(rawEmail);
  let member = await getMember(email);
  if (member && member.teamId !== teamId) throw new Error(`${email} is already a member of another team`);
  if (!member) {
    const createdAt = new Date(now).toISOString();
    member = { memberId: randomUUID().slice(0, 8), email, teamId, createdAt };
    try {
      await db().send(
        new PutCommand({
          TableName: config.accountsTable,
          Item: { pk: memberPk(email), sk: MEMBER_SK, ...member, [TEAM_INDEX.partitionKey]: teamPk(teamId), [TEAM_INDEX.sortKey]: `MEMBER#${createdAt}#${email}` },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (err) {
      if (isConditionalFailure(err)) throw new Error(`${email} was invited at the same moment; run the command again`);
      throw err;
    }
  }
  const token = randomBytes(32).toString('base64url');
  const expiresAt = Math.floor(now / 1000) + INVITE_TTL_SECONDS;
  await db().send(
    new PutCommand({
      TableName: config.accountsTable,
      Item: { pk: invitePk(tokenHash(token)), sk: INVITE_SK, email, teamId, createdAt: new Date(now).toISOString(), expiresAt },
    }),
  );
  return { member, token, expiresAt: new Date(expiresAt * 1000).toISOString() };
}

/**
 * Spends the token and sets the password, atomically: a token works once, within 24 h, and only
 * for the member it was issued to. Returns the member's e-mail, or null for a token that is
 * unknown, used or expired.
 */
export async function setPassword(token: string, password: string, now = Date.now()): Promise<string | null> {
  if (!/^[A-Za-z0-9_-]{20,100}$/.test(token)) return null;
  const pk = invitePk(tokenHash(token));
  const res = await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk, sk: INVITE_SK }, ConsistentRead: true }));
  const inv = res.Item as { email: string; teamId: string; expiresAt: number; usedAt?: string } | undefined;
  const nowS = Math.floor(now / 1000);
  if (!inv || inv.usedAt || inv.expiresAt <= nowS) return null;
  const passwordHash = await hashPassword(password);
  const at = new Date(now).toISOString();
  try {
    await db().send(
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
              UpdateExpression: 'SET passwordHash = :h, passwordSetAt = :at',
              ConditionExpression: 'attribute_exists(pk) AND teamId = :team',
              ExpressionAttributeValues: { ':h': passwordHash, ':at': at, ':team': inv.teamId },
            },
          },
        ],
      }),
    );
  } catch (err) {
    if (isConditionalFailure(err)) return null; // spent by a concurrent request
    throw err;
  }
  return inv.email;
}
