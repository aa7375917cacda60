import pLimit from 'p-limit';
import { operation } from '../operations';
import type { Log } from '../runtime/log';
import { attempt } from './deliver';
import { platformLimit } from '../api/platform-bound';
import { reconcileCredits } from '../webhooks/credits';
import { type BuildStatus, watchStatus } from '../webhooks/status-watch';
import { type Invoke, pollMonitor } from './poll';
import { type DueMonitor, dueDeliveries, dueMonitors } from './store';

/** The platform whose upstream a monitor's polls reach (each platform has its own bound and, deployed, its own queue). */
export const platformOf = (m: Pick<DueMonitor, 'operation'>) => operation(m.operation).platform;

/**
 * Attempts of one team's deliveries in flight at once, at most (in the local scheduler and in each
 * delivery worker invocation): one team's slow or failing receiver (10 s per attempt at worst) holds
 * only its own share, never other teams' deliveries. 5: a delivery worker's batch of 10 of one team
 * takes at most 2 × 10 s, inside its 30 s timeout.
 */
export const DELIVERIES_PER_TEAM = 5;

/** A p-limit per key (a platform, a team), made on first use. */
export function limiterBy(concurrency: number): (key: string) => ReturnType<typeof pLimit> {
  const limits = new Map<string, ReturnType<typeof pLimit>>();
  return (key) => limits.get(key) ?? limits.set(key, pLimit(concurrency)).get(key)!;
}

/**
 * The account events' minute checks (shared/webhooks/): a credits crossing a crash left unannounced,
 * a change of an operation's public status. The tick runs them every minute on AWS
 * (shared/monitors/aws.ts), the local scheduler beside runDue; each failing alone, logged. The public
 * status document's builder is handed in (shared/status/page.ts buildStatus: another entry point).
 */
export async function runMinuteChecks(now: number, log: Log, buildStatus: BuildStatus): Promise<void> {
  await Promise.all([
    reconcileCredits(log, now).catch((err) => log.error('credits reconcile failed', { error: (err as Error).message })),
    watchStatus(now, buildStatus, log).catch((err) => log.error('status watch failed', { error: (err as Error).message })),
  ]);
}

/**
 * "Run due work now": every monitor whose poll is due (at most POLLS_PER_PLATFORM of one platform at
 * once, jobs' inputs included, the platforms side by side), then every delivery whose attempt is due. The local scheduler
 * (dev/monitors.ts) calls it every few seconds; tests call it with their own clock. A poll's own
 * deliveries are attempted in the same run, at most DELIVERIES_PER_TEAM of one team at once.
 */
export async function runDue(now: number, log: Log, invoke: Invoke): Promise<{ polls: number; attempts: number }> {
  const monitors = await dueMonitors(now);
  await Promise.all(
    monitors.map((m) =>
      // The platform's one bound in this process, shared with bulk jobs' inputs (shared/api/platform-bound.ts).
      platformLimit(platformOf(m))(() => pollMonitor(m, now, log, invoke)).catch((err) => log.error('monitor poll crashed', { monitorId: m.monitorId, error: (err as Error).message })),
    ),
  );
  const deliveries = await dueDeliveries(now);
  const teamLimit = limiterBy(DELIVERIES_PER_TEAM);
  await Promise.all(
    deliveries.map((d) => teamLimit(d.teamId)(() => attempt(d.teamId, d.monitorId, d.eventId, now, log)).catch((err) => log.error('delivery crashed', { eventId: d.eventId, error: (err as Error).message }))),
  );
  return { polls: monitors.length, attempts: deliveries.length };
}
