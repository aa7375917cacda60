import { createHash } from 'node:crypto';
import { config } from '../runtime/config';
import { teamRange } from '../db/client';
import { USAGE_PREFIX, teamPk } from '../db/tables';
import { ERROR_STATUS, type ErrorCode } from '../http/errors';

/**
 * The daily usage of each team: per UTC day and operation, every answered request, by what it
 * answered: live results (and the credits they cost), cache hits (free, so absent from the ledger)
 * and errors by code (free too). Written only by the write side of shared/accounting/credits.ts; read by the
 * account API's usage report. Items in the team's partition:
 *
 *   USAGE#<day>#<shard>    `hit:<op>`, `error:<op>:<CODE>`; one UpdateItem (ADD) per cache hit or
 *                          error answer, sent with the writes that answer makes anyway (for a hit,
 *                          and a 422 the authorizer records, in a small transaction of their own);
 *                          `live:<op>`, `credits:<op>`, added by the settle transaction that writes
 *                          the ledger record, so a request is counted exactly when it is charged
 *
 * Every count goes to one of SHARDS items of the day, chosen by request id: DynamoDB cancels a
 * transaction that touches an item another transaction is writing, so concurrent answers of one team
 * must rarely meet on one item. (Items `USAGE#<day>` without a shard, written before hits and
 * errors were sharded, are read too.)
 * meet on one item. The report sums every item of a day. Each expires after KEEP_DAYS.
 */
const KEEP_DAYS = 400;
const SHARDS = 16;

export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const expiry = (now: number) => Math.floor(now / 1000) + KEEP_DAYS * 86_400;

/** The day's usage shard of a request (00–15). */
export function shardOf(requestId: string): string {
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

/**
 * The UpdateItem input that counts one free answer: a cache hit (`code` null) or an error answer,
 * in one of the day's 16 shards chosen by the request id (like the live counts): the hit's and the
 * authorizer's 422 transactions carry it, and DynamoDB cancels a transaction that meets another on
 * the same item, so concurrent answers of one team must not all meet on one item. `by` -1 takes
 * back an answer counted ahead of time (same request id, so the same shard).
 */
export function freeAnswerUpdate(teamId: string, operation: string, code: ErrorCode | null, now: number, requestId: string, by: 1 | -1 = 1) {
  return {
    TableName: config.accountsTable,
    Key: { pk: teamPk(teamId), sk: `${USAGE_PREFIX}${dayOf(now)}#${shardOf(requestId)}` },
    UpdateExpression: 'ADD #n :one SET expiresAt = if_not_exists(expiresAt, :exp)',
    ExpressionAttributeNames: { '#n': code ? `error:${operation}:${code}` : `hit:${operation}` },
    ExpressionAttributeValues: { ':one': by, ':exp': expiry(now) },
  };
}

/** One operation's answers of one day (or of the report's whole span). */
export interface UsageCounts {
  /** Live results (charged). */
  live: number;
  /** Cache hits (free). */
  hits: number;
  /** Error answers (free), by error code. */
  errors: Partial<Record<ErrorCode, number>>;
  credits: number;
}

export interface UsageDay {
  day: string;
  operations: Record<string, UsageCounts>;
}

export interface UsageSummary {
  /** Every answered request: live + hits + error answers. */
  requests: number;
  live: number;
  hits: number;
  /** Error answers, all codes. */
  errorCount: number;
  credits: number;
  /** Cache hits among the answers with data (live + hits); null without any. */
  cacheHitShare: number | null;
  /** Every answer by HTTP status ("200" counts live results and cache hits). */
  byStatus: Record<string, number>;
  /** Error answers by code. */
  byCode: Partial<Record<ErrorCode, number>>;
}

/** GET /v1/account/usage: what the dashboard's usage page draws. */
export interface UsageReport {
  days: UsageDay[];
  totals: UsageSummary;
  byOperation: Record<string, UsageSummary>;
}

const KNOWN_CODES = new Set(Object.keys(ERROR_STATUS));

function emptySummary(): UsageSummary {
  return { requests: 0, live: 0, hits: 0, errorCount: 0, credits: 0, cacheHitShare: null, byStatus: {}, byCode: {} };
}

function addTo(s: UsageSummary, o: UsageCounts) {
  s.live += o.live;
  s.hits += o.hits;
  s.credits += o.credits;
  if (o.live + o.hits) s.byStatus['200'] = (s.byStatus['200'] ?? 0) + o.live + o.hits;
  for (const [code, n] of Object.entries(o.errors) as [ErrorCode, number][]) {
    s.errorCount += n;
    s.byCode[code] = (s.byCode[code] ?? 0) + n;
    const status = String(ERROR_STATUS[code]);
    s.byStatus[status] = (s.byStatus[status] ?? 0) + n;
  }
}

function finish(s: UsageSummary) {
  s.requests = s.live + s.hits + s.errorCount;
  s.cacheHitShare = s.live + s.hits ? s.hits / (s.live + s.hits) : null;
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
      // Operation ids have no colon; `error:<op>:<CODE>`.
      const m = /^(live|hit|credits|error):([^:]+)(?::([A-Z_]+))?$/.exec(name);
      if (!m) continue;
      const [, kind, op, code] = m;
      if ((kind === 'error') !== (code !== undefined) || (code && !KNOWN_CODES.has(code))) continue;
      const n = Number(value);
      // A count taken back to 0 (an answer counted ahead that turned out otherwise) is no answer.
      if (!n) continue;
      const o = (ops[op!] ??= { live: 0, hits: 0, errors: {}, credits: 0 });
      if (kind === 'live') o.live += n;
      else if (kind === 'hit') o.hits += n;
      else if (kind === 'credits') o.credits += n;
      else o.errors[code as ErrorCode] = (o.errors[code as ErrorCode] ?? 0) + n;
    }
  }
  const out: UsageDay[] = [];
  const totals = emptySummary();
  const byOperation: UsageReport['byOperation'] = {};
  for (let i = days - 1; i >= 0; i--) {
    const day = dayOf(now - i * 86_400_000);
    const operations = byDay.get(day) ?? {};
    out.push({ day, operations });
    for (const [op, o] of Object.entries(operations)) {
      addTo(totals, o);
      addTo((byOperation[op] ??= emptySummary()), o);
    }
  }
  finish(totals);
  for (const s of Object.values(byOperation)) finish(s);
  return { days: out, totals, byOperation };
}
