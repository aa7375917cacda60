import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';

/**
 * One DynamoDB document client per process. DYNAMODB_ENDPOINT points it at DynamoDB Local.
 * Every call is counted, so the benchmark reports DynamoDB calls per request from real traffic.
 */
let doc: DynamoDBDocumentClient | undefined;
let raw: DynamoDBClient | undefined;
let calls = 0;

/** The low-level client, for table administration (local set-up, tests). */
export function rawDb(): DynamoDBClient {
  db();
  return raw as DynamoDBClient;
}

export function db(): DynamoDBDocumentClient {
  if (doc) return doc;
  const endpoint = config.dynamoEndpoint;
  raw = new DynamoDBClient({
    region: config.region,
    ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    maxAttempts: 3,
    // Bounded attempts: a hung or unreachable endpoint becomes an error (503 SERVICE_UNAVAILABLE) in
    // seconds instead of holding the request until the function times out.
    requestHandler: { connectionTimeout: config.dynamoConnectTimeoutMs, requestTimeout: config.dynamoTimeoutMs, throwOnRequestTimeout: true },
  });
  raw.middlewareStack.add(
    (next) => async (args) => {
      calls += 1;
      return next(args);
    },
    { step: 'initialize', name: 'countCalls' },
  );
  doc = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  return doc;
}

export const dynamoCallCount = () => calls;

/** Errors of the database itself (throttling, outage) are our capacity problem, not the caller's. */
export function isConditionalFailure(err: unknown): boolean {
  const name = (err as { name?: string })?.name;
  return name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException';
}
