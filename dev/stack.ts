import { envName } from '../shared/runtime/config';
import { operations } from '../shared/operations';
import { startDynamoLocal, type LocalDynamo } from './dynamo';
import { startGateway, type Gateway, type GatewayOptions } from './gateway';
import { startLocalJobs } from './jobs';
import type { LocalQueue } from '../shared/jobs/local-queue';
import { ensureTables } from './tables';
import { teamWithKey, type TeamKey } from './teams';
import { FakeUpstream } from './upstream/fake';
import { replayAll, type ReplayOptions } from './upstream/replay';

/**
 * The one local stack, in its order: DynamoDB Local -> the tables -> an upstream for every
 * platform -> a team and its key -> the local gateway. `npm start`, `npm run demo`, the tests'
 * harness, the bench and the load run all start it here, each with its options; a step already
 * done elsewhere is skipped (the tests' DynamoDB Local, named by DYNAMODB_ENDPOINT).
 *
 * Set POWERTOOLS_* and the other environment the handlers read before importing this module: the
 * logger and metrics read it when they are created.
 */
export interface LocalStackOptions {
  /**
   * Where a DynamoDB Local is started: a port (default: a free one) and a directory to keep the data
   * in (default: memory only). Not started when DYNAMODB_ENDPOINT already names one.
   */
  dynamo?: { port?: number; dbPath?: string };
  /**
   * What answers for every platform: `replay` (the recorded fixtures, dev/upstream/replay.ts),
   * `fake` (a fake upstream without routes: the caller adds them), `internet` (the real sites), or
   * `{ url }`: one the caller started (the bench's replay in a child process, dev/upstream/child.ts).
   */
  upstream: 'replay' | 'fake' | 'internet' | { url: string };
  replay?: ReplayOptions;
  /** A team to create, with its key (none when left out). */
  team?: { name: string; credits: number };
  gateway?: GatewayOptions;
}

export interface LocalStack {
  /** The DynamoDB endpoint in use. */
  endpoint: string;
  /** The DynamoDB Local this stack started (undefined when it used one already running). */
  dynamo?: LocalDynamo;
  /** The fake or replay upstream (undefined for `internet` and for one the caller started). */
  upstream?: FakeUpstream;
  team?: TeamKey;
  gateway: Gateway;
  /** The in-process queue of bulk jobs (dev/jobs.ts): `jobs.idle()` resolves when no input runs. */
  jobs: LocalQueue;
  /** Stops what this stack started, last started first. */
  stop(): Promise<void>;
}

export async function startLocalStack(opts: LocalStackOptions): Promise<LocalStack> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch(() => undefined);
  };
  try {
    const dynamo = await dynamoStep(opts.dynamo, stops);
    await ensureTables();
    const upstream = await upstreamStep(opts, stops);
    const team = opts.team ? await teamWithKey(opts.team.name, opts.team.credits) : undefined;
    const gateway = await startGateway(opts.gateway);
    stops.push(() => gateway.stop());
    // Job files' signed URLs point at this gateway (shared/jobs/files.ts).
    process.env.LOCAL_FILES_BASE_URL = gateway.url;
    const jobs = startLocalJobs();
    // Stopping lets the inputs still running end first (at most 10 s), so none outlives its stack.
    stops.push(() => Promise.race([jobs.idle(), new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref())]));
    return { endpoint: process.env.DYNAMODB_ENDPOINT!, dynamo, upstream, team, gateway, jobs, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** DynamoDB Local, unless DYNAMODB_ENDPOINT already names one; the endpoint goes to DYNAMODB_ENDPOINT. */
async function dynamoStep(where: LocalStackOptions['dynamo'], stops: (() => Promise<void>)[]): Promise<LocalDynamo | undefined> {
  if (process.env.DYNAMODB_ENDPOINT) return undefined;
  const dynamo = await startDynamoLocal(where);
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  stops.push(async () => {
    delete process.env.DYNAMODB_ENDPOINT;
    await dynamo.stop();
  });
  return dynamo;
}

/** A fake (or replay) upstream that every platform's UPSTREAM_<PLATFORM>_URL points at. */
async function upstreamStep(opts: LocalStackOptions, stops: (() => Promise<void>)[]): Promise<FakeUpstream | undefined> {
  if (opts.upstream === 'internet') return undefined;
  if (typeof opts.upstream === 'object') {
    pointUpstreams(opts.upstream.url);
    return undefined;
  }
  const fake = new FakeUpstream();
  await fake.start();
  stops.push(() => fake.stop());
  if (opts.upstream === 'replay') replayAll(fake, opts.replay);
  pointUpstreams(fake.url);
  return fake;
}

function pointUpstreams(url: string): void {
  for (const op of operations) process.env[`UPSTREAM_${envName(op.platform)}_URL`] = url;
}
