import { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../runtime/config';
import { conditionally, db } from '../db/client';
import { THROTTLE_SK, throttlePk } from '../db/tables';

/**
 * Sign-in throttling. Every attempt is counted with one atomic, conditional DynamoDB update BEFORE
 * the password is checked, so parallel guesses cannot slip past the limit: the update that would
 * exceed it fails, and that attempt is refused without any scrypt work.
 *
 * Two limits, neither of which lets a stranger lock a member out:
 *  - per e-mail AND client address: config.signInAttemptsPerPair attempts, then exponential backoff
 *    (config.signInBackoffSeconds, doubling per further attempt, at most config.signInBackoffMaxSeconds).
 *    A success from that address clears it; 24 hours without an attempt forget it. An attacker
 *    elsewhere only slows their own address down; the member's own address is unaffected.
 *  - per client address, whatever the e-mail: config.signInAttemptsPerAddress in a fixed 15-minute
 *    window (a looser cap on spraying many e-mails). A successful attempt is given back.
 * A refused attempt is told apart from a wrong password (429 RATE_LIMITED with Retry-After) and is
 * answered the same whether or not the e-mail belongs to a member.
 */
export const ADDRESS_WINDOW_SECONDS = 15 * 60;
const PAIR_MEMORY_SECONDS = 24 * 3600;

export type Admission = { admitted: true } | { admitted: false; retryAfter: number };

const pairKey = (email: string, address: string) => ({
  pk: throttlePk('pair', createHash('sha256').update(`${email}\n${address}`, 'utf8').digest('hex')),
  sk: THROTTLE_SK,
});
const windowOf = (nowMs: number) => Math.floor(nowMs / 1000 / ADDRESS_WINDOW_SECONDS) * ADDRESS_WINDOW_SECONDS;
const addressKey = (address: string, nowMs: number) => ({ pk: throttlePk('addr', address), sk: String(windowOf(nowMs)) });

/** The wait after `attempts` attempts of a pair, in seconds (0 while within the free attempts). */
export function backoffSeconds(attempts: number): number {
  const free = config.signInAttemptsPerPair;
  if (attempts < free) return 0;
  return Math.min(config.signInBackoffMaxSeconds, config.signInBackoffSeconds * 2 ** Math.min(30, attempts - free));
}

/** One conditional update; false when its condition failed (the limit is reached, or another attempt changed the item first). */
const write = (key: { pk: string; sk: string }, update: string, condition: string, values: Record<string, unknown>) =>
  conditionally(() => db().send(new UpdateCommand({ TableName: config.accountsTable, Key: key, UpdateExpression: update, ConditionExpression: condition, ExpressionAttributeValues: values })));

async function admitAddress(address: string, now: number): Promise<Admission> {
  const admitted = await write(addressKey(address, now), 'ADD attempts :one SET expiresAt = if_not_exists(expiresAt, :exp)', 'attribute_not_exists(attempts) OR attempts < :cap', {
    ':one': 1,
    ':cap': config.signInAttemptsPerAddress,
    ':exp': windowOf(now) + 2 * ADDRESS_WINDOW_SECONDS,
  });
  return admitted ? { admitted: true } : { admitted: false, retryAfter: Math.max(1, windowOf(now) + ADDRESS_WINDOW_SECONDS - Math.floor(now / 1000)) };
}

async function admitPair(email: string, address: string, now: number): Promise<Admission> {
  const key = pairKey(email, address);
  const stamp = { ':now': now, ':exp': Math.floor(now / 1000) + PAIR_MEMORY_SECONDS };
  // The common case: within the free attempts. Atomic, so N parallel attempts admit at most the limit.
  if (
    await write(key, 'SET attempts = if_not_exists(attempts, :zero) + :one, lastAt = :now, expiresAt = :exp', '(attribute_not_exists(attempts) OR attempts < :free) AND (attribute_not_exists(expiresAt) OR expiresAt > :nowS)', {
      ...stamp,
      ':nowS': Math.floor(now / 1000),
      ':zero': 0,
      ':one': 1,
      ':free': config.signInAttemptsPerPair,
    })
  ) {
    return { admitted: true };
  }
  // Past them: one attempt per backoff period, claimed by a compare-and-set on (attempts, lastAt).
  const res = await db().send(new GetCommand({ TableName: config.accountsTable, Key: key, ConsistentRead: true }));
  const attempts = Number(res.Item?.attempts ?? 0);
  const lastAt = Number(res.Item?.lastAt ?? 0);
  const forgotten = Number(res.Item?.expiresAt ?? 0) <= Math.floor(now / 1000);
  const readyAt = lastAt + backoffSeconds(attempts) * 1000;
  if (!forgotten && now < readyAt) return { admitted: false, retryAfter: Math.ceil((readyAt - now) / 1000) };
  const claimed = await write(key, 'SET attempts = :next, lastAt = :now, expiresAt = :exp', 'attempts = :seen AND lastAt = :last', {
    ...stamp,
    ':next': forgotten ? 1 : attempts + 1,
    ':seen': attempts,
    ':last': lastAt,
  });
  return claimed ? { admitted: true } : { admitted: false, retryAfter: Math.max(1, backoffSeconds(attempts + 1)) };
}

/** Counts this attempt; admitted means the password may be checked. */
export async function admitSignIn(email: string, address: string, now = Date.now()): Promise<Admission> {
  const byAddress = await admitAddress(address, now);
  if (!byAddress.admitted) return byAddress;
  return admitPair(email, address, now);
}

/** After a successful sign-in: the pair starts afresh and the address gets its attempt back. */
export async function signInSucceeded(email: string, address: string, now = Date.now()): Promise<void> {
  await Promise.all([
    db().send(new UpdateCommand({ TableName: config.accountsTable, Key: pairKey(email, address), UpdateExpression: 'REMOVE attempts, lastAt' })),
    write(addressKey(address, now), 'ADD attempts :minus', 'attempts > :zero', { ':minus': -1, ':zero': 0 }),
  ]);
}
