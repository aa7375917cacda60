import { config } from '../runtime/config';
import { outcomeKey } from '../db/tables';

/**
 * The write side of the outcome counters of real traffic (GET /v1/status; read by ./outcomes.ts):
 * every request that reaches an operation's function adds one answer to two items of the cache
 * table (the result cache's table: nothing here is money, everything expires), by one UpdateItem
 * each, sent together:
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
 *
 * Plain data and key names only (no SDK command, no metrics). Never put in a transaction: every
 * team's answers of an operation in one minute meet on these few items (./outcome-writes.ts sends
 * them, for the functions and for the authorizer's 422).
 */
export const LATENCY_BUCKETS_MS = [50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 8000, 13000, 20000, 30000] as const;
export const KEEP_SECONDS = 26 * 3600;

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

export const minuteOf = (ms: number) => new Date(ms).toISOString().slice(0, 16);
export const hourOf = (ms: number) => new Date(ms).toISOString().slice(0, 13);

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
  return {
    TableName: config.cacheTable,
    Key: { pk },
    // An answer that replaces one with the same counters nets to nothing to add: then no ADD and no
    // ExpressionAttributeNames (DynamoDB refuses an empty one, as it does an empty ADD).
    UpdateExpression: `${adds.length ? `ADD ${adds.join(', ')} ` : ''}SET ${sets.join(', ')}`,
    ...(adds.length ? { ExpressionAttributeNames: names } : {}),
    ExpressionAttributeValues: values,
  };
}

/**
 * The two UpdateItem inputs (the minute's item, the hour's) that count one answer. `replacing`: an
 * answer already counted for this request that turned out otherwise; its numbers are taken back in
 * the same writes. `sign` -1: `o` itself taken back.
 */
export function outcomeUpdates(o: Outcome, replacing?: Outcome, sign: 1 | -1 = 1) {
  const add = increments(o, sign);
  if (replacing) for (const [name, n] of Object.entries(increments(replacing, -1))) add[name] = (add[name] ?? 0) + n;
  for (const [name, n] of Object.entries(add)) if (n === 0) delete add[name];
  const okAt = sign === 1 && succeeded(o) ? o.at : undefined;
  const s = shard();
  const hourStart = Date.parse(`${hourOf(o.at)}:00:00.000Z`);
  const minuteStart = Date.parse(`${minuteOf(o.at)}:00.000Z`);
  return [update(outcomeKey(o.operation, 'm', minuteOf(o.at), s), add, minuteStart, okAt), update(outcomeKey(o.operation, 'h', hourOf(o.at), s), add, hourStart, okAt)] as const;
}
