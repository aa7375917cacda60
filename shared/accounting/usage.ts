import { config } from '../runtime/config';
import { teamRange } from '../db/client';
import { USAGE_PREFIX, teamPk } from '../db/tables';
import { ERROR_STATUS, type ErrorCode } from '../http/errors';

/**
 * The daily usage of each team: per UTC day and operation, every answered request, by what it
 * answered: live results (and the credits they cost), cache hits (free, so absent from the ledger)
 * and errors by code (free too). Written by the record of each answer (./record.ts), read by the
 * account API's usage report. One item per team and day, in the team's partition:
 *
 *   USAGE#<day>    `live:<op>` and `credits:<op>`, `hit:<op>`, `error:<op>:<CODE>`: one plain
 *                  UpdateItem (ADD) per answer, never in a transaction, so concurrent answers of a
 *                  team never cancel each other (a team is capped at 100 requests a minute: far
 *                  below the 1,000 writes a second one item takes)
 *
 * Each expires after KEEP_DAYS.
 */
const KEEP_DAYS = 400;

export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const expiry = (now: number) => Math.floor(now / 1000) + KEEP_DAYS * 86_400;

/** What an answer adds to its team's day. */
export interface UsageAnswer {
  teamId: string;
  operation: string;
  /** The error code; null for a result (live or cached). */
  code: ErrorCode | null;
  cached: boolean;
  credits: number;
  time: number;
}

/** The UpdateItem input that counts one answer in its team's day: a live result (with its credits), a cache hit or an error. */
export function usageUpdate(a: UsageAnswer) {
  const counts: [string, number][] = a.code
    ? [[`error:${a.operation}:${a.code}`, 1]]
    : a.cached
      ? [[`hit:${a.operation}`, 1]]
      : [
          [`live:${a.operation}`, 1],
          [`credits:${a.operation}`, a.credits],
        ];
  return {
    TableName: config.accountsTable,
    Key: { pk: teamPk(a.teamId), sk: `${USAGE_PREFIX}${dayOf(a.time)}` },
    UpdateExpression: `ADD ${counts.map((_, i) => `#n${i} :n${i}`).join(', ')} SET expiresAt = if_not_exists(expiresAt, :exp)`,
    ExpressionAttributeNames: Object.fromEntries(counts.map(([name], i) => [`#n${i}`, name])),
    ExpressionAttributeValues: { ...Object.fromEntries(counts.map(([, n], i) => [`:n${i}`, n])), ':exp': expiry(a.time) },
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
  const items = await teamRange(teamId, `${USAGE_PREFIX}${dayOf(now - (days - 1) * 86_400_000)}`, `${USAGE_PREFIX}${dayOf(now)}`);
  const byDay = new Map<string, UsageDay['operations']>();
  for (const item of items) {
    const day = String(item.sk).slice(USAGE_PREFIX.length);
    const ops = byDay.get(day) ?? {};
    byDay.set(day, ops);
    for (const [name, value] of Object.entries(item)) {
      // Operation ids have no colon; `error:<op>:<CODE>`.
      const m = /^(live|hit|credits|error):([^:]+)(?::([A-Z_]+))?$/.exec(name);
      if (!m) continue;
      const [, kind, op, code] = m;
      if ((kind === 'error') !== (code !== undefined) || (code && !KNOWN_CODES.has(code))) continue;
      const n = Number(value);
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
