import type { LocalDynamo } from '../../shared/local/dynamo';

export default async function globalTeardown() {
  await (globalThis as { __DYNAMO__?: LocalDynamo }).__DYNAMO__?.stop();
}
