import { BatchGetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { db } from '../db/client';
import { outcomeKey } from '../db/tables';
import type { Log } from '../log';
import { emitMetrics, emitOutcomeMetric, MetricUnit } from '../metrics';

/**
 * Outcome counters of real traffic, for GET /v1/status: every request that reaches an operation's
 * function adds one answer to two items of the cache table (the result cache's table: nothing here
 * is money, everything expires), written by one UpdateItem each, sent together:
 *
 *   OUT#<operation>#m#<yyyy-mm-ddThh:mm>#<shard>   the minute: read for the 15-minute window
 *   OUT#<operation>#h#<yyyy-mm-ddThh>#<shard>      the hour: read for the 24-hour window
 *
 * Each item holds numbers: `n` (answers), `s<status>` (answers by status), `c_<CODE>` (errors by
 * code), `hit` (cache hits), `live` (live answers: scraped and served) and `b<i>` (the live answers'
 * latency histogram, bucket i of LATENCY_BUCKETS_MS), and `okAt` (ms of the latest success written
 * to it). A request picks its shard at random among OUTCOME_SHARDS, so one minute of one operation
 * is OUTCOME_SHARDS items and no single item takes more than its share of the writes; the reader
 * sums them. Every item expires (TTL) KEEP_SECONDS after its period began: beyond the 24-hour window.
 */
export const LATENCY_BUCKETS_MS = [50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 8000, 13000, 20000, 30000] as const;
export const KEEP_SECONDS = 26 * 3600;
export const WINDOWS = { '15m': { minutes: 15, grain: 'm' }, '24h': { minutes: 24 * 60, grain: 'h' } } as const;
export type WindowName = keyof typeof WINDOWS;

/** How one answer ended, as the status page counts it. */
export interface Outcome {
  operation: string;
  status: number;
  /** The error code of an error answer. */
  code?: string;
  cached: boolean;
  /** A live answer: scraped and served (its latency goes into the histogram). */
  live: boolean;
  ms: number;
  upstreamCalls: number;
  /** When the answer was decided (ms). */
  at: number;
}

const minuteOf = (ms: number) => new Date(ms).toISOString().slice(0, 16);
const hourOf = (ms: number) => new Date(ms).toISOString().slice(0, 13);

export const bucketOf = (ms: number): number => {
  const i = LATENCY_BUCKETS_MS.findIndex((upper) => ms <= upper);
  return i === -1 ? LATENCY_BUCKETS_MS.length : i;
};

/** A success for the status page: served (a 2xx). */
const succeeded = (o: Outcome) => o.status < 300;

/** The numbers one answer adds (or, negated, takes back). */
function increments(o: Outcome, sign: 1 | -1): Record<string, number> {
  const add: Record<string, number> = { n: sign, [`s${o.status}`]: sign };
  if (o.code) add[`c_${o.code}`] = sign;
  if (o.cached) add.hit = sign;
  if (o.live) {
    add.live = sign;
    add[`b${bucketOf(o.ms)}`] = sign;
  }
  return add;
}

function shard(): number {
  return Math.floor(Math.random() * Math.max(1, config.outcomeShards));
}

function update(pk: string, add: Record<string, number>, periodStart: number, okAt: number | undefined) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':exp': Math.floor(periodStart / 1000) + KEEP_SECONDS };
  const adds = Object.entries(add).map(([name, n], i) => {
    names[`#a${i}`] = name;
    values[`:a${i}`] = n;
    return `#a${i} :a${i}`;
  });
  const sets = ['expiresAt = if_not_exists(expiresAt, :exp)'];
  if (okAt !== undefined) {
    sets.push('okAt = :ok');
    values[':ok'] = okAt;
  }
  return new UpdateCommand({
    TableName: config.cacheTable,
    Key: { pk },
    UpdateExpression: `ADD ${adds.join(', ')} SET ${sets.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
}

/**
 * Counts one answer: its metric (CloudWatch, embedded format) and its two counter items, the
 * minute's and the hour's, written together. `replacing`: an answer already counted for this
 * request that turned out otherwise (a settle that failed after a success was counted); its
 * numbers are taken back in the same writes. Never throws: a failure to count is logged and
 * measured (metric `outcomeCountFailed`), and the request goes on.
 */
export async function recordOutcome(o: Outcome, log: Log, replacing?: Outcome): Promise<void> {
  emitOutcomeMetric(o.operation, o.code ?? (o.cached ? 'cache_hit' : 'live'), o.upstreamCalls, o.ms);
  const add = increments(o, 1);
  if (replacing) for (const [name, n] of Object.entries(increments(replacing, -1))) add[name] = (add[name] ?? 0) + n;
  for (const [name, n] of Object.entries(add)) if (n === 0) delete add[name];
  const okAt = succeeded(o) ? o.at : undefined;
  const s = shard();
  const hourStart = Date.parse(`${hourOf(o.at)}:00:00.000Z`);
  const minuteStart = Date.parse(`${minuteOf(o.at)}:00.000Z`);
  try {
    await Promise.all([
      db().send(update(outcomeKey(o.operation, 'm', minuteOf(o.at), s), add, minuteStart, okAt)),
      db().send(update(outcomeKey(o.operation, 'h', hourOf(o.at), s), add, hourStart, okAt)),
    ]);
  } catch (err) {
    log.warn('outcome not counted', { error: (err as Error).name });
    emitMetrics({ operation: o.operation }, [['outcomeCountFailed', MetricUnit.Count, 1]]);
  }
}

/** What the counters of one operation say over one window. */
export interface Figures {
  answers: number;
  byStatus: Record<string, number>;
  byCode: Record<string, number>;
  cacheHits: number;
  live: number;
  /** Live answers per latency bucket (LATENCY_BUCKETS_MS, then one for anything slower). */
  histogram: number[];
  /** ms of the latest success, or null. */
  lastSuccessAt: number | null;
}

export const emptyFigures = (): Figures => ({ answers: 0, byStatus: {}, byCode: {}, cacheHits: 0, live: 0, histogram: LATENCY_BUCKETS_MS.map(() => 0).concat(0), lastSuccessAt: null });

/** The keys of every item of `window` that ends at `now`, for each operation. */
export function windowKeys(operationIds: readonly string[], window: WindowName, now: number): { operation: string; pk: string }[] {
  const { minutes, grain } = WINDOWS[window];
  const periods: string[] = [];
  if (grain === 'm') {
    for (let i = minutes - 1; i >= 0; i--) periods.push(minuteOf(now - i * 60_000));
  } else {
    for (let i = minutes / 60 - 1; i >= 0; i--) periods.push(hourOf(now - i * 3_600_000));
  }
  const shards = Math.max(1, config.outcomeShards);
  return operationIds.flatMap((operation) => periods.flatMap((p) => Array.from({ length: shards }, (_, s) => ({ operation, pk: outcomeKey(operation, grain, p, s) }))));
}

/** BatchGetItem over any number of keys of the cache table: 100 per call, all calls at once, unprocessed keys asked again. */
export async function getMany(pks: string[]): Promise<Record<string, unknown>[]> {
  const chunks: string[][] = [];
  for (let i = 0; i < pks.length; i += 100) chunks.push(pks.slice(i, i + 100));
  const table = config.cacheTable;
  const pages = await Promise.all(
    chunks.map(async (chunk) => {
      const out: Record<string, unknown>[] = [];
      let keys: Record<string, unknown>[] = chunk.map((pk) => ({ pk }));
      for (let attempt = 0; keys.length && attempt < 5; attempt++) {
        if (attempt) await new Promise((r) => setTimeout(r, 20 * 2 ** attempt));
        const res = await db().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: keys } } }));
        out.push(...(res.Responses?.[table] ?? []));
        keys = (res.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      }
      if (keys.length) throw new Error(`status read: ${keys.length} keys left unprocessed`);
      return out;
    }),
  );
  return pages.flat();
}

/** Sums the counter items of each operation over `window`. */
export async function readFigures(operationIds: readonly string[], window: WindowName, now = Date.now()): Promise<Record<string, Figures>> {
  const keys = windowKeys(operationIds, window, now);
  const opOf = new Map(keys.map((k) => [k.pk, k.operation]));
  const out: Record<string, Figures> = Object.fromEntries(operationIds.map((id) => [id, emptyFigures()]));
  for (const item of await getMany(keys.map((k) => k.pk))) {
    const f = out[opOf.get(String(item.pk))!]!;
    for (const [name, raw] of Object.entries(item)) {
      const n = Number(raw);
      if (name === 'n') f.answers += n;
      else if (name === 'hit') f.cacheHits += n;
      else if (name === 'live') f.live += n;
      else if (name === 'okAt') f.lastSuccessAt = Math.max(f.lastSuccessAt ?? 0, n);
      else if (/^s\d{3}$/.test(name)) f.byStatus[name.slice(1)] = (f.byStatus[name.slice(1)] ?? 0) + n;
      else if (name.startsWith('c_')) f.byCode[name.slice(2)] = (f.byCode[name.slice(2)] ?? 0) + n;
      else if (/^b\d+$/.test(name)) f.histogram[Number(name.slice(1))]! += n;
    }
  }
  for (const f of Object.values(out)) {
    for (const [k, n] of Object.entries(f.byStatus)) if (n === 0) delete f.byStatus[k];
    for (const [k, n] of Object.entries(f.byCode)) if (n === 0) delete f.byCode[k];
  }
  return out;
}

/**
 * The latency below which a share `q` of the live answers fell, read from the histogram: the upper
 * bound of the bucket the q-th answer lies in (so "p95 ≤ 750 ms"); null without live answers. An
 * answer slower than the last bound reads as that bound.
 */
export function percentile(histogram: readonly number[], q: number): number | null {
  const total = histogram.reduce((a, b) => a + b, 0);
  if (!total) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < histogram.length; i++) {
    seen += histogram[i]!;
    if (seen >= rank) return LATENCY_BUCKETS_MS[Math.min(i, LATENCY_BUCKETS_MS.length - 1)]!;
  }
  return LATENCY_BUCKETS_MS[LATENCY_BUCKETS_MS.length - 1]!;
}
