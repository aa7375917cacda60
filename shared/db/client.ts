import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, type QueryCommandInput, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { config } from '../runtime/config';
import { TEAM_INDEX, teamPk } from './tables';

/**
 * One DynamoDB document client per process. DYNAMODB_ENDPOINT points it at DynamoDB Local.
 * Every call is counted, so the benchmark reports DynamoDB calls per request from real traffic.
 */
let doc: DynamoDBDocumentClient | undefined;
let raw: DynamoDBClient | undefined;
let calls = 0;
/** Calls in flight, and how many times a call started while none was: sequential round trips. */
let inFlight = 0;
let trips = 0;

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
  // The SDK's logger middleware filters every input and output for its no-op logger (the filter
  // walks the whole item against the schema): work for nothing, on every call. We log ourselves.
  raw.middlewareStack.remove('loggerMiddleware');
  raw.middlewareStack.add(
    (next) => async (args) => {
      calls += 1;
      if (inFlight === 0) trips += 1;
      inFlight += 1;
      try {
        return await next(args);
      } finally {
        inFlight -= 1;
      }
    },
    { step: 'initialize', name: 'countCalls' },
  );
  doc = DynamoDBDocumentClient.from(raw, { marshallOptions: { removeUndefinedValues: true } });
  return doc;
}

export const dynamoCallCount = () => calls;
/**
 * Sequential DynamoDB round trips so far: a call that starts while another is in flight runs beside
 * it and adds none (the SDK's own retries of a call are inside it). Meaningful for one request at a
 * time, as the benchmark sends them.
 */
export const dynamoRoundTripCount = () => trips;

/**
 * The UpdateItem input that writes `item` whole, as PutItem would, with UpdateItem: every attribute
 * but the key SET (undefined ones left out), and each of `absent` (attributes an earlier version of
 * the item may carry and this one does not) that `item` lacks REMOVEd. The functions that parse
 * hostile pages have no PutItem on the accounts table: a Put replaces whatever item has the key, a
 * team item too, and could drop its attributes (name, usage key) that an UpdateItem may not name.
 * `condition` (its own placeholders, names and values) says which existing item the update may change.
 */
export function itemUpdate(
  tableName: string,
  item: Record<string, unknown>,
  opts: { absent?: readonly string[]; condition?: { expression: string; names?: Record<string, string>; values?: Record<string, unknown> } } = {},
) {
  const keyNames = ['pk', 'sk'];
  const Key = Object.fromEntries(keyNames.map((k) => [k, item[k]]));
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const set: string[] = [];
  const remove: string[] = [];
  for (const [name, value] of Object.entries(item)) {
    if (keyNames.includes(name) || value === undefined) continue;
    const i = set.length;
    names[`#s${i}`] = name;
    values[`:s${i}`] = value;
    set.push(`#s${i} = :s${i}`);
  }
  for (const name of opts.absent ?? []) {
    if (item[name] !== undefined) continue;
    const i = remove.length;
    names[`#r${i}`] = name;
    remove.push(`#r${i}`);
  }
  if (!set.length) throw new Error('itemUpdate: an item without attributes besides its key');
  return {
    TableName: tableName,
    Key,
    UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
    ...(opts.condition ? { ConditionExpression: opts.condition.expression } : {}),
    ExpressionAttributeNames: { ...names, ...(opts.condition?.names ?? {}) },
    ExpressionAttributeValues: { ...values, ...(opts.condition?.values ?? {}) },
  };
}

/** Errors of the database itself (throttling, outage) are our capacity problem, not the caller's. */
export function isConditionalFailure(err: unknown): boolean {
  const name = (err as { name?: string })?.name;
  return name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException';
}

/** Runs a conditional write: false when its condition failed (another request changed the item first), other errors thrown. */
export async function conditionally(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
}

/**
 * The items of `keys` in one table (BatchGetItem, 100 keys a call): the keys DynamoDB leaves
 * unprocessed asked again after a growing wait, at most 8 times, then an error. Items come back in
 * no particular order; a key without an item has none.
 */
export async function batchGetAll(table: string, keys: Record<string, unknown>[], opts: { consistent?: boolean; projection?: string } = {}): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < keys.length; i += 100) {
    let ask = keys.slice(i, i + 100);
    for (let round = 0; ask.length; round++) {
      if (round > 8) throw new Error(`${table}: ${ask.length} keys left unprocessed`);
      if (round) await new Promise((r) => setTimeout(r, 20 * 2 ** round));
      const res = await db().send(new BatchGetCommand({ RequestItems: { [table]: { Keys: ask, ...(opts.consistent ? { ConsistentRead: true } : {}), ...(opts.projection ? { ProjectionExpression: opts.projection } : {}) } } }));
      out.push(...(res.Responses?.[table] ?? []));
      ask = (res.UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
    }
  }
  return out;
}

/** Every item a query finds, all its pages (the document client's paginator). */
export async function queryAll(input: QueryCommandInput): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  for await (const page of paginateQuery({ client: db() }, input)) out.push(...(page.Items ?? []));
  return out;
}

/**
 * Every item of a team under one sort-key prefix of the byTeam index (KEY_PREFIX, 'MEMBER#'), all pages,
 * optionally narrowed by a filter on the items' own attributes.
 */
export function teamItems(teamId: string, prefix: string, filter?: { expression: string; values: Record<string, unknown> }): Promise<Record<string, unknown>[]> {
  return queryAll({
    TableName: config.accountsTable,
    IndexName: TEAM_INDEX.name,
    KeyConditionExpression: '#p = :p AND begins_with(#s, :prefix)',
    ...(filter ? { FilterExpression: filter.expression } : {}),
    ExpressionAttributeNames: { '#p': TEAM_INDEX.partitionKey, '#s': TEAM_INDEX.sortKey },
    ExpressionAttributeValues: { ':p': teamPk(teamId), ':prefix': prefix, ...(filter?.values ?? {}) },
  });
}

/** Every item of a team's own partition whose sort key lies between `from` and `to` (inclusive), all pages. */
export function teamRange(teamId: string, from: string, to: string): Promise<Record<string, unknown>[]> {
  return queryAll({
    TableName: config.accountsTable,
    KeyConditionExpression: 'pk = :p AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':p': teamPk(teamId), ':from': from, ':to': to },
  });
}

/**
 * Our own retries of a write that must not be lost (a reservation, a refund, a settle), past the
 * SDK's (whose retry quota runs dry exactly during a brown-out): `again(n)` says whether attempt n
 * may run, after a jittered backoff (so attempts that met part); attempt 0 always runs. Bounded in
 * count and in time: each attempt is already retried by the SDK with its own timeouts.
 */
export function retryPolicy({ attempts = 3, baseDelayMs = 50, budgetMs = 2 * config.dynamoTimeoutMs } = {}) {
  const started = Date.now();
  return async (attempt: number): Promise<boolean> => {
    if (attempt === 0) return true;
    if (attempt >= attempts || Date.now() - started > budgetMs) return false;
    await new Promise((r) => setTimeout(r, baseDelayMs * 3 ** (attempt - 1) * (0.5 + Math.random() / 2)));
    return true;
  };
}
