/**
 * `npm run canary`: the canaries from this machine against the real platforms (or whatever
 * UPSTREAM_<PLATFORM>_URL names), one row per routed operation: result, ms, upstream calls, and the
 * fields missing or newly null. Nothing is written anywhere; without a last good answer to compare
 * with, "newly null" stays empty and only missing required fields are drift. Inputs: the defaults of
 * shared/status/canary-inputs.ts, overridden by CANARY_INPUTS (JSON).
 *
 * Without network it says so and exits 2; when any canary fails it exits 1.
 */
import { lookup } from 'node:dns/promises';
import { logger } from '../shared/runtime/log';
import { upstreamOverride } from '../shared/runtime/config';
import { routedOperations } from '../shared/operations';
import { operationScraper } from '../functions/canary';
import { runCanaries } from '../shared/status/canary';

/** A name every platform's scrape needs resolved: no answer means no network (or no DNS) here. */
async function networkReachable(): Promise<boolean> {
  const direct = routedOperations().some((op) => !upstreamOverride(op.platform));
  if (!direct) return true;
  try {
    await lookup('example.com');
    return true;
  } catch {
    return false;
  }
}

async function main(): Promise<number> {
  logger.setLogLevel(process.env.POWERTOOLS_LOG_LEVEL ? (process.env.POWERTOOLS_LOG_LEVEL as 'INFO') : 'SILENT');
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  if (!(await networkReachable())) {
    console.error('npm run canary: no network here (DNS does not resolve), so the canaries cannot reach the platforms. Nothing was run.');
    return 2;
  }
  const runs = await runCanaries(logger, { load: operationScraper, record: false });
  const rows = runs.map((r) => [r.operation, r.result + (r.code ? ` ${r.code}` : ''), String(r.ms), String(r.upstreamCalls), [...r.missing.map((m) => `missing ${m}`), ...r.newlyNull.map((n) => `null ${n}`)].join(', ') || (r.message ?? '')]);
  const head = ['operation', 'result', 'ms', 'calls', 'fields / cause'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ');
  console.log(line(head));
  for (const row of rows) console.log(line(row));
  const failed = runs.filter((r) => r.result === 'failed');
  if (failed.length && failed.every((r) => r.code === 'PLATFORM_UNAVAILABLE')) console.error('Every canary that ran failed to reach its platform: is this machine offline?');
  return failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
