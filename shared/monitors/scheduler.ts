import type { Log } from '../runtime/log';
import { attempt } from './deliver';
import { type Invoke, pollMonitor } from './poll';
import { dueDeliveries, dueMonitors } from './store';

/**
 * "Run due work now": every monitor whose poll is due, then every delivery whose attempt is due.
 * The local scheduler (dev/monitors.ts) calls it every few seconds; tests call it with their own
 * clock. A poll's own deliveries are attempted in the same run.
 */
export async function runDue(now: number, log: Log, invoke: Invoke): Promise<{ polls: number; attempts: number }> {
  const monitors = await dueMonitors(now);
  for (const m of monitors) {
    try {
      await pollMonitor(m.teamId, m.monitorId, now, log, invoke);
    } catch (err) {
      log.error('monitor poll crashed', { monitorId: m.monitorId, error: (err as Error).message });
    }
  }
  const deliveries = await dueDeliveries(now);
  await Promise.all(
    deliveries.map((d) => attempt(d.teamId, d.monitorId, d.eventId, now, log).catch((err) => log.error('delivery crashed', { eventId: d.eventId, error: (err as Error).message }))),
  );
  return { polls: monitors.length, attempts: deliveries.length };
}
