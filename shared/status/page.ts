import { config, isSet } from '../runtime/config';
import { canaryKey } from '../db/tables';
import { entryPoint } from '../http/entry';
import { type Operation, operations } from '../operations';
import { asCanaryRecord, type CanaryRecord } from './canary-record';
import { getMany, percentile, readFigures, type Figures, type WindowName } from './outcomes';
import { STATUS_RULES, type State, stateOf, successShare } from './state';

/** Where the public status document is served, without a key: the stack, the local gateway, the OpenAPI document and the client use it. */
export const STATUS_PATH = '/v1/status';

export interface WindowReport {
  answers: number;
  /** Answers by HTTP status (`"200"`, `"404"`, …). */
  byStatus: Record<string, number>;
  /** Error answers by error code. */
  byCode: Record<string, number>;
  cacheHits: number;
  /** List items left out for a missing required value (drift). */
  droppedItems: number;
  /** Answers that were not 5xx, over all answers; null without answers. */
  successShare: number | null;
  /** Live answers (scraped and served): the bucket bound under which 50% / 95% of them fell. */
  latencyMs: { p50: number | null; p95: number | null; live: number };
}

export interface OperationStatus {
  operation: string;
  path: string;
  state: State;
  /** Why, in words, from the rules (STATUS_RULES). */
  reason: string;
  last15m: WindowReport;
  last24h: WindowReport;
  /** Time of the latest success in the last 24 hours. */
  lastSuccessAt: string | null;
  canary: { at: string; ok: boolean; ms: number; code: string | null; missing: string[]; newlyNull: string[]; consecutiveFailures: number } | null;
}

/** GET /v1/status. */
export interface StatusDocument {
  generatedAt: string;
  rules: typeof STATUS_RULES;
  operations: OperationStatus[];
}

function windowReport(f: Figures): WindowReport {
  return {
    answers: f.answers,
    byStatus: f.byStatus,
    byCode: f.byCode,
    cacheHits: f.cacheHits,
    droppedItems: f.dropped,
    successShare: successShare(f),
    latencyMs: { p50: percentile(f.histogram, 0.5), p95: percentile(f.histogram, 0.95), live: f.live },
  };
}

const iso = (ms: number | null | undefined) => (ms ? new Date(ms).toISOString() : null);

/** Everything the page shows, from the counters and the canary records: their reads all sent at once. */
/** Routed, and its source named when its source is configuration (see Operation.sourceVariable). */
export const isConfigured = (op: Operation): boolean => op.status === 'live' && (!op.sourceVariable || isSet(op.sourceVariable));

export async function buildStatus(now = Date.now()): Promise<StatusDocument> {
  const ordered = [...operations].sort((a, b) => a.number - b.number);
  const ids = ordered.map((o) => o.id);
  const [last15m, last24h, canaryItems] = await Promise.all([readFigures(ids, '15m', now), readFigures(ids, '24h', now), getMany(ids.map(canaryKey))]);
  const canaries = new Map<string, CanaryRecord>(canaryItems.map((i) => [String(i.operation), asCanaryRecord(i)]));
  return {
    generatedAt: new Date(now).toISOString(),
    rules: STATUS_RULES,
    operations: ordered.map((op) => {
      const canary = canaries.get(op.id) ?? null;
      const f15 = last15m[op.id]!;
      const f24 = last24h[op.id]!;
      const { state, reason } = stateOf(isConfigured(op), f15, canary, now);
      const windows: Record<`last${WindowName}`, WindowReport> = { last15m: windowReport(f15), last24h: windowReport(f24) };
      return {
        operation: op.id,
        path: op.path,
        state,
        reason,
        ...windows,
        lastSuccessAt: iso(Math.max(f15.lastSuccessAt ?? 0, f24.lastSuccessAt ?? 0)),
        canary: canary
          ? { at: iso(canary.at)!, ok: canary.ok, ms: canary.ms, code: canary.code ?? null, missing: canary.missing, newlyNull: canary.newlyNull, consecutiveFailures: canary.consecutiveFailures }
          : null,
      };
    }),
  };
}

/**
 * GET /v1/status, public: the document is kept in the function for STATUS_MAX_AGE_S and may be
 * cached that long by a browser or proxy (the stack sets 30; unset, 5, so that under `npm start` a
 * request shows within 10 s).
 */
export function statusHandler() {
  let kept: { at: number; body: string } | undefined;
  return entryPoint('status', async () => {
    const maxAge = config.statusMaxAgeSeconds;
    const now = Date.now();
    if (!kept || now - kept.at >= maxAge * 1000) kept = { at: now, body: JSON.stringify(await buildStatus(now)) };
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': `public, max-age=${maxAge}` },
      body: kept.body,
    };
  });
}
