import { rmSync } from 'node:fs';
import type { LocalDynamo } from '../../dev/dynamo';

export default async function globalTeardown() {
  await (globalThis as { __DYNAMO__?: LocalDynamo }).__DYNAMO__?.stop();
  for (const dir of [process.env.STACK_TEMPLATE_CACHE, process.env.CLI_BUNDLE_DIR]) if (dir) rmSync(dir, { recursive: true, force: true });
}
