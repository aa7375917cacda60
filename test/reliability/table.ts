import { DeleteCommand, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { cacheKey } from '../../shared/result-cache';
import { config } from '../../shared/runtime/config';
import { db } from '../../shared/db/client';
import { routedOperations, type Operation } from '../../shared/operations';
import { validateQuery } from '../../shared/http/validation';
import { scenarios, type Query, type Scenario } from '../contract/scenarios';
import type { Harness } from '../support/harness';

/**
 * The reliability suites are driven by the operation table: every routed operation, with the
 * contract scenario that says which fake upstream routes make which query succeed. An operation
 * made live later (status 'live' + its contract scenario) is covered with no new test code.
 */
export interface LiveOp {
  op: Operation;
  scenario: Scenario;
}

export function liveOps(): LiveOp[] {
  return routedOperations().map((op) => {
    const scenario = scenarios[op.id as keyof typeof scenarios];
    if (!scenario) throw new Error(`routed operation ${op.id} has no contract scenario (test/contract/scenarios.ts)`);
    return { op, scenario };
  });
}

/** The cache key the pipeline uses for `query` (normalized parameters, cache_max_age aside). */
export function cacheKeyOf(op: Operation, query: Query): string {
  const { cache_max_age: _ignored, ...rest } = query;
  const { values } = validateQuery({ params: op.params, oneOf: op.oneOf }, rest);
  return cacheKey(op.id, values as Record<string, unknown>);
}

export async function cachedItem(op: Operation, query: Query): Promise<Record<string, unknown> | undefined> {
  const res = await db().send(new GetCommand({ TableName: config.cacheTable, Key: { pk: cacheKeyOf(op, query) }, ConsistentRead: true }));
  return res.Item;
}

export async function dropCached(op: Operation, query: Query): Promise<void> {
  await db().send(new DeleteCommand({ TableName: config.cacheTable, Key: { pk: cacheKeyOf(op, query) } }));
}

/**
 * The upstream paths the scenario's success query really uses, in the order first asked, learnt
 * by running it once (its cache entry is then removed, so later requests are live).
 */
export async function successPaths(h: Harness, { op, scenario }: LiveOp, key: string): Promise<string[]> {
  h.fake.reset();
  scenario.routes(h.fake);
  const res = await h.call(op.path, scenario.query, { key });
  if (res.status !== 200) throw new Error(`${op.id}: the scenario's success query gave ${res.status} ${JSON.stringify(res.body)}`);
  const paths = [...new Set(h.fake.requests.map((r) => r.path))];
  await dropCached(op, scenario.query);
  h.fake.reset();
  return paths;
}

/**
 * A fresh deployment: the upstream credentials every container shares (guest tokens, bundle
 * tokens, CRED# items of the cache table) are gone, so a cold function obtains them again and
 * asks the paths that give them.
 */
export async function forgetSharedCredentials(): Promise<void> {
  const res = await db().send(new ScanCommand({ TableName: config.cacheTable, FilterExpression: 'begins_with(pk, :p)', ExpressionAttributeValues: { ':p': 'CRED#' }, ProjectionExpression: 'pk' }));
  for (const item of res.Items ?? []) await db().send(new DeleteCommand({ TableName: config.cacheTable, Key: { pk: item.pk } }));
}
