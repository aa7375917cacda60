import { createHash, randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { db } from '../db/client';
import { SESSION_SK, sessionPk } from '../db/tables';
import type { Member } from './members';

/**
 * Dashboard sessions: a random 32-byte id in an HttpOnly cookie; the table keeps only its SHA-256,
 * with an absolute expiry (config.sessionTtlSeconds, also the TTL attribute). Sign-out marks the
 * item ended, which every later read sees (strongly consistent reads).
 */
export const SESSION_COOKIE = 'sda_session';

export interface Session {
  teamId: string;
  email: string;
  memberId: string;
  createdAt: string;
  expiresAt: number;
  endedAt?: string;
}

const idHash = (id: string) => createHash('sha256').update(id, 'utf8').digest('hex');

export async function startSession(member: Member, now = Date.now()): Promise<{ id: string; session: Session }> {
  const id = randomBytes(32).toString('base64url');
  const session: Session = {
    teamId: member.teamId,
    email: member.email,
    memberId: member.memberId,
    createdAt: new Date(now).toISOString(),
    expiresAt: Math.floor(now / 1000) + config.sessionTtlSeconds,
  };
  await db().send(new PutCommand({ TableName: config.accountsTable, Item: { pk: sessionPk(idHash(id)), sk: SESSION_SK, ...session } }));
  return { id, session };
}

/** The live session for this id, or null (unknown, ended or expired). */
export async function findSession(id: string, now = Date.now()): Promise<Session | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
  const res = await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: sessionPk(idHash(id)), sk: SESSION_SK }, ConsistentRead: true }));
  const s = res.Item as Session | undefined;
  if (!s || s.endedAt || s.expiresAt <= Math.floor(now / 1000)) return null;
  return s;
}

export async function endSession(id: string, now = Date.now()): Promise<void> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return;
  await db()
    .send(
      new UpdateCommand({
        TableName: config.accountsTable,
        Key: { pk: sessionPk(idHash(id)), sk: SESSION_SK },
        UpdateExpression: 'SET endedAt = :at, expiresAt = :s',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':at': new Date(now).toISOString(), ':s': Math.floor(now / 1000) },
      }),
    )
    .catch((err: { name?: string }) => {
      if (err?.name !== 'ConditionalCheckFailedException') throw err;
    });
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
 * The cookie is scoped to the account API's path: the browser never sends it to the data API
 * (which would not accept it anyway). `Secure` always; the local gateway alone drops it over http.
 */
export function sessionCookie(id: string, path: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${id}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Strict`;
}
export const clearedSessionCookie = (path: string) => `${SESSION_COOKIE}=; Path=${path}; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;
