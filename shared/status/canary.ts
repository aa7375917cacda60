import type * as v from 'valibot';
import { safeParse } from 'valibot';
import { config } from '../runtime/config';
import { toScrapeError } from '../http/errors';
import type { Log } from '../runtime/log';
import { MetricUnit, publishMetrics } from '../runtime/metrics';
import { routedOperations, type Operation } from '../operations';
import { ScrapeContext } from '../scrape/context';
import type { Scraper } from '../scrape/scraper';
import { validateQuery } from '../http/validation';
import { readCanaryRecord, writeCanaryRecord, type CanaryRecord } from './canary-record';
import { CANARY_INPUTS } from './canary-inputs';

/**
 * Canaries: each routed operation run once with a known-good input (shared/status/canary-inputs.ts,
 * CANARY_INPUTS overriding), through the same validation, scraper and mappers as a request, but
 * with no team, no credit, no ledger and no cache. Each run is checked against the operation's
 * data schema and compared with the last good answer:
 *   missing    fields the contract requires that came back missing (the answer would not be valid)
 *   newlyNull  optional fields null or absent now that the last good answer had (and whose parent
 *              is there: an empty list is not drift)
 * A run is recorded for GET /v1/status (CANARY#<operation>, unless `record: false`) and measured
 * (metrics canarySuccess 1/0, canaryDrift, canaryLatency per operation). The last good answer is the
 * last run without drift: drift stays reported until a run comes back without it.
 */
export type CanaryInputs = Partial<Record<string, Record<string, string> | null>>;

export interface CanaryRun {
  operation: string;
  /** `ok`: a valid answer without drift; `drift`: an answer, with drift; `failed`: an error; `no input`: none configured. */
  result: 'ok' | 'drift' | 'failed' | 'no input';
  ms: number;
  code?: string;
  message?: string;
  missing: string[];
  newlyNull: string[];
  upstreamCalls: number;
}

/** The inputs in force: the defaults, then CANARY_INPUTS (JSON) over them. */
export function canaryInputs(env = config.canaryInputs): CanaryInputs {
  const overrides = env ? (JSON.parse(env) as CanaryInputs) : {};
  return { ...CANARY_INPUTS, ...overrides };
}

/**
 * An operation's scraper, as its own entry file names it (functions/canary.ts loads them: the layer
 * above; nothing here imports an entry point).
 */
export type ScraperSource = (op: Operation) => Promise<Scraper<unknown, unknown>>;

/** Every field path that has a value (`posts[].text`: some item has one). */
export function presentPaths(value: unknown, prefix = '', out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) {
    if (value.length && prefix) out.add(`${prefix}[]`);
    for (const item of value) presentPaths(item, `${prefix}[]`, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (child === null || child === undefined) continue;
      const path = prefix ? `${prefix}.${key}` : key;
      out.add(path);
      presentPaths(child, path, out);
    }
  }
  return out;
}

const parentOf = (path: string) => (path.endsWith('[]') ? path.slice(0, -2) : path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : '');

/** Required fields the schema found missing (as paths like `posts[].id`). */
export function missingFields(schema: v.GenericSchema, data: unknown): string[] {
  const r = safeParse(schema, data);
  if (r.success) return [];
  const paths = new Set<string>();
  for (const issue of r.issues) {
    const path = (issue.path ?? []).map((p) => (p.type === 'array' ? '[]' : String(p.key))).join('.').replace(/\.\[\]/g, '[]');
    paths.add(issue.input === undefined ? path : `${path} (${issue.expected ?? 'invalid'})`);
  }
  return [...paths].sort();
}

export async function runCanary(op: Operation, query: Record<string, string> | null | undefined, log: Log, opts: { load: ScraperSource; record?: boolean }): Promise<CanaryRun> {
  const base = { operation: op.id, missing: [] as string[], newlyNull: [] as string[], upstreamCalls: 0 };
  if (!query) return { ...base, result: 'no input', ms: 0 };
  const record = opts.record ?? true;
  const previous = record ? readCanaryRecord(op.id).catch(() => null) : Promise.resolve(null);
  const started = Date.now();
  const ctx = ScrapeContext.withBudget(config.scrapeDeadlineMs);
  let run: CanaryRun;
  let present: Set<string> | undefined;
  try {
    const { values } = validateQuery({ params: op.params, oneOf: op.oneOf }, query, null);
    const scrape = await opts.load(op);
    const data = await scrape(values, ctx, log).catch((err: unknown) => {
      throw toScrapeError(err);
    });
    present = presentPaths(data);
    const missing = missingFields(op.data, data);
    const last = await previous;
    const newlyNull = (last?.presentPaths ?? []).filter((p) => !present!.has(p) && (parentOf(p) === '' || present!.has(parentOf(p))) && !missing.some((m) => m.startsWith(p)));
    run = { ...base, result: missing.length || newlyNull.length ? 'drift' : 'ok', ms: Date.now() - started, missing, newlyNull: newlyNull.sort(), upstreamCalls: ctx.upstreamCalls };
  } catch (err) {
    const apiError = toScrapeError(err);
    run = { ...base, result: 'failed', ms: Date.now() - started, code: apiError.code, message: apiError.internal ?? apiError.message, upstreamCalls: ctx.upstreamCalls };
  }
  measure(run);
  if (record) await recordRun(run, await previous, present, log);
  return run;
}

function measure(run: CanaryRun) {
  if (run.result === 'no input') return;
  publishMetrics([{ operation: run.operation }], [
    ['canarySuccess', MetricUnit.Count, run.result === 'failed' ? 0 : 1],
    ['canaryDrift', MetricUnit.Count, run.missing.length + run.newlyNull.length],
    ['canaryLatency', MetricUnit.Milliseconds, run.ms],
  ]);
}

async function recordRun(run: CanaryRun, previous: CanaryRecord | null, present: Set<string> | undefined, log: Log): Promise<void> {
  const at = Date.now();
  const ok = run.result !== 'failed';
  const clean = run.result === 'ok';
  const record: CanaryRecord = {
    operation: run.operation,
    at,
    ok,
    ms: run.ms,
    ...(run.code ? { code: run.code } : {}),
    missing: run.missing,
    newlyNull: run.newlyNull,
    consecutiveFailures: ok ? 0 : (previous?.consecutiveFailures ?? 0) + 1,
    lastOkAt: ok ? at : (previous?.lastOkAt ?? null),
    // The baseline moves only with a run without drift.
    presentPaths: clean && present ? [...present].sort() : (previous?.presentPaths ?? []),
  };
  try {
    await writeCanaryRecord(record);
  } catch (err) {
    log.warn('canary result not recorded', { operation: run.operation, error: (err as Error).name });
  }
}

/** Every routed operation's canary, a few at a time. */
export async function runCanaries(log: Log, opts: { load: ScraperSource; record?: boolean; inputs?: CanaryInputs; concurrency?: number; only?: string[] }): Promise<CanaryRun[]> {
  const inputs = opts.inputs ?? canaryInputs();
  const ops = routedOperations().filter((o) => !opts.only || opts.only.includes(o.id));
  const runs: CanaryRun[] = new Array(ops.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < ops.length; i = next++) runs[i] = await runCanary(ops[i]!, inputs[ops[i]!.id], log, opts);
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency ?? 4, ops.length) }, worker));
  return runs;
}
