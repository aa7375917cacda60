import { config } from '../runtime/config';
import { outcomeKey } from '../db/tables';

/**
 * The outcome counts of real traffic, per operation, for GET /v1/status (read by
 * shared/status/outcomes.ts): every answer of an operation adds to ONE item of the cache table, by
 * one plain UpdateItem (never in a transaction: every team's answers of an operation meet on
 * these few items):
 *
 *   OUT#<operation>#m#<yyyy-mm-ddThh:mm>#<shard>   the answers of one minute
 *
 * Each item holds numbers: `n` (answers), `s<status>` (answers by status), `c_<CODE>` (errors by
 * code), `hit` (cache hits), `live` (live answers: scraped and served), `b<i>` (the live answers'
 * latency histogram, bucket i of LATENCY_BUCKETS_MS), `drop` (list items dropped for a missing
 * required value: drift), and `okAt` (ms of the latest success written to it). A request picks its
 * shard at random among OUTCOME_SHARDS (docs/status.md: 2 items take 1,000 answers a second on one
 * operation at half of DynamoDB's per-item limit). The status function sums the minutes of the
 * last 15 minutes, and folds each finished hour into one item of its own, once (shared/status/outcomes.ts).
 * Every item expires (TTL) KEEP_SECONDS after its period began: beyond the 24-hour window.
 *
 * Why the cache table: these items are shared by all teams, short-lived (TTL) and never money, like
 * the cache entries, the shared upstream credentials and the canary records beside them; the
 * accounts table holds what is a team's.
 */
export const LATENCY_BUCKETS_MS = [50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 8000, 13000, 20000, 30000] as const;
export const KEEP_SECONDS = 26 * 3600;

/** How one answer ended, as the status page counts it. */
export interface Outcome {
  operation: string;
  status: number;
  /** The error code of an error answer. */
  code?: string | null;
  cached: boolean;
  /** A live answer: scraped and served (its latency goes into the histogram). */
  live: boolean;
  ms: number;
  upstreamCalls: number;
  /** Items of the answer's list dropped for a missing required value (drift). */
  dropped?: number;
  /** When the answer was decided (ms). */
  at: number;
}

export const minuteOf = (ms: number) => new Date(ms).toISOString().slice(0, 16);
export const hourOf = (ms: number) => new Date(ms).toISOString().slice(0, 13);

export const bucketOf = (ms: number): number => {
  const i = LATENCY_BUCKETS_MS.findIndex((upper) => ms <= upper);
  return i === -1 ? LATENCY_BUCKETS_MS.length : i;
};

/** The numbers one answer adds. */
export function increments(o: Outcome): Record<string, number> {
  const add: Record<string, number> = { n: 1, [`s${o.status}`]: 1 };
  if (o.code) add[`c_${o.code}`] = 1;
  if (o.cached) add.hit = 1;
  if (o.live) {
    add.live = 1;
    add[`b${bucketOf(o.ms)}`] = 1;
  }
  if (o.dropped) add.drop = o.dropped;
  return add;
}

/** The one UpdateItem input that counts an answer in its minute. */
export function outcomeUpdate(o: Outcome) {
  const add = increments(o);
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':exp': Math.floor(Date.parse(`${minuteOf(o.at)}:00.000Z`) / 1000) + KEEP_SECONDS };
  const adds = Object.entries(add).map(([name, n], i) => {
    names[`#a${i}`] = name;
    values[`:a${i}`] = n;
    return `#a${i} :a${i}`;
  });
  const sets = ['expiresAt = if_not_exists(expiresAt, :exp)'];
  if (o.status < 300) {
    sets.push('okAt = :ok');
    values[':ok'] = o.at;
  }
  const shard = Math.floor(Math.random() * config.outcomeShards);
  return {
    TableName: config.cacheTable,
    Key: { pk: outcomeKey(o.operation, minuteOf(o.at), shard) },
    UpdateExpression: `ADD ${adds.join(', ')} SET ${sets.join(', ')}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}
