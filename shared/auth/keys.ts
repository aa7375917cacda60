import { randomInt, randomUUID } from 'node:crypto';
import { BatchGetCommand, TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { teamEventWrites } from '../webhooks/events';
import { config } from '../runtime/config';
import { creditsOf } from '../accounting/teams';
import { conditionally, db, teamItems } from '../db/client';
import { KEY_PREFIX, KEY_SK, TEAM_INDEX, TEAM_SK, keyPk, keyTeamSk, teamPk } from '../db/tables';
import { findHashed, storedHash } from './hashing';

/**
 * API keys: 28 random letters and digits, shown once, stored only as their hash: HMAC-SHA256 with
 * the deployment's pepper (./hashing.ts).
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const KEY_LENGTH = 28;
export const KEY_PATTERN = /^[A-Za-z0-9]{28}$/;

export function generateSecret(length = KEY_LENGTH): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

/** The hash a key is stored under (and the authorizer remembers it by). */
export const hashSecret = storedHash;

/** Who created a key: a dashboard member, or the operator with the admin CLI. */
export type KeyCreator = { kind: 'member'; memberId: string; email: string } | { kind: 'cli' };
export const BY_CLI: KeyCreator = Object.freeze({ kind: 'cli' });

export interface KeyRecord {
  keyId: string;
  teamId: string;
  name: string;
  createdAt: string;
  /** Absent only on keys created before creators were recorded. */
  createdBy?: KeyCreator;
  /** The member the key was transferred to when its holder was removed (shared/auth/members.ts); absent: its creator. */
  transferredTo?: Extract<KeyCreator, { kind: 'member' }>;
  lastUsedAt?: string;
  revokedAt?: string;
  /** The team's usage-plan key value: the authorizer's usageIdentifierKey. */
  usageKey: string;
}

/** The key from `x-api-key` or `Authorization: Bearer <key>` (header names are case-insensitive). */
export function keyFromHeaders(headers: Record<string, string | undefined> | null | undefined): string | undefined {
  if (!headers) return undefined;
  let apiKey: string | undefined;
  let auth: string | undefined;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'x-api-key') apiKey = value;
    else if (lower === 'authorization') auth = value;
  }
  if (apiKey && apiKey.trim()) return apiKey.trim();
  const m = auth?.match(/^\s*Bearer\s+(\S+)\s*$/i);
  return m?.[1];
}

/** Operator tools (admin CLI, `npm start`, load and bench scripts) create keys as the CLI; the dashboard names its member. */
export async function createKey(teamId: string, name: string, usageKey: string, createdBy: KeyCreator = BY_CLI): Promise<{ secret: string; record: KeyRecord }> {
  const secret = generateSecret();
  const record: KeyRecord = { keyId: randomUUID().slice(0, 8), teamId, name, createdAt: new Date().toISOString(), createdBy, usageKey };
  // The key and its key.created event (shared/webhooks/events.ts) land together.
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: config.accountsTable,
            Item: {
              pk: keyPk(hashSecret(secret)),
              sk: KEY_SK,
              ...record,
              [TEAM_INDEX.partitionKey]: teamPk(teamId),
              [TEAM_INDEX.sortKey]: keyTeamSk(record.createdAt, record.keyId),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        ...teamEventWrites(teamId, 'key.created', record.keyId, { teamId, keyId: record.keyId, name, createdAt: record.createdAt, createdBy: createdBy.kind === 'member' ? createdBy.email : null }),
      ],
    }),
  );
  return { secret, record };
}

/** A strongly consistent read, so a revocation holds from the very next request. */
export async function findKey(secret: string): Promise<(KeyRecord & { hash: string }) | null> {
  const found = await findHashed(secret, keyPk, KEY_SK);
  return found ? { ...(found.item as unknown as KeyRecord), hash: found.hash } : null;
}

/**
 * The authorizer's read of a key it authorized before (shared/auth/authorizer.ts: it then knows the
 * key's team and `storedAs`, the hash its item was found under): the key item under `storedAs` and
 * the team item, in one BatchGetItem, so a known key costs one DynamoDB call where findKey beside
 * balanceHint cost two. Same round trip either way.
 *
 * The same answers as those two: `key` as findKey gives it (the whole item, read strongly
 * consistent so a revocation holds from the very next request; BatchGetItem's consistency is per
 * table, so the team item is read strongly consistent too: a fresher hint, at twice the read units
 * of balanceHint's eventually consistent read), and `creditsHint` as balanceHint gives it
 * (creditsOf). No projection: the key item is wanted whole, and a projection would name its
 * attributes here a second time (read units are billed by item size anyway).
 *
 * The key item is the answer; the balance only a hint. When the call fails, it fails as findKey
 * would (the authorizer then answers 503). When the response lacks the key item (it is stored
 * under another hash now, or gone), or DynamoDB left it in UnprocessedKeys, findKey decides, so
 * nothing is refused that findKey would accept: one round trip more, on that path only. A team
 * item that is absent or unprocessed gives no hint (undefined), never a failure.
 */
export async function findKnownKey(secret: string, storedAs: string, teamId: string): Promise<{ key: (KeyRecord & { hash: string }) | null; creditsHint: number | undefined }> {
  const table = config.accountsTable;
  const keyAt = { pk: keyPk(storedAs), sk: KEY_SK };
  const teamAt = { pk: teamPk(teamId), sk: TEAM_SK };
  const res = await db().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: [keyAt, teamAt], ConsistentRead: true } } }));
  // Matched by key: a BatchGetItem answers its items in no particular order, and leaves out the absent and the unprocessed.
  const item = (at: { pk: string; sk: string }) => res.Responses?.[table]?.find((i) => i.pk === at.pk && i.sk === at.sk);
  const keyItem = item(keyAt);
  const creditsHint = creditsOf(item(teamAt));
  const key = keyItem ? { ...(keyItem as unknown as KeyRecord), hash: storedAs } : await findKey(secret);
  return { key, creditsHint };
}

/**
 * The UpdateItem input of touchKey (pure): `lastUsedAt` of the key stored under `hash`, unless
 * another request set it within the interval. It names only the key and `lastUsedAt`, all the
 * authorizer may name on a key item (its IAM allow-list: infra/stack.ts).
 */
export function touchKeyUpdate(hash: string, now: number) {
  return {
    TableName: config.accountsTable,
    Key: { pk: keyPk(hash), sk: KEY_SK },
    UpdateExpression: 'SET lastUsedAt = :now',
    ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :stale)',
    ExpressionAttributeValues: { ':now': new Date(now).toISOString(), ':stale': new Date(now - config.keyTouchIntervalMs).toISOString() },
  };
}

/** lastUsedAt is written at most once per interval per key, not on every request. */
export async function touchKey(key: KeyRecord & { hash: string }, now = Date.now()): Promise<boolean> {
  const last = key.lastUsedAt ? Date.parse(key.lastUsedAt) : 0;
  if (now - last < config.keyTouchIntervalMs) return false;
  try {
    await db().send(new UpdateCommand(touchKeyUpdate(key.hash, now)));
    return true;
  } catch {
    return false; // another request touched it first, or a transient error: never fail a request for this
  }
}

/** The record of a stored key item (without the table's own attributes). */
function keyRecord(item: Record<string, unknown>): KeyRecord {
  const { keyId, teamId, name, createdAt, createdBy, transferredTo, lastUsedAt, revokedAt, usageKey } = item as unknown as KeyRecord;
  return { keyId, teamId, name, createdAt, createdBy, ...(transferredTo ? { transferredTo } : {}), lastUsedAt, revokedAt, usageKey };
}

/**
 * The member a key belongs to, revoked with them unless transferred: the member it was transferred
 * to, else the member who created it; null for a key of the team (the operator's, or one from
 * before creators were recorded).
 */
export function heldBy(key: Pick<KeyRecord, 'createdBy' | 'transferredTo'>): Extract<KeyCreator, { kind: 'member' }> | null {
  if (key.transferredTo) return key.transferredTo;
  return key.createdBy?.kind === 'member' ? key.createdBy : null;
}

/** Moves a team's key from the member holding it to another member. False when the key is gone, revoked or held by someone else. */
export async function transferKey(teamId: string, keyId: string, fromMemberId: string, to: Extract<KeyCreator, { kind: 'member' }>): Promise<boolean> {
  const item = await teamKeyItem(teamId, keyId);
  if (!item || item.revokedAt || heldBy(keyRecord(item))?.memberId !== fromMemberId) return false;
  return conditionally(() =>
    db().send(
      new UpdateCommand({
        TableName: config.accountsTable,
        Key: { pk: item.pk, sk: KEY_SK },
        UpdateExpression: 'SET transferredTo = :to',
        ConditionExpression: `teamId = :team AND attribute_not_exists(revokedAt) AND ${item.transferredTo ? 'transferredTo.memberId = :from' : 'attribute_not_exists(transferredTo) AND createdBy.memberId = :from'}`,
        ExpressionAttributeValues: { ':to': to, ':team': teamId, ':from': fromMemberId },
      }),
    ),
  );
}

export async function listKeys(teamId: string): Promise<KeyRecord[]> {
  return (await teamItems(teamId, KEY_PREFIX)).map(keyRecord);
}

/** The stored item of a team's key by keyId: a key of another team is never found. */
async function teamKeyItem(teamId: string, keyId: string): Promise<Record<string, unknown> | undefined> {
  return (await teamItems(teamId, KEY_PREFIX, { expression: 'keyId = :id', values: { ':id': keyId } }))[0];
}

/**
 * How a change of a key or member item (a revocation, a removal) is written: false when its own
 * condition fails. `also`: the items that land with it in its transaction (its team event:
 * shared/webhooks/events.ts). Alone by default; the account API writes it in one transaction with
 * the pause of the monitors its owner created (shared/monitors/owner.ts ownerChange).
 */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
export type AccountChange = (update: UpdateCommandInput, also?: TransactItem[]) => Promise<boolean>;
export const changeAlone: AccountChange = (update, also = []) =>
  conditionally(() => (also.length ? db().send(new TransactWriteCommand({ TransactItems: [{ Update: update as NonNullable<TransactItem['Update']> }, ...also] })) : db().send(new UpdateCommand(update))));

/**
 * Revokes by keyId (the secret is not known after creation), with its key.revoked event in the same
 * transaction (its id derived from the key's: once per key). Returns false if no such key; true
 * when it is revoked, by this call or before.
 */
export async function revokeKey(teamId: string, keyId: string, write: AccountChange = changeAlone): Promise<boolean> {
  const item = await teamKeyItem(teamId, keyId);
  if (!item) return false;
  if (item.revokedAt) return true;
  const revokedAt = new Date().toISOString();
  const done = await write(
    {
      TableName: config.accountsTable,
      Key: { pk: item.pk, sk: KEY_SK },
      UpdateExpression: 'SET revokedAt = :now',
      ConditionExpression: 'teamId = :team AND attribute_not_exists(revokedAt)',
      ExpressionAttributeValues: { ':now': revokedAt, ':team': teamId },
    },
    teamEventWrites(teamId, 'key.revoked', keyId, { teamId, keyId, name: String(item.name ?? ''), revokedAt }),
  );
  // Refused: revoked meanwhile by another request (which wrote its event), or gone.
  return done || Boolean((await teamKeyItem(teamId, keyId))?.revokedAt);
}

/** Renames a team's key. Returns the updated record, or null if the team has no such key. */
export async function renameKey(teamId: string, keyId: string, name: string): Promise<KeyRecord | null> {
  const item = await teamKeyItem(teamId, keyId);
  if (!item) return null;
  const res = await db().send(
    new UpdateCommand({
      TableName: config.accountsTable,
      Key: { pk: item.pk, sk: KEY_SK },
      UpdateExpression: 'SET #n = :name',
      ConditionExpression: 'teamId = :team',
      ExpressionAttributeNames: { '#n': 'name' },
      ExpressionAttributeValues: { ':name': name, ':team': teamId },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return keyRecord(res.Attributes ?? {});
}
