/**
 * `npm run bench`: figures measured in this run, on this machine.
 *
 *   1. Bundle size and cold import time of every function, bundled as infra/stack.ts bundles it,
 *      against a baseline bundle that only loads the DynamoDB client.
 *   2. DynamoDB calls and upstream calls per request (cache hit, live scrape with and without
 *      cache_max_age), through the local gateway (authorizer included).
 *   3. Local latency p50/p99, cache hit and live scrape, zero-delay replay upstream.
 *   4. Live-scrape latency with every upstream answer delayed 200 ms, divided by 200 ms.
 *
 * Everything runs on loopback, on the local stack (dev/stack.ts): its own DynamoDB Local (in memory),
 * the replay of the recorded fixtures answering every input (dev/upstream/replay.ts), and the
 * in-process local gateway with the per-team throttle lifted. A target that is
 * missed is printed as FAIL; the exit code is 0 either way (this is a report). It is 1 only when the
 * bench itself cannot run.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as esbuild from 'esbuild';
import { measuringEnvironment } from '../dev/env';

// Before any project module is loaded (they are imported below, when needed).
measuringEnvironment('bench');

const ROOT = path.resolve(__dirname, '..');

// ---- knobs (all loops below are bounded by these) ----
const IMPORT_RUNS = 15; // measured fresh processes per bundle (after 1 discarded warm-up round)
const COUNT_REQUESTS = 5; // requests per kind for the call counts
const WARMUP_REQUESTS = 10;
const LATENCY_REQUESTS = 200;
const DELAYED_REQUESTS = 20;
const UPSTREAM_DELAY_MS = 200;
const CACHE_MAX_AGE = '1d';
const CREDITS = 1_000_000;
const GATEWAY_RATE = 1e9;

const TARGET_IMPORT_RATIO = 1.5;
/** Functions that parse HTML bundle linkedom (the scraper behind a dynamic import, but in the bundle). */
const TARGET_IMPORT_RATIO_HTML = 2.2;
// DynamoDB calls, the authorizer's included: key and balance (one BatchGetItem for a key it knows;
// the targets predate it, one call above what the code now makes), then the path's own. Every answer
// also writes its usage count and history item (with a write it makes anyway) and its two outcome
// counters (beside its last write); a miss with cache_max_age also sends the conditional hit
// transaction and the hit's outcome count, then takes that count back: calls more, no trip more.
const TARGET_DYNAMO_HIT = 6;
const TARGET_DYNAMO_MISS = 10;
const TARGET_DYNAMO_LIVE = 6;
// Sequential DynamoDB round trips, the authorizer's included (issue 20: a hit at most 2; a live
// request no more than before the status counters: 4 with cache_max_age, 3 without).
const TARGET_TRIPS_HIT = 2;
const TARGET_TRIPS_MISS = 4;
const TARGET_TRIPS_LIVE = 3;
const TARGET_DELAY_RATIO = 1.1;

// ---- small helpers ----
const median = (xs: number[]) => quantile(xs, 0.5);
/** Nearest-rank quantile. */
function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] as number;
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const f3 = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : '-');

function table(title: string, head: string[], rows: (string | number)[][], notes: string[] = []) {
  const cells = rows.map((r) => r.map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => '| ' + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ') + ' |';
  console.log(`\n== ${title} ==`);
  console.log(line(head));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of cells) console.log(line(r));
  for (const n of notes) console.log(`  ${n}`);
}

interface Verdict {
  target: string;
  subject: string;
  pass: boolean;
  measured: string;
}
const verdicts: Verdict[] = [];
const verdict = (target: string, subject: string, pass: boolean, measured: string) => {
  verdicts.push({ target, subject, pass, measured });
  return pass ? 'PASS' : 'FAIL <<<';
};

// ---- 1. bundles ----
interface BundleTarget {
  name: string;
  /** Compared with the target (false for HTML parsers and the baseline). */
  noHtml: boolean;
  role: string;
  entry?: string;
  contents?: string;
}

const BASELINE_SOURCE = `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
export const client = DynamoDBDocumentClient.from(new DynamoDBClient({}));
`;

/** The options infra/stack.ts gives NodejsFunction (minify, source map without sources, node22, cjs, nothing external). */
async function bundle(t: BundleTarget, outDir: string): Promise<{ file: string; byPackage: [string, number][] }> {
  const outfile = path.join(outDir, t.name, 'index.js');
  const result = await esbuild.build({
    ...(t.entry ? { entryPoints: [path.join(ROOT, t.entry)] } : { stdin: { contents: t.contents ?? '', resolveDir: ROOT, sourcefile: `${t.name}.ts`, loader: 'ts' as const } }),
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    external: [],
    outfile,
    absWorkingDir: ROOT,
    logLevel: 'warning',
    metafile: true, // only to report what the bytes are; does not change the output
  });
  const out = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith('.js'))?.[1];
  const bytes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(out?.inputs ?? {})) {
    const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    const key = m ? m[1]! : input.startsWith('<stdin>') ? '(entry)' : '(project code)';
    bytes.set(key, (bytes.get(key) ?? 0) + bytesInOutput);
  }
  return { file: outfile, byPackage: [...bytes].sort((a, b) => b[1] - a[1]) };
}

/** Milliseconds the require() of `file` takes in a fresh node process (node's own start-up excluded). */
function importMs(file: string, nodeArgs: string[]): number {
  const code = `const t=process.hrtime.bigint();require(${JSON.stringify(file)});process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`;
  // A Lambda-like environment: no NODE_OPTIONS or loader of this process (tsx) leaks into the child.
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    AWS_REGION: 'us-east-1',
    POWERTOOLS_SERVICE_NAME: 'social-data-api',
    // Errors only: citygame's cold start warns that no source is named, once per probe (hundreds of lines).
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const out = execFileSync(process.execPath, [...nodeArgs, '-e', code], { env, encoding: 'utf8', timeout: 60_000 });
  const ms = Number(out.trim());
  if (!Number.isFinite(ms)) throw new Error(`unexpected output from the import probe of ${file}: ${out}`);
  return ms;
}

async function benchBundles(ops: { id: string; file: string; parsesHtml: boolean; routed: boolean; platform: string }[]) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-bundles-'));
  try {
    const targets: BundleTarget[] = [
      { name: 'baseline (DynamoDB client only)', noHtml: false, role: 'baseline', contents: BASELINE_SOURCE },
      { name: 'authorizer', noHtml: true, role: 'authorizer', entry: 'functions/authorizer.ts' },
      ...ops.map((o) => ({ name: o.id, noHtml: o.routed && !o.parsesHtml, role: o.routed ? (o.parsesHtml ? 'parses HTML' : 'no HTML') : 'not routed (info)', entry: o.file })),
      // The scraper is loaded on the first live request (overlapping its credit reservation), not at
      // cold start. These rows show what the import would cost if it were eager: the difference is
      // paid once per container, by its first live request.
      ...ops
        .filter((o) => o.routed)
        .map((o) => ({
          name: `${o.id} + scraper, eager`,
          noHtml: false,
          role: 'info',
          contents: `import './${o.file.replace(/\.ts$/, '')}';\nimport './shared/platforms/${o.platform}/scrape';\n`,
        })),
    ];
    const files = new Map<string, string>();
    const composition = new Map<string, [string, number][]>();
    const buildStarted = performance.now();
    for (const t of targets) {
      const b = await bundle(t, dir);
      files.set(t.name, b.file);
      composition.set(t.name, b.byPackage);
    }
    const buildMs = performance.now() - buildStarted;

    // Two ways to load: plain node (the figure the target is judged on), and with
    // --enable-source-maps as the stack's NODE_OPTIONS sets it in Lambda.
    const modes = [[], ['--enable-source-maps']] as const;
    const samples = new Map<string, number[][]>(targets.map((t) => [t.name, modes.map(() => [])]));
    // Interleaved rounds, so drift on the machine affects every bundle alike; round 0 is a discarded warm-up.
    for (let round = 0; round <= IMPORT_RUNS; round++) {
      for (const t of targets) {
        modes.forEach((args, m) => {
          const ms = importMs(files.get(t.name)!, [...args]);
          if (round > 0) samples.get(t.name)![m]!.push(ms);
        });
      }
    }
    const med = (name: string, m: number) => median(samples.get(name)![m]!);
    const base = [med(targets[0]!.name, 0), med(targets[0]!.name, 1)];
    const rows = targets.map((t) => {
      const kb = statSync(files.get(t.name)!).size / 1024;
      const plain = med(t.name, 0);
      const maps = med(t.name, 1);
      const ratio = plain / base[0]!;
      let check = '-';
      if (t.role === 'baseline') check = '(baseline)';
      else if (t.noHtml) check = verdict(`cold import ratio <= ${TARGET_IMPORT_RATIO} (no-HTML function)`, t.name, ratio <= TARGET_IMPORT_RATIO, `${f3(ratio)}x`);
      else if (t.role === 'parses HTML') check = verdict(`cold import ratio <= ${TARGET_IMPORT_RATIO_HTML} (HTML-parsing function)`, t.name, ratio <= TARGET_IMPORT_RATIO_HTML, `${f3(ratio)}x`);
      else if (t.role === 'info') check = 'info (deferred part)';
      else check = 'n/a (not routed)';
      const xs = samples.get(t.name)![0]!;
      const spread = `${f1(quantile(xs, 0.25))}-${f1(quantile(xs, 0.75))}`;
      return [t.name, t.role, f1(kb), f1(plain), spread, f3(ratio), f1(maps), f3(maps / base[1]!), check];
    });
    table(
      `1. Bundle size and cold import (esbuild as infra/stack.ts: bundle, minify, sourcemap w/o sources, platform node, target node22, cjs, no externals)`,
      ['function', 'kind', 'bundle KB', 'import ms (median)', 'p25-p75', 'ratio', 'import ms w/ --enable-source-maps', 'ratio', `target ratio <= ${TARGET_IMPORT_RATIO} (HTML: ${TARGET_IMPORT_RATIO_HTML})`],
      rows,
      [
        `median of ${IMPORT_RUNS} fresh \`node -e "require(bundle)"\` processes per bundle (after 1 discarded warm-up), timed with process.hrtime around the require inside the child; node ${process.version}, ${os.cpus().length} CPUs`,
        `ratio = function import / baseline import (same mode). The target is judged on plain node; the source-map column is how Lambda loads it (stack NODE_OPTIONS=--enable-source-maps).`,
        `Import times move by 10-20% between runs when other work shares the machine; a ratio near the target can flip between PASS and FAIL from run to run.`,
        `bundle KB = index.js only (the .map beside it is not loaded without --enable-source-maps). ${targets.length} bundles built in ${f1(buildMs / 1000)} s.`,
      ],
    );
    table(
      '1b. What the bundle bytes are (esbuild metafile, KB of minified output per package; largest 6)',
      ['function', 'largest contributors'],
      targets.map((t) => [
        t.name,
        (composition.get(t.name) ?? [])
          .slice(0, 6)
          .map(([k, b]) => `${k} ${f1(b / 1024)}`)
          .join(', '),
      ]),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- 2–4. requests through the local gateway ----

type Scenario = import('./bench-scenarios').Scenario;
type Operation = import('../shared/operations').Operation;
type LocalStack = import('../dev/stack').LocalStack;
type Row = (string | number)[];

/** What one request through the gateway did. */
interface Outcome {
  status: number;
  ms: number;
  dynamo: number;
  /** Sequential DynamoDB round trips (calls that ran beside another count once). */
  trips: number;
  upstream: number;
  cached: boolean | undefined;
  error?: string;
}

/** A scenario and the routed operation it calls. */
interface Active {
  s: Scenario;
  op: Operation;
  name: string;
}

/** The rows of tables 2, 3 and 4, and the answers that were not what a scenario expects. */
interface Results {
  counts: Row[];
  latency: Row[];
  delayed: Row[];
  problems: string[];
}

/** The scenarios whose operation is routed, and a note for each one skipped or missing. */
function activeScenarios(scenarios: Scenario[], routed: Operation[], all: readonly Operation[]): { active: Active[]; notes: string[] } {
  const notes: string[] = [];
  const active: Active[] = [];
  for (const s of scenarios) {
    const name = s.op + (s.variant ? ` (${s.variant})` : '');
    const op = routed.find((o) => o.id === s.op);
    if (op) active.push({ s, op, name });
    else notes.push(`skipped ${name}: not routed (status '${all.find((o) => o.id === s.op)?.status ?? 'unknown'}' in shared/operations.ts)`);
  }
  for (const op of routed) if (!scenarios.some((s) => s.op === op.id)) notes.push(`no scenario for routed operation ${op.id}: add one to scripts/bench-scenarios.ts`);
  return { active, notes };
}

/**
 * The local stack for the bench (dev/stack.ts): its own DynamoDB Local in memory, the replay
 * answering every input, the gateway with the per-team throttle lifted, and a team; stopped on
 * Ctrl-C as well as at the end.
 */
async function withBenchStack(use: (stack: LocalStack, startS: number) => Promise<void>): Promise<void> {
  const { startLocalStack } = await import('../dev/stack');
  const { rawDb } = await import('../shared/db/client');
  const t0 = performance.now();
  const stack = await startLocalStack({
    upstream: 'replay',
    replay: { anyInput: true },
    team: { name: 'bench', credits: CREDITS },
    gateway: { ratePerMinute: GATEWAY_RATE, burst: GATEWAY_RATE },
  });
  const stop = async () => {
    await stack.stop();
    rawDb().destroy();
  };
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) return;
    interrupted = true;
    console.error('\ninterrupted: stopping DynamoDB Local, the gateway and the replay upstream');
    void stop().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await use(stack, (performance.now() - t0) / 1000);
  } finally {
    await stop();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

/** A GET through the gateway with the bench team's key, counting the DynamoDB and upstream calls it made. */
async function caller(stack: LocalStack): Promise<(opPath: string, query: Record<string, string>) => Promise<Outcome>> {
  const { dynamoCallCount, dynamoRoundTripCount } = await import('../shared/db/client');
  const upstream = stack.upstream!;
  return async (opPath, query) => {
    const u = new URL(stack.gateway.url + opPath);
    for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
    const d0 = dynamoCallCount();
    const r0 = dynamoRoundTripCount();
    const u0 = upstream.requests.length;
    const t = performance.now();
    const res = await fetch(u, { headers: { 'x-api-key': stack.team!.key } });
    const text = await res.text();
    const ms = performance.now() - t;
    let body: { meta?: { cached?: boolean }; error?: { code?: string; message?: string } } = {};
    try {
      body = JSON.parse(text);
    } catch {
      /* reported below */
    }
    return {
      status: res.status,
      ms,
      dynamo: dynamoCallCount() - d0,
      trips: dynamoRoundTripCount() - r0,
      upstream: upstream.requests.length - u0,
      cached: body.meta?.cached,
      ...(res.status !== 200 ? { error: `${res.status} ${body.error?.code ?? ''} ${body.error?.message ?? text.slice(0, 120)}`.trim() } : {}),
    };
  };
}

/** "m" or "m (max x)" of one count over the requests. */
function countCell(xs: Outcome[], key: 'dynamo' | 'trips' | 'upstream'): string {
  const v = xs.map((x) => x[key]);
  const m = median(v);
  const mx = Math.max(...v);
  return mx === m ? String(m) : `${m} (max ${mx})`;
}

/**
 * One scenario's requests (each live one with a new input, request number i), in two phases: `warmUp` (its handler module, upstream connections, and its
 * share of the JIT warm-up of the process and of DynamoDB Local), and `measure` (sections 2-4). The
 * bench warms every scenario up before it measures any, so the first ones measured are not the ones
 * that pay for a cold process and a cold database.
 */
function scenarioRunner({ s, op, name }: Active, stack: LocalStack, call: Awaited<ReturnType<typeof caller>>, out: Results): { warmUp(): Promise<void>; measure(): Promise<void> } {
  const upstream = stack.upstream!;
  /** Checks each answer is what the scenario expects; a wrong one is reported, not hidden. */
  const expectAnswer = (kind: string, o: Outcome, cached: boolean) => {
    if (o.status !== 200) out.problems.push(`${name} ${kind}: ${o.error}`);
    else if (o.cached !== cached) out.problems.push(`${name} ${kind}: expected cached=${cached}, got ${o.cached}`);
    return o;
  };
  let n = 0;
  const live = async (kind: string, withMaxAge: boolean) => {
    const i = n++;
    s.routes?.(upstream, i);
    await s.prime?.(i);
    const q = { ...s.query(i), ...(withMaxAge ? { cache_max_age: CACHE_MAX_AGE } : {}) };
    return { i, out: expectAnswer(kind, await call(op.path, q), false) };
  };
  const hit = async (i: number) => expectAnswer('cache hit', await call(op.path, { ...s.query(i), cache_max_age: CACHE_MAX_AGE }), true);

  let warmI = 0;
  return {
    async warmUp() {
      for (let k = 0; k < WARMUP_REQUESTS; k++) {
        warmI = (await live('warm-up', false)).i;
        await hit(warmI);
      }
    },
    async measure() {
      out.counts.push(...(await countCalls(name, live, hit)));
      const liveMs = await measureLatency(name, live, () => hit(warmI), out.latency);
      upstream.delayMs = UPSTREAM_DELAY_MS;
      try {
        out.delayed.push(await measureDelayed(s, name, live, quantile(liveMs, 0.5)));
      } finally {
        upstream.delayMs = 0;
      }
    },
  };
}

type Live = (kind: string, withMaxAge: boolean) => Promise<{ i: number; out: Outcome }>;

/** 2. DynamoDB and upstream calls per request, against their targets. */
async function countCalls(name: string, live: Live, hit: (i: number) => Promise<Outcome>): Promise<Row[]> {
  const liveNoAge: Outcome[] = [];
  const liveMiss: Outcome[] = [];
  const hits: Outcome[] = [];
  for (let k = 0; k < COUNT_REQUESTS; k++) {
    liveNoAge.push((await live('live (no cache_max_age)', false)).out);
    const miss = await live('live (cache_max_age, miss)', true);
    liveMiss.push(miss.out);
    hits.push(await hit(miss.i));
  }
  const row = (kind: string, xs: Outcome[], target: number, tripsTarget: number, what: string) => {
    const d = median(xs.map((x) => x.dynamo));
    const t = median(xs.map((x) => x.trips));
    return [
      name,
      kind,
      countCell(xs, 'dynamo'),
      `<= ${target}`,
      verdict(`DynamoDB calls per ${what} <= ${target}`, name, d <= target, String(d)),
      countCell(xs, 'trips'),
      `<= ${tripsTarget}`,
      verdict(`sequential DynamoDB round trips per ${what} <= ${tripsTarget}`, name, t <= tripsTarget, String(t)),
      countCell(xs, 'upstream'),
    ];
  };
  return [
    row('cache hit', hits, TARGET_DYNAMO_HIT, TARGET_TRIPS_HIT, 'cache hit'),
    row(`live, cache_max_age=${CACHE_MAX_AGE} (miss)`, liveMiss, TARGET_DYNAMO_MISS, TARGET_TRIPS_MISS, 'live scrape (cache_max_age given, miss)'),
    row('live, no cache_max_age', liveNoAge, TARGET_DYNAMO_LIVE, TARGET_TRIPS_LIVE, 'live scrape (no cache_max_age)'),
  ];
}

/** 3. Latency with a zero-delay upstream: the same cached input, then a new input per request. Returns the live latencies. */
async function measureLatency(name: string, live: Live, sameHit: () => Promise<Outcome>, rows: Row[]): Promise<number[]> {
  const hitMs: number[] = [];
  for (let k = 0; k < LATENCY_REQUESTS; k++) hitMs.push((await sameHit()).ms);
  const liveMs: number[] = [];
  for (let k = 0; k < LATENCY_REQUESTS; k++) liveMs.push((await live('live (latency)', false)).out.ms);
  for (const [kind, xs] of [['cache hit', hitMs], ['live scrape (no cache_max_age)', liveMs]] as const) {
    rows.push([name, kind, xs.length, f1(quantile(xs, 0.5)), f1(quantile(xs, 0.99)), f1(mean(xs)), f1(Math.min(...xs)), f1(Math.max(...xs))]);
  }
  return liveMs;
}

/** 4. Live scrapes with every upstream answer delayed (the caller sets the delay), against the round-trip target. */
async function measureDelayed(s: Scenario, name: string, live: Live, zeroDelayP50: number): Promise<Row> {
  await live('live (delayed warm-up)', false);
  const delayed: Outcome[] = [];
  for (let k = 0; k < DELAYED_REQUESTS; k++) delayed.push((await live('live (delayed)', false)).out);
  const ms = median(delayed.map((x) => x.ms));
  const ratio = ms / UPSTREAM_DELAY_MS;
  const waiting = (ms - zeroDelayP50) / UPSTREAM_DELAY_MS;
  const trips = s.sequentialRoundTrips ?? 1;
  return [
    name,
    delayed.length,
    countCell(delayed, 'upstream'),
    f1(ms),
    f1(Math.min(...delayed.map((x) => x.ms))),
    f1(Math.max(...delayed.map((x) => x.ms))),
    `${f3(waiting)}x`,
    `${f3(ratio)}x`,
    verdict(`live latency / ${UPSTREAM_DELAY_MS} ms upstream delay <= ${TARGET_DELAY_RATIO} x ${trips} sequential round trip(s)`, name, ratio <= TARGET_DELAY_RATIO * trips, `${f3(ratio)}x`),
  ];
}

function printRequestTables(r: Results, active: number): void {
  table(
    '2. DynamoDB calls, sequential DynamoDB round trips and upstream calls per request (dynamoCallCount() and dynamoRoundTripCount() deltas; gateway in-process, so the authorizer is included)',
    ['operation', 'request', 'DynamoDB calls', 'target', 'verdict', 'sequential round trips', 'target', 'verdict', 'upstream calls'],
    r.counts,
    [
      `median of ${COUNT_REQUESTS} requests each; every scenario had ${WARMUP_REQUESTS} warm-up live+hit pairs before any was measured; "(max n)" shows when one request differed.`,
      'The authorizer writes the key\'s lastUsedAt at most once per 60 s (KEY_TOUCH_INTERVAL_S): a request that does so makes one more call than the median.',
    ],
  );
  table(
    `3. Local latency, zero-delay replay upstream (ms; ${LATENCY_REQUESTS} sequential requests each after warm-up)`,
    ['operation', 'request', 'n', 'p50', 'p99', 'mean', 'min', 'max'],
    r.latency,
    ['cache hit: the same input with cache_max_age every time; live: a new input per request (each a cache miss, 1 credit).'],
  );
  table(
    `4. Live scrape with every upstream answer delayed ${UPSTREAM_DELAY_MS} ms (median of ${DELAYED_REQUESTS}, after 1 warm-up)`,
    ['operation', 'n', 'upstream calls', 'median ms', 'min ms', 'max ms', `(median - zero-delay p50) / ${UPSTREAM_DELAY_MS} ms`, `median / ${UPSTREAM_DELAY_MS} ms`, `target <= ${TARGET_DELAY_RATIO} x sequential round trips`],
    r.delayed,
    [
      '~1.0x: the upstream calls of a request overlap; ~2x: two rounds of calls one after the other.',
      `The target is judged on median / ${UPSTREAM_DELAY_MS} ms, which includes the request's own work (gateway, authorizer, DynamoDB Local, mapping);`,
      `the column before it subtracts the zero-delay live p50 of section 3 to show the upstream waiting alone (information only).`,
    ],
  );
  if (r.problems.length) {
    console.log(`\n!! ${r.problems.length} request(s) did not answer as expected (first 10):`);
    for (const p of r.problems.slice(0, 10)) console.log(`   ${p}`);
  }
  if (active === 0) console.log('\n!! no operation could be benched through the gateway');
}

function printSummary(started: number): void {
  console.log('\n== Summary (targets) ==');
  for (const v of verdicts) console.log(`${v.pass ? 'PASS' : 'FAIL'}  ${v.target.padEnd(64)}  ${v.subject.padEnd(36)}  measured ${v.measured}`);
  const failed = verdicts.filter((v) => !v.pass).length;
  console.log(failed ? `\n!! ${failed} of ${verdicts.length} targets FAIL (report only: exit code 0)` : `\nAll ${verdicts.length} targets PASS`);
  console.log(`Bench took ${f1((performance.now() - started) / 1000)} s.`);
}

async function main() {
  const started = performance.now();
  console.log(`npm run bench — ${new Date().toISOString()} — node ${process.version}, ${os.platform()} ${os.arch()}, ${os.cpus().length} CPUs`);
  const { operations, routedOperations, handlerFile } = await import('../shared/operations');
  const { scenarios } = await import('./bench-scenarios');

  const routed = routedOperations();
  const routedIds = new Set(routed.map((o) => o.id));
  const withHandler = operations.filter((o) => routedIds.has(o.id) || existsSync(path.join(ROOT, handlerFile(o))));
  await benchBundles(withHandler.map((o) => ({ id: o.id, file: handlerFile(o), parsesHtml: o.parsesHtml, routed: routedIds.has(o.id), platform: o.platform })));

  const { active, notes } = activeScenarios(scenarios, routed, operations);
  console.log('\n== Operations benched through the gateway ==');
  for (const { s } of active) console.log(`  ${s.op}${s.variant ? ` (${s.variant})` : ''}${s.note ? ` — ${s.note}` : ''}`);
  for (const n of notes) console.log(`  ${n}`);

  await withBenchStack(async (stack, stackStartS) => {
    console.log(`\nSet-up (the local stack, dev/stack.ts, started in ${f1(stackStartS)} s): DynamoDB Local (in memory) at ${stack.endpoint}; replay upstream ${stack.upstream!.url} (recorded fixtures, every input answered); local gateway ${stack.gateway.url}`);
    console.log(`  The gateway's per-team throttle (100 requests / 60 s) is lifted for the bench: startGateway({ ratePerMinute: ${GATEWAY_RATE}, burst: ${GATEWAY_RATE} }). Team credits: ${CREDITS}.`);
    console.log('  Requests are sequential over keep-alive HTTP on 127.0.0.1; latency is measured by the client around the whole request.');
    const call = await caller(stack);
    const results: Results = { counts: [], latency: [], delayed: [], problems: [] };
    const runners = active.map((a) => scenarioRunner(a, stack, call, results));
    for (const r of runners) await r.warmUp();
    for (const r of runners) await r.measure();
    printRequestTables(results, active.length);
  });
  printSummary(started);
}

main().then(
  () => {
    // Everything is stopped; do not wait on idle keep-alive sockets.
    process.exit(0);
  },
  (err: unknown) => {
    console.error('bench failed:', err);
    process.exit(1);
  },
);
