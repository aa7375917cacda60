import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { brotliCompressSync } from 'node:zlib';
import { ConfiguredRetryStrategy } from '@smithy/core/retry';
import { freePort } from '../../dev/dynamo';
import { config } from '../../shared/runtime/config';
import { balance } from '../../shared/accounting/teams';
import { ledger } from '../../shared/accounting/ledger';
import { usage } from '../../shared/accounting/usage';
import { requestHistory } from '../../shared/accounting/request-history';
import { db, rawDb } from '../../shared/db/client';
import { startBlackhole, type Blackhole } from '../support/blackhole';
import { startHarness, type Harness } from '../support/harness';
import { LogCapture } from '../support/logs';
import { cachedItem, cacheKeyOf, dropCached, liveOps, type LiveOp } from './table';

/**
 * DynamoDB failing during each step of a request: throttling, a hung endpoint (timeout), an
 * endpoint that refuses connections or answers 503. The fault is injected below the SDK's retry
 * middleware, so every attempt meets it, by sending the chosen command to a fault endpoint: the
 * SDK's own parsing, retries and timeouts run as in production. After every fault the balance has
 * dropped by exactly what was delivered, and the ledger says the same.
 */

/**
 * A short request timeout, for the requests sent to the hung endpoints only (the SDK's own timeout,
 * passed per request to its HTTP handler): every other DynamoDB call keeps the service's limits, so a
 * busy machine cannot turn a healthy call into a timeout.
 */
const FAULT_TIMEOUT_MS = 250;

/**
 * The SDK's own retry strategy, the same attempts and retry quota, with short waits between attempts
 * (the SDK waits 100 ms, or 500 ms after throttling, doubling, in the service): this file proves
 * how many attempts are made and what each outcome costs, not how long the SDK waits.
 */
const SHORT_SDK_BACKOFF_MS = 10;

type Step = 'key lookup' | 'key touch' | 'cache read' | 'reservation' | 'settle' | 'refund';
/** timeout: the connection never opens; no answer: it opens, the request is sent, nothing comes back. */
type Fault = 'ProvisionedThroughputExceededException' | 'ThrottlingException' | 'timeout' | 'no answer' | 'connection refused' | 'endpoint answers 503' | 'answer lost after the write' | 'transaction conflict';

interface Marshalled {
  TableName?: string;
  Key?: { pk?: { S?: string } };
  ConditionExpression?: string;
  UpdateExpression?: string;
  RequestItems?: Record<string, unknown>;
  TransactItems?: unknown[];
}

function isStep(step: Step, command: string, input: Marshalled): boolean {
  switch (step) {
    case 'key lookup':
      return command === 'GetItemCommand' && input.TableName === config.accountsTable && !!input.Key?.pk?.S?.startsWith('KEY#');
    case 'key touch':
      return command === 'UpdateItemCommand' && /lastUsedAt/.test(input.UpdateExpression ?? '');
    case 'cache read':
      return command === 'GetItemCommand' && input.TableName === config.cacheTable;
    case 'reservation':
      return command === 'UpdateItemCommand' && /credits >= :cost/.test(input.ConditionExpression ?? '');
    case 'settle':
      return command === 'TransactWriteItemsCommand' && JSON.stringify(input.TransactItems ?? []).includes('"LEDGER#');
    case 'refund':
      return command === 'UpdateItemCommand' && /credits \+ :cost/.test(input.UpdateExpression ?? '');
  }
}

interface Armed {
  step: Step;
  fault: Fault;
  /** Fault only this many attempts of the step (default: every attempt). */
  times?: number;
}
let armed: Armed[] = [];
let hits = 0;
let faultPort = 0;
let refusedPort = 0;
let blackhole: Blackhole;
let faultServer: http.Server;
let faultMode: Fault = 'ThrottlingException';
let silentServer: http.Server;
let silentPort = 0;

const TYPE: Partial<Record<Fault, [number, string]>> = {
  ProvisionedThroughputExceededException: [400, 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException'],
  ThrottlingException: [400, 'com.amazon.coral.availability#ThrottlingException'],
  'endpoint answers 503': [503, 'com.amazon.coral.availability#ServiceUnavailableException'],
  // What DynamoDB answers a transaction that touches an item another transaction is writing.
  'transaction conflict': [400, 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException'],
};
const CONFLICT_REASONS = [{ Code: 'None' }, { Code: 'TransactionConflict', Message: 'Transaction is ongoing for the item' }, { Code: 'None' }];

const OPS = liveOps();
let h: Harness;
const logs = new LogCapture();

beforeAll(async () => {
  h = await startHarness();
  blackhole = await startBlackhole();
  refusedPort = await freePort();
  faultServer = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const [status, type] = TYPE[faultMode] ?? [500, 'com.amazonaws.dynamodb.v20120810#InternalServerError'];
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': 'FAULT' });
      res.end(JSON.stringify({ __type: type, message: `injected ${faultMode}`, ...(faultMode === 'transaction conflict' ? { CancellationReasons: CONFLICT_REASONS } : {}) }));
    });
  });
  await new Promise<void>((r) => faultServer.listen(0, '127.0.0.1', r));
  faultPort = (faultServer.address() as AddressInfo).port;
  // Accepts the connection and the request, never answers.
  silentServer = http.createServer(() => undefined);
  await new Promise<void>((r) => silentServer.listen(0, '127.0.0.1', r));
  silentPort = (silentServer.address() as AddressInfo).port;

  const handler = rawDb().config.requestHandler as unknown as {
    handle(request: { port?: number }, options?: { requestTimeout?: number; abortSignal?: unknown }): Promise<unknown>;
  };
  const handle = handler.handle.bind(handler);
  const strategy = new ConfiguredRetryStrategy(3, SHORT_SDK_BACKOFF_MS);
  (rawDb().config as unknown as { retryStrategy: () => Promise<unknown> }).retryStrategy = async () => strategy;
  handler.handle = (request, options = {}) =>
    handle(request, request.port === blackhole.port || request.port === silentPort ? { ...options, requestTimeout: FAULT_TIMEOUT_MS } : options);

  rawDb().middlewareStack.addRelativeTo(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the finalize step's arguments are loosely typed
    (next: any, context: any) => async (args: any) => {
      const match = armed.find((a) => isStep(a.step, context.commandName, args.input as Marshalled) && (a.times === undefined || a.times > 0));
      if (!match) return next(args);
      if (match.times !== undefined) match.times -= 1;
      hits += 1;
      if (match.fault === 'answer lost after the write') {
        await next(args);
        throw Object.assign(new Error('socket hang up after the request was sent'), { name: 'TimeoutError', code: 'ECONNRESET' });
      }
      // A copy: the retry middleware hands the same arguments to every attempt, and a later attempt
      // that is not faulted must reach the real endpoint.
      const original = args.request as { hostname: string; port?: number; protocol: string };
      const request = Object.assign(Object.create(Object.getPrototypeOf(original)), original, {
        protocol: 'http:',
        hostname: '127.0.0.1',
        port: match.fault === 'timeout' ? blackhole.port : match.fault === 'no answer' ? silentPort : match.fault === 'connection refused' ? refusedPort : faultPort,
      });
      faultMode = match.fault;
      return next({ ...args, request });
    },
    { relation: 'after', toMiddleware: 'retryMiddleware', name: 'injectDatabaseFault', override: true },
  );
  logs.start();
});

afterAll(async () => {
  armed = [];
  logs.stop();
  await blackhole.stop();
  await new Promise<void>((r) => faultServer.close(() => r()));
  silentServer.closeAllConnections();
  await new Promise<void>((r) => silentServer.close(() => r()));
  await h.stop();
});

const STEPS: Step[] = ['key lookup', 'key touch', 'cache read', 'reservation', 'settle'];
const FAULTS: Fault[] = ['ProvisionedThroughputExceededException', 'ThrottlingException', 'timeout', 'no answer', 'connection refused', 'endpoint answers 503'];

/**
 * The write-side cases below do not depend on the operation (one pipeline, one ledger): each runs on
 * every `every`-th routed operation from `offset`, so together the cases still reach every
 * operation, at a third (or a quarter) of the cost of running each on all of them.
 */
const spread = (offset: number, every: number): LiveOp[] => OPS.filter((_live, i) => (i + offset) % every === 0);

const cases: [string, Step, Fault, LiveOp][] = [];
let i = 0;
for (const step of STEPS) for (const fault of FAULTS) cases.push([`${step} / ${fault}`, step, fault, OPS[i++ % OPS.length]!]);

async function faultyCall(live: LiveOp, step: Step, fault: Fault, key: string, also: Armed[] = [], times?: number) {
  h.fake.reset();
  live.scenario.routes(h.fake);
  await dropCached(live.op, live.scenario.query);
  hits = 0;
  armed = [{ step, fault, times }, ...also];
  const started = Date.now();
  try {
    return { res: await h.call(live.op.path, { ...live.scenario.query, cache_max_age: '30d' }, { key }), ms: Date.now() - started, hits };
  } finally {
    armed = [];
  }
}

test.each(cases)('%s (%#)', async (_name, step, fault, live) => {
  const { key, teamId } = await h.team(50);
  const before = await balance(teamId);
  const { res, ms, hits: faulted } = await faultyCall(live, step, fault, key);
  expect(faulted).toBeGreaterThan(0);
  // Bounded: a hung or failing step is tried a bounded number of times (the SDK's 3 attempts, times the
  // pipeline's own tries of that step), each ended by the request timeout, so the request ends well
  // before anything waits for the function's own timeout (at the service's 10 s DynamoDB timeout the
  // hung cases alone would take over a minute). A generous bound: a slow machine cannot break it.
  expect(faulted).toBeLessThanOrEqual(9);
  expect(ms).toBeLessThan(30_000);

  const delivered = res.status === 200 && res.body.meta.cached === false ? 1 : 0;
  if (step === 'cache read' || step === 'key touch') {
    // A cache that cannot be read is a miss: the request is served live and charged as one. The key's
    // lastUsedAt is best-effort: failing to write it never fails the request.
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ cached: false, creditsCharged: 1 });
  } else {
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(res.body.error.requestId).toEqual(expect.any(String));
    expect(await cachedItem(live.op, live.scenario.query)).toBeUndefined();
  }
  // No credit lost, none created: granted = ledger + balance; the balance dropped by what was
  // delivered, and the day's usage count agrees. The answer is recorded once (a failed key lookup
  // never reaches the function: nothing to record for a team).
  await expectExact(teamId, before, delivered, step === 'key lookup' ? 0 : 1);
});

/** Credits granted = ledger + balance, what was delivered charged once, and the answer recorded `answers` times. */
async function expectExact(teamId: string, granted: number, delivered: number, answers = 1) {
  const entries = await ledger(teamId);
  expect(entries.reduce((sum, e) => sum + e.credits, 0) + (await balance(teamId))).toBe(granted);
  expect(entries).toHaveLength(delivered);
  expect((await usage(teamId, 1)).totals).toMatchObject({ requests: answers, live: delivered, credits: delivered });
  expect((await requestHistory(teamId, { limit: 10 })).requests).toHaveLength(answers);
}

/** A delivered live answer of a team that had 50 credits: charged, recorded, counted and cached exactly once. */
async function expectSettledOnce(res: Awaited<ReturnType<typeof faultyCall>>['res'], teamId: string, live: LiveOp) {
  expect(res.status).toBe(200);
  expect(res.body.meta).toMatchObject({ creditsCharged: 1, cached: false });
  expect(await balance(teamId)).toBe(49);
  await expectExact(teamId, 50, 1);
  expect(await cachedItem(live.op, live.scenario.query)).toBeDefined();
}

test.each(spread(0, 3).map((l) => [l.op.id, l] as const))('%s: a settle that meets another transaction twice (DynamoDB cancels it) is tried again: charged and counted once', async (_id, live) => {
  const { key, teamId } = await h.team(50);
  const { res, hits: faulted } = await faultyCall(live, 'settle', 'transaction conflict', key, [], 2);
  expect(faulted).toBe(2);
  await expectSettledOnce(res, teamId, live);
});

test.each(spread(1, 3).map((l) => [l.op.id, l] as const))('%s: a settle whose write landed but whose answer was lost is charged once, not given back', async (_id, live) => {
  const { key, teamId } = await h.team(50);
  const { res, hits: faulted } = await faultyCall(live, 'settle', 'answer lost after the write', key);
  expect(faulted).toBeGreaterThan(0);
  // Sent again by the SDK after the lost answer, the write was refused on its ledger record: counted once.
  await expectSettledOnce(res, teamId, live);
});

test.each(spread(2, 3).map((l) => [l.op.id, l] as const))('%s: settle fails and the refund is throttled twice: the credit still comes back', async (_id, live) => {
  const { key, teamId } = await h.team(50);
  const { res } = await faultyCall(live, 'settle', 'connection refused', key, [{ step: 'refund', fault: 'ThrottlingException', times: 2 }]);
  expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  await expectExact(teamId, 50, 0);
});

test.each(spread(3, 3).map((l) => [l.op.id, l] as const))('%s: settle fails and the refund lands but its answer is lost: the credit comes back once, not twice', async (_id, live) => {
  const { key, teamId } = await h.team(50);
  // 4 lost answers: more than the SDK's own attempts, so the refund's own retry sends the update
  // once more; the request's reservation mark is gone by then, so it adds no second credit.
  const { res } = await faultyCall(live, 'settle', 'connection refused', key, [{ step: 'refund', fault: 'answer lost after the write', times: 4 }]);
  expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  await expectExact(teamId, 50, 0);
});

test('settle fails and the refund is refused 3 times (more than the SDK retries once its retry quota is spent): the refund keeps trying', async () => {
  const live = OPS[0]!;
  const { key, teamId } = await h.team(50);
  const { res } = await faultyCall(live, 'settle', 'connection refused', key, [{ step: 'refund', fault: 'connection refused', times: 3 }]);
  expect(res.status).toBe(503);
  expect(await balance(teamId)).toBe(50);
});

test.each(spread(4, 3).map((l) => [l.op.id, l] as const))('%s: a reservation that lands but whose answer is lost (4 times) takes one credit, not two or none', async (_id, live) => {
  const { key, teamId } = await h.team(50);
  const { res } = await faultyCall(live, 'reservation', 'answer lost after the write', key, [], 4);
  expect(res.status).toBe(200);
  expect(res.body.meta).toMatchObject({ creditsCharged: 1, creditsRemaining: 49 });
  await expectExact(teamId, 50, 1);
});

test.each(spread(5, 3).map((l) => [l.op.id, l] as const))('%s: a reservation whose every answer is lost (its outcome unknown, but it landed): 503, and its credit given back', async (_id, live) => {
  const { key, teamId } = await h.team(50);
  // It lands, its answer is lost, and every attempt after it fails: its outcome stays unknown.
  const { res } = await faultyCall(live, 'reservation', 'answer lost after the write', key, [{ step: 'reservation', fault: 'connection refused' }], 1);
  expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
  expect(h.fake.requests).toHaveLength(0);
  await expectExact(teamId, 50, 0);
});

test('a reservation whose outcome is unknown and whose refund fails too: the mark is swept into a refund by a later reservation', async () => {
  const live = OPS[1]!;
  const { key, teamId } = await h.team(50);
  const { res } = await faultyCall(live, 'reservation', 'answer lost after the write', key, [{ step: 'reservation', fault: 'connection refused' }, { step: 'refund', fault: 'connection refused' }], 1);
  expect(res.status).toBe(503);
  // The credit is held by the request's mark, with no ledger record: lost until the sweep.
  expect(await balance(teamId)).toBe(49);
  // Ten minutes later (the mark's time moved back, as a clock would), any reservation of the team sweeps it.
  const item = (await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: `TEAM#${teamId}`, sk: 'TEAM' }, ConsistentRead: true }))).Item!;
  const marks = Object.keys(item).filter((k) => k.startsWith('HOLD#'));
  expect(marks).toHaveLength(1);
  await db().send(
    new UpdateCommand({ TableName: config.accountsTable, Key: { pk: `TEAM#${teamId}`, sk: 'TEAM' }, UpdateExpression: 'SET #m = :t', ExpressionAttributeNames: { '#m': marks[0]! }, ExpressionAttributeValues: { ':t': Date.now() - 11 * 60_000 } }),
  );
  const next = await h.call(live.op.path, { ...live.scenario.query }, { key });
  expect(next.status).toBe(200);
  await expectExact(teamId, 50, 1, 2);
});

describe('a corrupt or undecodable cache item is a miss, not an error', () => {
  const corrupt: [string, (pk: string) => Record<string, unknown>][] = [
    ['body not brotli', (pk) => ({ body: Buffer.from('definitely not brotli') })],
    ['brotli of text that is not JSON', () => ({ body: brotliCompressSync(Buffer.from('{"data": [unterminated')) })],
    ['brotli of JSON that is not an object', () => ({ body: brotliCompressSync(Buffer.from('[1,2,3]')) })],
    ['body missing', () => ({})],
    ['body is a string', () => ({ body: 'eyJ0aXRsZSI6IngifQ==' })],
    ['fetchedAt not a number', () => ({ body: brotliCompressSync(Buffer.from('{"a":1}')), fetchedAt: 'yesterday' })],
    ['expiresAt missing', () => ({ body: brotliCompressSync(Buffer.from('{"a":1}')), expiresAt: undefined })],
  ];
  test.each(corrupt.flatMap(([what, make], k) => spread(k, 4).map((live) => [`${live.op.id}: ${what}`, live, make] as const)))('%s', async (_name, live, make) => {
    const { key, teamId } = await h.team(10);
    const pk = cacheKeyOf(live.op, live.scenario.query);
    const now = Date.now();
    await db().send(
      new PutCommand({
        TableName: config.cacheTable,
        Item: { pk, op: live.op.id, fetchedAt: now - 1000, expiresAt: Math.floor(now / 1000) + 3600, ...make(pk) },
        // The document client drops undefined attributes.
      }),
    );
    h.fake.reset();
    live.scenario.routes(h.fake);
    logs.clear();
    const res = await h.call(live.op.path, { ...live.scenario.query, cache_max_age: '30d' }, { key });
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ cached: false, creditsCharged: 1 });
    expect(h.fake.requests.length).toBeGreaterThan(0);
    expect(await balance(teamId)).toBe(9);
    // Served live, the corrupt item was replaced by a good one: the next request is a hit.
    const again = await h.call(live.op.path, { ...live.scenario.query, cache_max_age: '30d' }, { key });
    expect(again.body.meta).toMatchObject({ cached: true, creditsCharged: 0 });
    await dropCached(live.op, live.scenario.query);
  });
});
