import type { Scraper } from '../shared/scrape/scraper';
import { logger } from '../shared/runtime/log';
import type { Operation } from '../shared/operations';
import { runCanaries } from '../shared/status/canary';
import { loadSecrets } from '../shared/runtime/secrets';

/**
 * An operation's scraper from its own entry, functions/<id>.ts (`scraper`): every id starts with its
 * platform, so the template names exactly the files functions/*-*.ts, as functions/mcp.ts does.
 */
export async function operationScraper(op: Operation): Promise<Scraper<unknown, unknown>> {
  const entry = (await import(`./${op.platform}-${op.id.slice(op.platform.length + 1)}.ts`)) as { scraper: () => Promise<Scraper<unknown, unknown>> };
  return entry.scraper();
}

// The scheduled canaries (EventBridge, every 10 minutes by default): every routed operation once,
// recorded for GET /v1/status and measured for the alarms. No team, no credit, no ledger.
export const handler = async (): Promise<{ ok: number; drift: number; failed: number; noInput: number }> => {
  const log = logger.createChild({ persistentKeys: { operation: 'canary' } });
  // The operations' secrets (the cursor key, the proxy URL), read as their functions read them.
  await loadSecrets();
  const runs = await runCanaries(log, { load: operationScraper });
  for (const run of runs) log[run.result === 'failed' ? 'warn' : 'info']('canary', { ...run });
  const count = (r: string) => runs.filter((x) => x.result === r).length;
  return { ok: count('ok'), drift: count('drift'), failed: count('failed'), noInput: count('no input') };
};
