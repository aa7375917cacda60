import { invokeInProcess } from './invoke';
import { runDue, runMinuteChecks } from '../shared/monitors/scheduler';
import { buildStatus } from '../shared/status/page';
import { logger } from '../shared/runtime/log';

/** The in-process invoker of the polls and deliveries (dev/invoke.ts), also the tests'. */
export { invokeInProcess };

/**
 * The local, in-process scheduler of `npm start` and `npm run demo`: the same scheduling and
 * delivery code the deployed workers run (shared/monitors/scheduler.ts), on DynamoDB Local,
 * checking for due polls and deliveries every MONITOR_TICK_MS (default 5 s, at most 10 s).
 */
export function startMonitorScheduler(tickMs = Math.min(10_000, Number(process.env.MONITOR_TICK_MS) || 5_000)): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    const now = Date.now();
    Promise.all([runDue(now, logger, invokeInProcess), runMinuteChecks(now, logger, buildStatus)])
      .catch((err) => logger.warn('monitor tick failed', { error: (err as Error).message }))
      .finally(() => (running = false));
  }, tickMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Where `npm run webhook-receiver` listens by default (its PORT changes it; the demo's example follows WEBHOOK_RECEIVER_URL). */
export const DEFAULT_RECEIVER_URL = 'http://127.0.0.1:4000/webhook';

/**
 * The lines `npm run demo` prints, to be pasted as they are: start the receiver (on the port of the
 * webhook URL), then create a monitor pointing at it, the answer piped to the receiver's add-secret,
 * which keeps the signing secret (shown once) in .local/webhook-secrets, where the running receiver
 * reads it at its next delivery. Run the second line again for another monitor: no restart.
 */
export function monitorExample(base: string, key: string, m: { operation: string; params: Record<string, string>; intervalSeconds: number }, receiverUrl = process.env.WEBHOOK_RECEIVER_URL || DEFAULT_RECEIVER_URL): string {
  const body = JSON.stringify({ ...m, webhookUrl: receiverUrl });
  const port = new URL(receiverUrl).port;
  return [
    'Monitors (docs/monitors.md): in a second terminal start a receiver, then in a third create a monitor; the demo feed gains a post every 30 s:',
    '',
    `  ${port && port !== '4000' ? `PORT=${port} ` : ''}npm run webhook-receiver`,
    `  curl -s -X POST -H "x-api-key: ${key}" -H "content-type: application/json" "${base}/v1/monitors" -d '${body}' | npm run -s webhook-receiver -- add-secret`,
    '',
    'The curl prints the new monitor, and add-secret keeps its signing secret (shown once) in .local/webhook-secrets (mode 0600),',
    'which the running receiver reads at each delivery: it verifies the signatures and prints monitor.ready, then items.new.',
    'Run the curl line again for a second monitor: the receiver verifies both, no restart.',
    '',
  ].join('\n');
}

/**
 * The lines `npm run demo` prints for the team's account events (docs/webhooks.md), after the
 * monitor's: with the same receiver running, an endpoint for them, its secret kept by add-secret;
 * then what makes each event arrive.
 */
export function webhookExample(base: string, key: string, receiverUrl = process.env.WEBHOOK_RECEIVER_URL || DEFAULT_RECEIVER_URL): string {
  const body = JSON.stringify({ url: receiverUrl, types: ['key.created', 'key.revoked', 'member.removed', 'credits.low', 'credits.exhausted', 'operation.degraded', 'operation.recovered'] });
  const auth = `-H "x-api-key: ${key}" -H "content-type: application/json"`;
  return [
    'Account events (docs/webhooks.md): with the receiver running, create a webhook endpoint for them:',
    '',
    `  curl -s -X POST ${auth} "${base}/v1/webhooks" -d '${body}' | npm run -s webhook-receiver -- add-secret`,
    '',
    'Then create and revoke a key on the dashboard\'s Keys page: key.created and key.revoked arrive verified within seconds.',
    'credits.low: set the threshold one under your balance (GET /v1/account/credits), then make one live request:',
    '',
    `  curl -s -X PATCH ${auth} "${base}/v1/webhooks/settings" -d '{"creditsLowThreshold": <balance>}'`,
    '',
    'The receiver prints each event (signature ok); `social-data webhooks deliveries <id>` and the dashboard\'s Webhooks page show them.',
    '',
  ].join('\n');
}
