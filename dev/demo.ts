import { routedOperations, type Operation, type OperationId } from '../shared/operations';
import { startLocalStack, type LocalStack, type LocalStackOptions } from './stack';
import { CITYGAME_SAMPLE_PATH, SAMPLE_LABEL, citygameSample } from './upstream/citygame-sample';
import { RECORDED, type Query } from './upstream/replay';

/**
 * `npm run demo`: the local API (the same gateway, pipeline, DynamoDB Local and dashboard as
 * `npm start`) with every platform answered by the replay of the project's recorded fixtures
 * (dev/upstream/replay.ts), so it needs no internet. It prints a key and one example request per
 * live operation with an input the replay has a recording of (operation 4: the sample source), then a
 * cache hit, a 404 and a 422.
 * test/gateway/demo.test.ts calls every printed example and expects the printed status.
 *
 * Operation 4 (citygame) reads the source a deployment names (docs/operations/citygame-daily.md):
 * no public game is known, so there is nothing to record. The demo names a source as a deployer
 * would (CITYGAME_SOURCE_URL): a sample bulletin made for the demo (dev/upstream/citygame-sample.ts),
 * served by the replay upstream and labelled as such in the banner and in every field it fills.
 */
export interface DemoExample {
  title: string;
  path: string;
  query: Query;
  status: number;
}

export const DEMO_CREDITS = 1000;
export const DEMO_MEMBER = 'demo@example.com';

/** An input the replay has no recording of: the source's "not found". */
const UNKNOWN = { op: 'microblog-a-user-posts', query: { handle: 'nobody-here.bsky.social' } };
/** A URL on another site than the operation's platform: refused before any upstream call. */
const INVALID = { op: 'livestream-clip', query: { url: 'https://example.com/somechannel/clips/clip_01JQ7ZK3M8W4TYV5R2N6P9XBCD' } };

/** Live operations whose source is configuration, not a platform: the demo names a sample source made for it. */
export const SAMPLE_SOURCES: Partial<Record<OperationId, { query: Query; why: string }>> = {
  'citygame-daily': { query: {}, why: `SAMPLE DATA MADE FOR THE DEMO, not from any game: the demo's CITYGAME_SOURCE_URL names a sample bulletin (${CITYGAME_SAMPLE_PATH})` },
};

const operationById = (id: string): Operation => {
  const op = routedOperations().find((o) => o.id === id);
  if (!op) throw new Error(`the demo names ${id}, which is not a live operation`);
  return op;
};

/** One 200 per live operation (a recorded input), then a cache hit of the first, a 404 and a 422. */
export function demoExamples(): DemoExample[] {
  const live = routedOperations().map((op): DemoExample => {
    const sample = SAMPLE_SOURCES[op.id as OperationId];
    if (sample) return { title: `${op.number}. ${op.id}: ${sample.why}`, path: op.path, query: sample.query, status: 200 };
    const query = RECORDED[op.id as OperationId];
    if (!query) throw new Error(`the replay has no recorded input for the live operation ${op.id}: add one to RECORDED in dev/upstream/replay.ts`);
    return { title: `${op.number}. ${op.id}: ${op.summary}`, path: op.path, query, status: 200 };
  });
  const first = live[0]!;
  return [
    ...live,
    { title: `Cache hit: example ${first.title.split('.')[0]} again with cache_max_age=1d (meta.cached true, 0 credits)`, path: first.path, query: { ...first.query, cache_max_age: '1d' }, status: 200 },
    { title: 'Not found: an input the recordings do not have', path: operationById(UNKNOWN.op).path, query: UNKNOWN.query, status: 404 },
    { title: 'Validation error: a URL that is not on the platform', path: operationById(INVALID.op).path, query: INVALID.query, status: 422 },
  ];
}

export const exampleUrl = (base: string, ex: DemoExample) => `${base}${ex.path}${Object.keys(ex.query).length ? `?${new URLSearchParams(ex.query)}` : ''}`;

/** The shell line of an example: the URL in double quotes (URLSearchParams leaves no quote, $ or backtick in it). */
export const curlLine = (base: string, key: string, ex: DemoExample) => `curl -s -H "x-api-key: ${key}" "${exampleUrl(base, ex)}"`;

export interface Demo {
  stack: LocalStack;
  key: string;
  teamId: string;
  examples: DemoExample[];
  /** CITYGAME_SOURCE_URL of the demo: the sample bulletin made for it. */
  citygameSource: string;
}

/** The stack on the replay, with a team of DEMO_CREDITS and its key. */
export async function startDemo(opts: Pick<LocalStackOptions, 'dynamo' | 'gateway'> = {}): Promise<Demo> {
  const examples = demoExamples();
  const stack = await startLocalStack({ ...opts, upstream: 'replay', team: { name: 'demo', credits: DEMO_CREDITS } });
  // Operation 4's source, named as a deployer names one: the sample bulletin on the replay upstream
  // (a source named in the caller's environment is replaced: every upstream here is the replay).
  citygameSample(stack.upstream!);
  process.env.CITYGAME_SOURCE_URL = `${stack.upstream!.url}${CITYGAME_SAMPLE_PATH}`;
  delete process.env.CITYGAME_FIELDS;
  return { stack, key: stack.team!.key, teamId: stack.team!.teamId, examples, citygameSource: process.env.CITYGAME_SOURCE_URL };
}

/** What `npm run demo` prints: what this is, the key, the dashboard, and every example with its expected status. */
export function demoBanner(demo: Demo, dashboard: string): string {
  const base = demo.stack.gateway.url;
  const examples = demo.examples.flatMap((ex) => [`  # ${ex.title}  -> expect ${ex.status}`, `  ${curlLine(base, demo.key, ex)}`, '']);
  return [
    '',
    '=== DEMO: RECORDED DATA, NOT THE REAL SITES ===',
    `Every platform is answered by a replay of the project's recorded fixtures (test/fixtures/), offline.`,
    'Answers are real-shaped but recorded: they never change, and only the recorded inputs are known.',
    `Operation 4 (citygame) has no public source to record: its source is configuration (CITYGAME_SOURCE_URL), and here it is`,
    `${demo.citygameSource}, a bulletin that is ${SAMPLE_LABEL.toUpperCase()}, not from any game.`,
    '`npm start` is the real service (it scrapes the live sites).',
    '',
    `Social data API (demo) listening on ${demo.stack.gateway.url}  (DynamoDB Local in memory at ${demo.stack.endpoint}: nothing is kept)`,
    `Team ${demo.teamId} with ${DEMO_CREDITS.toLocaleString('en-US')} credits. Its API key:`,
    '',
    `    ${demo.key}`,
    '',
    dashboard,
    `API reference: ${base}/docs  (every operation with its example; paste the key above under Authentication and press TRY)`,
    '',
    'Examples (one per live operation, then a cache hit, a 404 and a 422; all answer offline):',
    '',
    ...examples,
  ].join('\n');
}
