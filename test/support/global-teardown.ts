import { rmSync } from 'node:fs';
import type { LocalDynamo } from '../../dev/dynamo';

export default async function globalTeardown() {
  await (globalThis as { __DYNAMO__?: LocalDynamo }).__DYNAMO__?.stop();
  if (process.env.STACK_TEMPLATE_CACHE) rmSync(process.env.STACK_TEMPLATE_CACHE, { recursive: true, force: true });
}
