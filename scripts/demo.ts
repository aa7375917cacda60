/**
 * `npm run demo`: the local API answered from recorded data, offline (dev/demo.ts). DynamoDB Local
 * runs in memory (a new team and key each run); PORT (default 3000) and HOST as for `npm start`.
 */
import { localEnvironment } from '../dev/env';
import { dashboardLine, stopOnSignal } from './local';

async function main() {
  localEnvironment('WARN');
  const { DEMO_MEMBER, demoBanner, startDemo } = await import('../dev/demo');
  const port = Number(process.env.PORT || 3000);
  const demo = await startDemo({ gateway: { port, host: process.env.HOST || '127.0.0.1' } });
  stopOnSignal(demo.stack.stop);
  process.stdout.write(demoBanner(demo, await dashboardLine(`http://localhost:${port}`, demo.teamId, DEMO_MEMBER)) + '\n');
}

main().catch((err) => {
  process.stderr.write(`npm run demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
