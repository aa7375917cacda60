import { createHash, createHmac } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../runtime/config';
import { db } from '../db/client';
import { loaded } from '../runtime/secrets';

/**
 * How the secrets callers hold (API keys, dashboard session ids, invitation tokens) are stored:
 * never themselves, only a hash. With a pepper (deployed: the Secrets Manager secret
 * KEY_PEPPER_SECRET_ARN names, read at cold start by shared/runtime/secrets.ts; locally KEY_PEPPER) the
 * hash is HMAC-SHA256 keyed with it, so a
 * copy of the table alone (a backup, an export, a read-only leak) cannot be used to test guesses.
 * Without one (npm start, most tests) it is the plain SHA-256. Every deployment has had a pepper
 * from its first item on, so an item is only ever looked up under `storedHash`.
 */
export function pepper(): string | undefined {
  return process.env.KEY_PEPPER || loaded.keyPepper || undefined;
}

const sha256 = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');
const hmac = (key: string, secret: string) => createHmac('sha256', key).update(secret, 'utf8').digest('hex');

/** The hash a new item is stored under. */
export function storedHash(secret: string): string {
  const key = pepper();
  return key ? hmac(key, secret) : sha256(secret);
}

/**
 * The accounts-table item of `secret` (an API key, a session id, an invitation token), read strongly
 * consistent under its hash, with that hash (the item's key, for later writes to it).
 */
export async function findHashed(secret: string, pkOf: (hash: string) => string, sk: string): Promise<{ item: Record<string, unknown>; hash: string } | null> {
  const hash = storedHash(secret);
  const { Item } = await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: pkOf(hash), sk }, ConsistentRead: true }));
  return Item ? { item: Item, hash } : null;
}
