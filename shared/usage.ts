import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from './config';
import { db, teamRange } from './db/client';
import { USAGE_PREFIX, teamPk } from './db/tables';
import type { Log } from './log';

/**
 * The daily usage of each team: per UTC day and operation, the live requests (and the credits they
 * cost) and the cache hits (free, so absent from the ledger). Written only by the settle step of
 * shared/credits.ts; read by the account API's usage report. Items in the team's partition:
 *
 *   USAGE#<day>            `hit:<op>`; one UpdateItem (ADD) per cache hit, never in a transaction
 *   USAGE#<day>#<shard>    `live:<op>`, `credits:<op>`; added by the transaction that writes the
 *                          ledger record, so a request is counted exactly when it is charged
 *
 * Live counts are spread over SHARDS items by request id: DynamoDB cancels a transaction that
 * touches an item another transaction is writing, so concurrent settles of one team must rarely
 * meet on one item. The report sums every item of a day. Each expires after KEEP_DAYS.
 */
const KEEP_DAYS = 400;
const SHARDS = 16;

export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const expiry = (now: number) => Math.floor(now / 1000) + KEEP_DAYS * 86_400;

function shardOf(requestId: string): string {
  return String(createHash('sha256').update(requestId).digest()[0]! % SHARDS).padStart(2, '0');
}

/** The Update action, for the settle transaction, that counts one live request and its credits. */
export function liveUsageUpdate(teamId: string, operation: string, credits: number, requestId: string, now: number) {
  return {
    TableName: config.accountsTable,
    Key: { pk: teamPk(teamId), sk: `${USAGE_PREFIX}${dayOf(now)}#${shardOf(requestId)}` },
    UpdateExpression: 'ADD #n :one, #c :c SET expiresAt = if_not_exists(expiresAt, :exp)',
    ExpressionAttributeNames: { '#n': `live:${operation}`, '#c': `credits:${operation}` },
    ExpressionAttributeValues: { ':one': 1, ':c': credits, ':exp': expiry(now) },
  };
}

/** Counts one cache hit. Never throws: a usage counter must not fail a request. */
export async function countHit(teamId: string, operation: string, log: Log, now = Date.now()): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: config.accountsTable,
        Key: { pk: teamPk(teamId), sk: `${USAGE_PREFIX}${dayOf(now)}` },
        UpdateExpression: 'ADD #n :one SET expiresAt = if_not_exists(expiresAt, :exp)',
        ExpressionAttributeNames: { '#n': `hit:${operation}` },
        ExpressionAttributeValues: { ':one': 1, ':exp': expiry(now) },
      }),
    );
  } catch (err) {
    log.warn('usage counter not updated', { error: (err as Error).name });
  }
}

export interface UsageDay {
  day: string;
  /** Per operation: live requests, cache hits, credits. */
  operations: Record<string, { live: number; hits: number; credits: number }>;
}

/** GET /v1/account/usage: what the dashboard's usage page draws. */
export interface UsageReport {
  days: UsageDay[];
  totals: { requests: number; live: number; hits: number; credits: number; cacheHitShare: number | null };
  byOperation: Record<string, { requests: number; hits: number; credits: number; cacheHitShare: number | null }>;
}

/** The last `days` UTC days, today included, every day present (zeros where nothing happened). */
export async function usage(teamId: string, days: number, now = Date.now()): Promise<UsageReport> {
  // `\uffff` after the last day: its shard items (USAGE#<day>#<nn>) sort after USAGE#<day>.
  const items = await teamRange(teamId, `${USAGE_PREFIX}${dayOf(now - (days - 1) * 86_400_000)}`, `${USAGE_PREFIX}${dayOf(now)}\uffff`);
  const byDay = new Map<string, UsageDay['operations']>();
  for (const item of items) {
    const day = String(item.sk).slice(USAGE_PREFIX.length, USAGE_PREFIX.length + 10);
    const ops = byDay.get(day) ?? {};
    byDay.set(day, ops);
    for (const [name, value] of Object.entries(item)) {
      const m = /^(live|hit|credits):(.+)$/.exec(name);
      if (!m) continue;
      const o = (ops[m[2]!] ??= { live: 0, hits: 0, credits: 0 });
      const n = Number(value);
      if (m[1] === 'live') o.live += n;
      else if (m[1] === 'hit') o.hits += n;
      else o.credits += n;
    }
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
