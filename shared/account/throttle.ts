import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { db } from '../db/client';
import { throttlePk } from '../db/tables';

/**
 * Failed sign-ins counted per e-mail and per client address in fixed 15-minute windows (one item
 * per subject and window, ADD on failure, expiring with the TTL). Over either limit, sign-in is
 * refused without checking the password, with the same answer as a wrong password.
 */
export const WINDOW_SECONDS = 15 * 60;

type Subject = { kind: 'email' | 'addr'; value: string; limit: number };

const windowOf = (now: number) => Math.floor(now / 1000 / WINDOW_SECONDS) * WINDOW_SECONDS;
const key = (s: Subject, now: number) => ({ pk: throttlePk(s.kind, s.value), sk: String(windowOf(now)) });

export function subjects(email: string, address: string): Subject[] {
  return [
    { kind: 'email', value: email, limit: config.signInFailuresPerEmail },
    { kind: 'addr', value: address, limit: config.signInFailuresPerAddress },
  ];
}

/** True when any subject has used up its failures in this window. */
export async function overLimit(list: Subject[], now = Date.now()): Promise<boolean> {
  const counts = await Promise.all(
    list.map((s) =>
      db()
        .send(new GetCommand({ TableName: config.accountsTable, Key: key(s, now), ConsistentRead: true }))
        .then((r) => Number(r.Item?.failures ?? 0)),
    ),
  );
  return counts.some((n, i) => n >= list[i]!.limit);
}

export async function recordFailure(list: Subject[], now = Date.now()): Promise<void> {
  await Promise.all(
    list.map((s) =>
      db().send(
        new UpdateCommand({
          TableName: config.accountsTable,
          Key: key(s, now),
          UpdateExpression: 'ADD failures :one SET expiresAt = if_not_exists(expiresAt, :exp)',
          ExpressionAttributeValues: { ':one': 1, ':exp': windowOf(now) + 2 * WINDOW_SECONDS },
        }),
      ),
    ),
  );
}
