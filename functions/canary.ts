import { logger } from '../shared/log';
import { runCanaries } from '../shared/status/canary';

// The scheduled canaries (EventBridge, every 10 minutes by default): every routed operation once,
// recorded for GET /v1/status and measured for the alarms. No team, no credit, no ledger.
export const handler = async (): Promise<{ ok: number; drift: number; failed: number; noInput: number }> => {
  const log = logger.createChild({ persistentKeys: { operation: 'canary' } });
  const runs = await runCanaries(log);
  for (const run of runs) log[run.result === 'failed' ? 'warn' : 'info']('canary', { ...run });
  const count = (r: string) => runs.filter((x) => x.result === r).length;
  return { ok: count('ok'), drift: count('drift'), failed: count('failed'), noInput: count('no input') };
};
