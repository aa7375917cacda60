import { startDynamoLocal, type LocalDynamo } from '../../dev/dynamo';

/** One DynamoDB Local for the whole run; each test file gets tables of its own (per-file-env.ts). */
export default async function globalSetup() {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const dynamo = await startDynamoLocal();
  (globalThis as { __DYNAMO__?: LocalDynamo }).__DYNAMO__ = dynamo;
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
}
