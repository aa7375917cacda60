import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { db } from '../db/client';
import { USAGE_PREFIX, teamPk } from '../db/tables';
import type { Log } from '../log';

/**
 * Per team and UTC day, one item counts the answered requests of each operation: live ones (and
 * the credits they cost) and cache hits (free, so absent from the ledger). The pipeline adds to it
 * with one UpdateItem per answered request, sent concurrently with the call it already makes at
 * that point (the balance read of a cache hit, the ledger write of a live scrape), so it adds a
 * DynamoDB call but no round trip. Errors are not counted (they cost nothing and are in the logs).
 */
const KEEP_DAYS = 400;

export type Answer = { kind: 'live'; credits: number } | { kind: 'hit' };

export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Never throws: a usage counter must not fail a request. Returns whether it was counted. */
export async function countAnswer(teamId: string, operation: string, answer: Answer, log: Log, now = Date.now(), sign: 1 | -1 = 1): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':exp': Math.floor(now / 1000) + KEEP_DAYS * 86_400, ':one': sign };
  let add: string;
  if (answer.kind === 'live') {
    names['#n'] = `live:${operation}`;
    names['#c'] = `credits:${operation}`;
    values[':c'] = sign * answer.credits;
    add = '#n :one, #c :c';
  } else {
    names['#n'] = `hit:${operation}`;
    add = '#n :one';
  }
  try {
    await db().send(
      new UpdateCommand({
        TableName: config.accountsTable,
        Key: { pk: teamPk(teamId), sk: `${USAGE_PREFIX}${dayOf(now)}` },
        UpdateExpression: `ADD ${add} SET expiresAt = if_not_exists(expiresAt, :exp)`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (err) {
    log.warn('usage counter not updated', { error: (err as Error).name, teamId });
    return false;
  }
}

export interface UsageDay {
  day: string;
  /** Per operation: live requests, cache hits, credits. */
  operations: Record<string, { live: number; hits: number; credits: number }>;
}

export interface UsageReport {
  days: UsageDay[];
  totals: { requests: number; live: number; hits: number; credits: number; cacheHitShare: number | null };
  byOperation: Record<string, { requests: number; hits: number; credits: number; cacheHitShare: number | null }>;
}

/** The last `days` UTC days, today included, every day present (zeros where nothing happened). */
export async function usage(teamId: string, days: number, now = Date.now()): Promise<UsageReport> {
  const from = dayOf(now - (days - 1) * 86_400_000);
  const res = await db().send(
    new QueryCommand({
      TableName: config.accountsTable,
      KeyConditionExpression: 'pk = :p AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':p': teamPk(teamId), ':from': `${USAGE_PREFIX}${from}`, ':to': `${USAGE_PREFIX}${dayOf(now)}` },
    }),
  );
  const byDay = new Map<string, UsageDay['operations']>();
  for (const item of res.Items ?? []) {
    const ops: UsageDay['operations'] = {};
    for (const [name, value] of Object.entries(item)) {
      const m = /^(live|hit|credits):(.+)$/.exec(name);
      if (!m) continue;
      const o = (ops[m[2]!] ??= { live: 0, hits: 0, credits: 0 });
      const n = Number(value);
      if (m[1] === 'live') o.live += n;
      else if (m[1] === 'hit') o.hits += n;
      else o.credits += n;
    }
    byDay.set(String(item.sk).slice(USAGE_PREFIX.length), ops);
  }
  const out: UsageDay[] = [];
  const totals = { requests: 0, live: 0, hits: 0, credits: 0, cacheHitShare: null as number | null };
  const byOperation: UsageReport['byOperation'] = {};
  for (let i = days - 1; i >= 0; i--) {
    const day = dayOf(now - i * 86_400_000);
    const operations = byDay.get(day) ?? {};
    out.push({ day, operations });
    for (const [op, o] of Object.entries(operations)) {
      totals.live += o.live;
      totals.hits += o.hits;
      totals.credits += o.credits;
      const b = (byOperation[op] ??= { requests: 0, hits: 0, credits: 0, cacheHitShare: null });
      b.requests += o.live + o.hits;
      b.hits += o.hits;
      b.credits += o.credits;
    }
  }
  totals.requests = totals.live + totals.hits;
  totals.cacheHitShare = totals.requests ? totals.hits / totals.requests : null;
  for (const b of Object.values(byOperation)) b.cacheHitShare = b.requests ? b.hits / b.requests : null;
  return { days: out, totals, byOperation };
}
