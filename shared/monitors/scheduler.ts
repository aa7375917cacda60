import pLimit from 'p-limit';
import { operation } from '../operations';
import type { Log } from '../runtime/log';
import { attempt } from './deliver';
import { POLLS_PER_PLATFORM } from '../api/monitor-kinds';
import { type Invoke, pollMonitor } from './poll';
import { type DueMonitor, dueDeliveries, dueMonitors } from './store';

/** The platform whose upstream a monitor's polls reach (each platform has its own bound and, deployed, its own queue). */
export const platformOf = (m: Pick<DueMonitor, 'operation'>) => operation(m.operation).platform;

/**
 * "Run due work now": every monitor whose poll is due (at most POLLS_PER_PLATFORM of one platform at
 * once, the platforms side by side), then every delivery whose attempt is due. The local scheduler
 * (dev/monitors.ts) calls it every few seconds; tests call it with their own clock. A poll's own
 * deliveries are attempted in the same run.
 */
export async function runDue(now: number, log: Log, invoke: Invoke): Promise<{ polls: number; attempts: number }> {
  const monitors = await dueMonitors(now);
  const limits = new Map<string, ReturnType<typeof pLimit>>();
  const limitOf = (platform: string) => limits.get(platform) ?? limits.set(platform, pLimit(POLLS_PER_PLATFORM)).get(platform)!;
  await Promise.all(
    monitors.map((m) =>
      limitOf(platformOf(m))(() => pollMonitor(m, now, log, invoke)).catch((err) => log.error('monitor poll crashed', { monitorId: m.monitorId, error: (err as Error).message })),
    ),
  );
  const deliveries = await dueDeliveries(now);
  await Promise.all(
    deliveries.map((d) => attempt(d.teamId, d.monitorId, d.eventId, now, log).catch((err) => log.error('delivery crashed', { eventId: d.eventId, error: (err as Error).message }))),
  );
  return { polls: monitors.length, attempts: deliveries.length };
}
