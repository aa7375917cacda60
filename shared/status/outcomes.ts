import { PutCommand } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { config } from '../runtime/config';
import { batchGetAll, db } from '../db/client';
import { outcomeHourKey, outcomeKey } from '../db/tables';
import { KEEP_SECONDS, LATENCY_BUCKETS_MS, hourOf, minuteOf } from '../accounting/outcome-counts';

/**
 * The read side of the outcome counts (shared/accounting/outcome-counts.ts: one item per minute
 * and shard, one write per answer), for GET /v1/status. The 15-minute window sums its minutes. The
 * 24-hour window sums the finished hours, each read from its own item, which the first status
 * build to need it writes once from that hour's minutes (an hour is finished a minute after its
 * end, when no answer of it can still be recorded), and the current hour's minutes.
 */
export { KEEP_SECONDS, LATENCY_BUCKETS_MS, type Outcome, bucketOf } from '../accounting/outcome-counts';
export const WINDOWS = { '15m': { minutes: 15 }, '24h': { minutes: 24 * 60 } } as const;
export type WindowName = keyof typeof WINDOWS;
/** An hour is folded into its own item once this long after its end. */
const HOUR_SETTLED_MS = 60_000;

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
  /** List items dropped for a missing required value (drift). */
  dropped: number;
}

export const emptyFigures = (): Figures => ({ answers: 0, byStatus: {}, byCode: {}, cacheHits: 0, live: 0, histogram: LATENCY_BUCKETS_MS.map(() => 0).concat(0), lastSuccessAt: null, dropped: 0 });

/** The keys of every minute item (all shards) of `operation` in [from, to). */
function minuteKeys(operation: string, from: number, to: number): string[] {
  const keys: string[] = [];
  for (let t = Math.floor(from / 60_000) * 60_000; t < to; t += 60_000) for (let s = 0; s < config.outcomeShards; s++) keys.push(outcomeKey(operation, minuteOf(t), s));
  return keys;
}

/** BatchGetItem calls in flight at once, over all reads of this container (a first fold of 23 hours is hundreds). */
const MAX_BATCHES_IN_FLIGHT = 8;
const limited = pLimit(MAX_BATCHES_IN_FLIGHT);

/** BatchGetItem over any number of keys of the cache table: 100 per call, MAX_BATCHES_IN_FLIGHT at once, unprocessed keys asked again. */
export async function getMany(pks: string[]): Promise<Record<string, unknown>[]> {
  const chunks: string[][] = [];
  for (let i = 0; i < pks.length; i += 100) chunks.push(pks.slice(i, i + 100));
  const table = config.cacheTable;
  const pages = await Promise.all(chunks.map((chunk) => limited(() => batchGetAll(table, chunk.map((pk) => ({ pk }))))));
  return pages.flat();
}

/** Adds one count item's numbers to `f`. */
function addItem(f: Figures, item: Record<string, unknown>): void {
  for (const [name, raw] of Object.entries(item)) {
    const n = Number(raw);
    if (name === 'n') f.answers += n;
    else if (name === 'hit') f.cacheHits += n;
    else if (name === 'live') f.live += n;
    else if (name === 'drop') f.dropped += n;
    else if (name === 'okAt') f.lastSuccessAt = Math.max(f.lastSuccessAt ?? 0, n);
    else if (/^s\d{3}$/.test(name)) f.byStatus[name.slice(1)] = (f.byStatus[name.slice(1)] ?? 0) + n;
    else if (name.startsWith('c_')) f.byCode[name.slice(2)] = (f.byCode[name.slice(2)] ?? 0) + n;
    else if (/^b\d+$/.test(name)) f.histogram[Number(name.slice(1))]! += n;
  }
}

/** The numbers of `f` as an item's attributes (an hour's item). */
function asItem(f: Figures): Record<string, number> {
  const out: Record<string, number> = { n: f.answers, hit: f.cacheHits, live: f.live, drop: f.dropped };
  if (f.lastSuccessAt !== null) out.okAt = f.lastSuccessAt;
  for (const [k, n] of Object.entries(f.byStatus)) out[`s${k}`] = n;
  for (const [k, n] of Object.entries(f.byCode)) out[`c_${k}`] = n;
  f.histogram.forEach((n, i) => n && (out[`b${i}`] = n));
  return out;
}

function tidy(f: Figures): Figures {
  for (const [k, n] of Object.entries(f.byStatus)) if (n === 0) delete f.byStatus[k];
  for (const [k, n] of Object.entries(f.byCode)) if (n === 0) delete f.byCode[k];
  return f;
}

/** The figures of one operation from these minutes' items. */
async function sumMinutes(operation: string, from: number, to: number): Promise<Figures> {
  const f = emptyFigures();
  for (const item of await getMany(minuteKeys(operation, from, to))) addItem(f, item);
  return f;
}

/** A finished hour of one operation: its item, or its minutes summed and kept as its item (once). */
async function hourFigures(operation: string, hourStart: number, item: Record<string, unknown> | undefined, now: number): Promise<Figures> {
  const f = emptyFigures();
  if (item) return addItem(f, item), f;
  const summed = await sumMinutes(operation, hourStart, hourStart + 3_600_000);
  if (now >= hourStart + 3_600_000 + HOUR_SETTLED_MS) {
    const pk = outcomeHourKey(operation, hourOf(hourStart));
    await db()
      .send(new PutCommand({ TableName: config.cacheTable, Item: { pk, ...asItem(summed), expiresAt: Math.floor(hourStart / 1000) + KEEP_SECONDS } }))
      .catch(() => undefined); // written by the next build instead
  }
  return summed;
}

const add = (into: Figures, f: Figures) => {
  const { histogram, byStatus, byCode, lastSuccessAt, ...numbers } = f;
  addItem(into, { ...asItem({ ...emptyFigures(), ...numbers, histogram, byStatus, byCode, lastSuccessAt }) });
};

/** Sums the count items of each operation over `window`, ending at `now`. */
export async function readFigures(operationIds: readonly string[], window: WindowName, now = Date.now()): Promise<Record<string, Figures>> {
  const from = now - WINDOWS[window].minutes * 60_000;
  if (window === '15m') return Object.fromEntries(await Promise.all(operationIds.map(async (op) => [op, tidy(await sumMinutes(op, from, now + 1))] as const)));
  const thisHour = Math.floor(now / 3_600_000) * 3_600_000;
  const hours: number[] = [];
  for (let h = thisHour - 23 * 3_600_000; h < thisHour; h += 3_600_000) hours.push(h);
  const stored = new Map((await getMany(operationIds.flatMap((op) => hours.map((h) => outcomeHourKey(op, hourOf(h)))))).map((i) => [String(i.pk), i]));
  return Object.fromEntries(
    await Promise.all(
      operationIds.map(async (op) => {
        const f = await sumMinutes(op, thisHour, now + 1);
        for (const h of await Promise.all(hours.map((h) => hourFigures(op, h, stored.get(outcomeHourKey(op, hourOf(h))), now)))) add(f, h);
        return [op, tidy(f)] as const;
      }),
    ),
  );
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
