import { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../runtime/config';
import { conditionally, db } from '../db/client';
import { THROTTLE_SK, throttlePk } from '../db/tables';

/**
 * Sign-in throttling. Every attempt is counted with atomic, conditional DynamoDB updates BEFORE the
 * password is checked, so parallel guesses cannot slip past a limit: the update that would exceed
 * it fails, and that attempt is refused without any scrypt work.
 *
 * Three limits, none of which lets a stranger lock a member out of the address they sign in from:
 *  - per client address, whatever the e-mail: config.signInAttemptsPerAddress in a fixed 15-minute
 *    window (a cap on spraying many e-mails from one address). A success gives nothing back: a
 *    member with an account of their own cannot spray on the attempts their sign-ins would refund.
 *  - per e-mail AND client address: config.signInAttemptsPerPair attempts, then exponential backoff
 *    (config.signInBackoffSeconds, doubling per further attempt, at most config.signInBackoffMaxSeconds).
 *    A success from that address clears it; 24 hours without an attempt forget it (also after a
 *    success, whose item keeps its expiry).
 *  - per e-mail, whatever the address: config.signInAttemptsPerEmail attempts the pair admitted in a
 *    fixed 1-hour window (guesses at one e-mail spread over many addresses). An address the e-mail
 *    signed in from within KNOWN_ADDRESS_SECONDS is not counted nor refused here, so whoever spends
 *    the e-mail's window elsewhere only delays sign-ins from new places, never the member's usual one.
 * A refused attempt is told apart from a wrong password (429 RATE_LIMITED with Retry-After) and is
 * answered the same whether or not the e-mail belongs to a member.
 */
export const ADDRESS_WINDOW_SECONDS = 15 * 60;
export const EMAIL_WINDOW_SECONDS = 3600;
const PAIR_MEMORY_SECONDS = 24 * 3600;
/** How long a successful sign-in makes its address a known one for the e-mail. */
export const KNOWN_ADDRESS_SECONDS = 30 * 24 * 3600;

export type Admission = { admitted: true } | { admitted: false; retryAfter: number };

const digest = (...parts: string[]) => createHash('sha256').update(parts.join('\n'), 'utf8').digest('hex');
const pairKey = (email: string, address: string) => ({ pk: throttlePk('pair', digest(email, address)), sk: THROTTLE_SK });
const knownKey = (email: string, address: string) => ({ pk: throttlePk('known', digest(email, address)), sk: THROTTLE_SK });
const windowOf = (nowMs: number, seconds: number) => Math.floor(nowMs / 1000 / seconds) * seconds;
const addressKey = (address: string, nowMs: number) => ({ pk: throttlePk('addr', address), sk: String(windowOf(nowMs, ADDRESS_WINDOW_SECONDS)) });
const emailKey = (email: string, nowMs: number) => ({ pk: throttlePk('email', digest(email)), sk: String(windowOf(nowMs, EMAIL_WINDOW_SECONDS)) });

/** The wait after `attempts` attempts of a pair, in seconds (0 while within the free attempts). */
export function backoffSeconds(attempts: number): number {
  const free = config.signInAttemptsPerPair;
  if (attempts < free) return 0;
  return Math.min(config.signInBackoffMaxSeconds, config.signInBackoffSeconds * 2 ** Math.min(30, attempts - free));
}

/** One conditional update; false when its condition failed (the limit is reached, or another attempt changed the item first). */
const write = (key: { pk: string; sk: string }, update: string, condition: string, values: Record<string, unknown>) =>
  conditionally(() => db().send(new UpdateCommand({ TableName: config.accountsTable, Key: key, UpdateExpression: update, ConditionExpression: condition, ExpressionAttributeValues: values })));

/** One attempt in a fixed window of `seconds` holding at most `cap`. */
async function admitWindow(key: { pk: string; sk: string }, cap: number, seconds: number, now: number): Promise<Admission> {
  const start = windowOf(now, seconds);
  const admitted = await write(key, 'ADD attempts :one SET expiresAt = if_not_exists(expiresAt, :exp)', 'attribute_not_exists(attempts) OR attempts < :cap', {
    ':one': 1,
    ':cap': cap,
    ':exp': start + 2 * seconds,
  });
  return admitted ? { admitted: true } : { admitted: false, retryAfter: Math.max(1, start + seconds - Math.floor(now / 1000)) };
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
  // Past them, or forgotten (expired, which TTL removes late): one attempt per backoff period,
  // claimed by a compare-and-set on (attempts, lastAt) as read, absent ones included (an item a
  // success cleared before it kept them at 0 has neither).
  const res = await db().send(new GetCommand({ TableName: config.accountsTable, Key: key, ConsistentRead: true }));
  const seen = { attempts: res.Item?.attempts as number | undefined, lastAt: res.Item?.lastAt as number | undefined };
  const attempts = Number(seen.attempts ?? 0);
  const lastAt = Number(seen.lastAt ?? 0);
  const forgotten = Number(res.Item?.expiresAt ?? 0) <= Math.floor(now / 1000);
  const readyAt = lastAt + backoffSeconds(attempts) * 1000;
  if (!forgotten && now < readyAt) return { admitted: false, retryAfter: Math.ceil((readyAt - now) / 1000) };
  const unchanged = (name: 'attempts' | 'lastAt', value: string) => (seen[name] === undefined ? `attribute_not_exists(${name})` : `${name} = ${value}`);
  const claimed = await write(key, 'SET attempts = :next, lastAt = :now, expiresAt = :exp', `${unchanged('attempts', ':seen')} AND ${unchanged('lastAt', ':last')}`, {
    ...stamp,
    ':next': forgotten ? 1 : attempts + 1,
    ...(seen.attempts === undefined ? {} : { ':seen': seen.attempts }),
    ...(seen.lastAt === undefined ? {} : { ':last': seen.lastAt }),
  });
  return claimed ? { admitted: true } : { admitted: false, retryAfter: Math.max(1, backoffSeconds(attempts + 1)) };
}

/** Whether the e-mail signed in from this address within KNOWN_ADDRESS_SECONDS. */
async function knownAddress(email: string, address: string, now: number): Promise<boolean> {
  const res = await db().send(new GetCommand({ TableName: config.accountsTable, Key: knownKey(email, address) }));
  return Number(res.Item?.expiresAt ?? 0) > Math.floor(now / 1000);
}

/** Counts this attempt; admitted means the password may be checked. */
export async function admitSignIn(email: string, address: string, now = Date.now()): Promise<Admission> {
  const [byAddress, known] = await Promise.all([admitWindow(addressKey(address, now), config.signInAttemptsPerAddress, ADDRESS_WINDOW_SECONDS, now), knownAddress(email, address, now)]);
  if (!byAddress.admitted) return byAddress;
  const byPair = await admitPair(email, address, now);
  if (!byPair.admitted || known) return byPair;
  return admitWindow(emailKey(email, now), config.signInAttemptsPerEmail, EMAIL_WINDOW_SECONDS, now);
}

/**
 * After a successful sign-in (or password change): the pair starts afresh, and the address becomes
 * a known one of the e-mail. Nothing is given back to the address's window.
 */
export async function signInSucceeded(email: string, address: string, now = Date.now()): Promise<void> {
  const nowS = Math.floor(now / 1000);
  await Promise.all([
    db().send(
      new UpdateCommand({
        TableName: config.accountsTable,
        Key: pairKey(email, address),
        UpdateExpression: 'SET attempts = :zero, lastAt = :zero, expiresAt = :exp',
        ExpressionAttributeValues: { ':zero': 0, ':exp': nowS + PAIR_MEMORY_SECONDS },
      }),
    ),
    db().send(new UpdateCommand({ TableName: config.accountsTable, Key: knownKey(email, address), UpdateExpression: 'SET expiresAt = :exp', ExpressionAttributeValues: { ':exp': nowS + KNOWN_ADDRESS_SECONDS } })),
  ]);
}
