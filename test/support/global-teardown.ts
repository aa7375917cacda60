import type { LocalDynamo } from '../../dev/dynamo';

export default async function globalTeardown() {
  await (globalThis as { __DYNAMO__?: LocalDynamo }).__DYNAMO__?.stop();
}
