import { BatchGetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../runtime/config';
import { db } from '../db/client';
import { outcomeKey } from '../db/tables';
import type { Log } from '../runtime/log';
import { emitMetrics, emitOutcomeMetric, MetricUnit } from '../runtime/metrics';
import { LATENCY_BUCKETS_MS, type Outcome, hourOf, minuteOf } from '../accounting/outcome-counts';
import { countOutcome } from '../accounting/outcome-writes';

/**
 * Outcome counters of real traffic, for GET /v1/status: the counter items every answer of an
 * operation adds to (./outcome-items.ts: their layout and the updates that write them), written by
 * `recordOutcome` beside a write the answer makes anyway, and read here for the status page.
 */
export { KEEP_SECONDS, LATENCY_BUCKETS_MS, type Outcome, bucketOf } from '../accounting/outcome-counts';
export const WINDOWS = { '15m': { minutes: 15, grain: 'm' }, '24h': { minutes: 24 * 60, grain: 'h' } } as const;
export type WindowName = keyof typeof WINDOWS;

/** An answer's metric (CloudWatch, embedded format): what `recordOutcome` emits beside its counter items. */
export function emitOutcome(o: Outcome): void {
  emitOutcomeMetric(o.operation, o.code ?? (o.cached ? 'cache_hit' : 'live'), o.upstreamCalls, o.ms);
}

/**
 * Counts one answer: its metric (`emitOutcome`) and its two counter items, the minute's and the
 * hour's, written together. `replacing`: an answer already counted for this request that turned out
 * otherwise (a settle that failed after a success was counted, a 422 the authorizer counted ahead);
 * its numbers are taken back in the same writes. Never throws: a failure to count is logged and
 * measured (metric `outcomeCountFailed`), and the request goes on.
 */
export async function recordOutcome(o: Outcome, log: Log, replacing?: Outcome, emit = true): Promise<void> {
  // A count sent ahead of the answer (a hit beside its read, a refusal beside its reservation) emits
  // its metric only once the answer is that one: a CloudWatch metric cannot be taken back.
  if (emit) emitOutcome(o);
  // The same answer counted already (ahead of the function, by the authorizer): nothing to write.
  if (replacing && sameCounters(o, replacing)) return;
  if (!(await countOutcome(o, log, replacing))) emitMetrics({ operation: o.operation }, [['outcomeCountFailed', MetricUnit.Count, 1]]);
}

/**
 * Whether two answers move the same counters (a live answer never counts twice: its latency differs).
 * The first count stands in the minute it was made, even when the second falls in the next one.
 */
function sameCounters(a: Outcome, b: Outcome): boolean {
  return a.operation === b.operation && a.status === b.status && a.code === b.code && a.cached === b.cached && !a.live && !b.live;
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
