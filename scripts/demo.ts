/**
 * `npm run demo`: the local API answered from recorded data, offline (dev/demo.ts). DynamoDB Local
 * runs in memory (a new team and key each run); PORT (default 3000) and HOST as for `npm start`.
 */
import { localEnvironment } from '../dev/env';
import { dashboardLine, stopOnSignal } from './local';

async function main() {
  localEnvironment('WARN');
  // Monitors (docs/monitors.md): local runs may deliver to http://127.0.0.1 and poll every 10 s.
  process.env.WEBHOOK_ALLOW_LOOPBACK ??= '1';
  process.env.MONITOR_MIN_INTERVAL_SECONDS ??= '10';
  const { DEMO_MEMBER, demoBanner, startDemo } = await import('../dev/demo');
  const port = Number(process.env.PORT || 3000);
  const demo = await startDemo({ gateway: { port, host: process.env.HOST || '127.0.0.1' } });
  const { growingFeed } = await import('../dev/monitors-demo');
  const { startMonitorScheduler, monitorExample, webhookExample } = await import('../dev/monitors');
  growingFeed(demo.stack.upstream!);
  const scheduler = startMonitorScheduler();
  stopOnSignal(async () => (scheduler.stop(), demo.stack.stop()));
  process.stdout.write(demoBanner(demo, await dashboardLine(`http://localhost:${port}`, demo.teamId, DEMO_MEMBER)) + '\n');
  process.stdout.write(monitorExample(demo.stack.gateway.url, demo.key, { operation: 'microblog-a-user-posts', params: demo.examples.find((e) => e.path === '/v1/microblog-a/user/posts')?.query ?? {}, intervalSeconds: 15 }) + '\n');
  process.stdout.write(webhookExample(demo.stack.gateway.url, demo.key) + '\n');
}

main().catch((err) => {
  process.stderr.write(`npm run demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
