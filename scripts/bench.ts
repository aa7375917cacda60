/**
 * `npm run bench`: figures measured in this run, on this machine (docs/benchmarks.md explains every
 * section, row and target).
 *
 *   1. Bundle size and cold import time (wall and CPU) of every function, bundled as infra/stack.ts
 *      bundles it, against a baseline bundle that only loads the DynamoDB client; beside each, its
 *      deployed cold start (with the Secrets Manager client shared/runtime/secrets.ts evaluates
 *      when a secret ARN is set), and one row with a proxy secret (the same client: measured again).
 *   2. The pipeline's paths (cache hit, live for a funded team and for one below 200 credits, live
 *      miss with cache_max_age, 422, 402, 404 after a reservation), on one operation: DynamoDB
 *      calls, sequential round trips and writes (item writes and write units) per answer, against
 *      the targets and against each path's stated cost (shared/accounting/request-costs.ts, which
 *      docs/credits.md's table is generated from); CPU milliseconds per answer.
 *   3. Every operation: cache hit, live and live miss, zero-delay upstream: latency, round trips,
 *      write units, CPU milliseconds per answer.
 *   4. Live answers against a 200 ms upstream, in interleaved rounds: min/median/max of the
 *      per-round medians; one-round operations judged on the median of their round medians.
 *   5. The key's lastUsedAt writes over the whole run (at most one a minute per key).
 *   6. A monitor's own writes per poll, quiet and with news (./bench-monitors.ts).
 *   7. A bulk job of 10,000 inputs against a 50–300 ms replay (./bench-jobs.ts): inputs per second, CPU ms and
 *      DynamoDB write units per input, credits against live pages.
 *
 * Everything runs on loopback, on the local stack (dev/stack.ts): its own DynamoDB Local (in memory,
 * a Java process), the replay of the recorded fixtures answering every input in a node process of
 * its own (dev/upstream/child.ts), and the in-process local gateway with the per-team throttle
 * lifted. This process holds the bench's HTTP client, the local gateway, the authorizer and the
 * functions; the authorizer and the functions are timed apart (process.cpuUsage() around each call).
 *
 * A missed target is printed as FAIL; the exit code is 0 either way (this is a report). It is 1 only
 * when the bench itself cannot run.
 *
 * Quick runs while developing (or on a busy machine): `npm run bench -- --quick` (or BENCH_QUICK=1),
 * and the BENCH_* knobs printed at the start (BENCH_OPS=<id>,<id> limits the operations,
 * BENCH_SECTIONS=imports,paths,operations,delayed,monitors,jobs the sections; BENCH_JOB_INPUTS the job's size; BENCH_LOAD_RPS what `npm run load` answered, printed beside the job's rate). A reduced run says so in its header.
 */

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as esbuild from 'esbuild';
import { measuringEnvironment } from '../dev/env';
import { benchMonitorWrites } from './bench-monitors';
import { benchJobs } from './bench-jobs';
import { procCpuMs } from './proc-cpu';
import { type RequestCost, type RequestPathId, requestCost } from '../shared/accounting/request-costs';
import { type DynamoWatch, type WriteSummary, describeWrites, moneyWrites, recordWrites, summarize, watchDynamo } from './bench-dynamo';
import { ESBUILD_OPTIONS } from '../infra/bundling';

// Before any project module is loaded (they are imported below, when needed).
measuringEnvironment('bench');

const ROOT = path.resolve(__dirname, '..');

// ---- knobs (every loop below is bounded by these) ----
const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const overridden: string[] = [];
/** BENCH_<name> when set (a positive integer), else the full or the quick figure. */
function knob(name: string, full: number, quick: number): number {
  const raw = process.env[`BENCH_${name}`];
  const n = Number(raw);
  if (raw !== undefined && raw !== '' && Number.isFinite(n) && n > 0) {
    if (Math.floor(n) !== full) overridden.push(`BENCH_${name}=${Math.floor(n)}`);
    return Math.floor(n);
  }
  return QUICK ? quick : full;
}
const K = {
  /** Measured fresh processes per bundle (after 1 discarded warm-up round). */
  importRuns: knob('IMPORT_RUNS', 15, 2),
  /** Live + hit pairs per operation before anything is measured. */
  warmup: knob('WARMUP', 10, 2),
  /** Requests per path in section 2 (interleaved across the paths). */
  pathRequests: knob('PATH_REQUESTS', 20, 3),
  /** Cache hits and live answers per operation in section 3. */
  opRequests: knob('OP_REQUESTS', 200, 10),
  /** Live misses (cache_max_age given) per operation in section 3. */
  missRequests: knob('MISS_REQUESTS', 10, 2),
  /** Interleaved rounds of section 4. */
  rounds: knob('ROUNDS', 5, 2),
  /** Delayed live answers per operation and round (after 1 discarded one). */
  roundRequests: knob('ROUND_REQUESTS', 4, 2),
  /** Inputs of section 7's job. */
  jobInputs: knob('JOB_INPUTS', 10_000, 500),
};
const JOB_INPUTS = K.jobInputs;
const ALL_SECTIONS = ['imports', 'paths', 'operations', 'delayed', 'monitors', 'jobs'] as const;
type Section = (typeof ALL_SECTIONS)[number];
const SECTIONS = new Set<Section>(
  process.env.BENCH_SECTIONS ? (process.env.BENCH_SECTIONS.split(',').map((x) => x.trim()).filter((x) => (ALL_SECTIONS as readonly string[]).includes(x)) as Section[]) : ALL_SECTIONS,
);
const ONLY_OPS = process.env.BENCH_OPS ? new Set(process.env.BENCH_OPS.split(',').map((x) => x.trim()).filter(Boolean)) : undefined;
const REDUCED = QUICK || overridden.length > 0 || ONLY_OPS !== undefined || SECTIONS.size < ALL_SECTIONS.length;

const UPSTREAM_DELAY_MS = 200;
const CACHE_MAX_AGE = '1d';
const FUNDED_CREDITS = 1_000_000;
/** Below SCRAPE_AHEAD_MIN_CREDITS (200): the scrape waits for the reservation. Enough for every request the bench sends it. */
const LOW_CREDITS = 199;
const GATEWAY_RATE = 1e9;

// ---- targets ----
const TARGET_IMPORT_RATIO = 1.25;
/** Functions that parse HTML bundle linkedom (the scraper behind a dynamic import, but in the bundle). */
const TARGET_IMPORT_RATIO_HTML = 1.45;
/** Sequential DynamoDB round trips per request, the authorizer's included. */
const TARGET_TRIPS = { hit: 3, invalid: 2, refused: 3, live: 3 } as const;
/** Plain item writes of a free answer (hit or error), the key's lastUsedAt apart. */
const TARGET_FREE_PLAIN = 3;
/** A live answer: the reservation, one settle transaction and at most this many plain writes. */
const TARGET_LIVE_PLAIN = 2;
/** Live answer of one upstream round / the upstream's delay. */
const TARGET_DELAY_RATIO = 1.12;
const LIVE_TRIPS_NOTE = 'by design a live answer takes 4 round trips (auth, reservation, settle transaction, record), 5 with cache_max_age (the cache read first): docs/credits.md, "Against the targets of issue 28"';

// ---- small helpers ----
/** Nearest-rank median: a value that occurred (counts). */
const median = (xs: number[]) => quantile(xs, 0.5);
/** The usual median (the mean of the two middle values of an even count): times and ratios. */
function mid(xs: number[]): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
}
/** Nearest-rank quantile. */
function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] as number;
}
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '-');
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : '-');
const f3 = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : '-');
/** "m" or "m (max x)" of one figure over the requests. */
function countCell(v: number[]): string {
  if (!v.length) return '-';
  const m = median(v);
  const mx = Math.max(...v);
  return mx === m ? String(m) : `${m} (max ${mx})`;
}
/** The most common value and how many distinct ones there were. */
function mode(xs: string[]): { value: string; distinct: number } {
  const counts = new Map<string, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  const value = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '-';
  return { value, distinct: counts.size };
}

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
  note?: string;
}
const verdicts: Verdict[] = [];
const verdict = (target: string, subject: string, pass: boolean, measured: string, note?: string) => {
  verdicts.push({ target, subject, pass, measured, note });
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
/**
 * What shared/runtime/secrets.ts's awsClients() imports and builds on a deployed cold start: the
 * Secrets Manager provider and client for the secret ARNs every deployed function is given (the
 * proxy URL, when the deployment names a proxy secret, is one more read through the same client).
 * Evaluated eagerly after the function's own module; the reads themselves need AWS and are not made.
 */
const SECRETS_MANAGER_MODULES = ['@aws-lambda-powertools/parameters/secrets', '@aws-sdk/client-secrets-manager'];
const SECRETS_MANAGER_SOURCE = `
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
export const secretsProvider = new SecretsProvider({ awsSdkV3Client: new SecretsManagerClient({}) });
`;
/** A function's module as Lambda loads it (its exports kept, so nothing is tree-shaken away), then its secrets' clients. */
const deployedSource = (file: string) => `export * from './${file.replace(/\.ts$/, '')}';\n${SECRETS_MANAGER_SOURCE}`;

/** The options every function is bundled with (infra/bundling.ts: minify, source map without sources, node22, cjs, nothing external). */
async function bundle(t: BundleTarget, outDir: string): Promise<{ file: string; byPackage: [string, number][] }> {
  const outfile = path.join(outDir, t.name.replace(/[^\w.+-]+/g, '_'), 'index.js');
  const result = await esbuild.build({
    ...(t.entry ? { entryPoints: [path.join(ROOT, t.entry)] } : { stdin: { contents: t.contents ?? '', resolveDir: ROOT, sourcefile: `${t.name}.ts`, loader: 'ts' as const } }),
    ...ESBUILD_OPTIONS,
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

/**
 * The require() of `file` in a fresh node process (node's own start-up excluded): wall milliseconds,
 * and CPU milliseconds (user + system, every thread: parsing and compiling included), which other
 * work on a shared machine disturbs less than the wall time.
 */
function importMs(file: string, nodeArgs: string[]): { wall: number; cpu: number } {
  const code = `const c=process.cpuUsage(),t=process.hrtime.bigint();require(${JSON.stringify(file)});const w=Number(process.hrtime.bigint()-t)/1e6,u=process.cpuUsage(c);process.stdout.write(w+' '+(u.user+u.system)/1e3)`;
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
  const [wall, cpu] = out.trim().split(' ').map(Number);
  if (!Number.isFinite(wall) || !Number.isFinite(cpu)) throw new Error(`unexpected output from the import probe of ${file}: ${out}`);
  return { wall: wall!, cpu: cpu! };
}

async function benchBundles(ops: { id: string; file: string; parsesHtml: boolean; routed: boolean; platform: string }[]) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-bundles-'));
  try {
    const judged = [{ name: 'authorizer', file: 'functions/authorizer.ts', role: 'authorizer', noHtml: true }, ...ops.map((o) => ({ name: o.id, file: o.file, role: o.routed ? (o.parsesHtml ? 'parses HTML' : 'no HTML') : 'not routed (info)', noHtml: o.routed && !o.parsesHtml }))];
    const firstRouted = ops.find((o) => o.routed);
    const targets: BundleTarget[] = [
      { name: 'baseline (DynamoDB client only)', noHtml: false, role: 'baseline', contents: BASELINE_SOURCE },
      ...judged.map((j) => ({ name: j.name, noHtml: j.noHtml, role: j.role, entry: j.file })),
      // Deployed, every function is given a secret's ARN and evaluates the Secrets Manager client
      // on its cold start (shared/runtime/secrets.ts): the "deployed" columns of each row.
      ...judged.map((j) => ({ name: `${j.name} (deployed)`, noHtml: false, role: 'deployed', contents: deployedSource(j.file) })),
      // A deployment that names a proxy secret (SCRAPER_PROXY_SECRET_ARN) reads it with the same client:
      // nothing more is imported or built, so this is the deployed bundle measured again (its
      // difference from the operation's deployed columns is the measurement's noise).
      ...(firstRouted ? [{ name: `${firstRouted.id}, deployed with a proxy secret`, noHtml: false, role: 'info (same client)', contents: deployedSource(firstRouted.file) }] : []),
      // The scraper is loaded on the first live request (overlapping its credit reservation), not at
      // cold start. These rows show what the import would cost if it were eager: the difference is
      // paid once per container, by its first live request.
      ...ops
        .filter((o) => o.routed)
        .map((o) => ({
          name: `${o.id} + scraper, eager`,
          noHtml: false,
          role: 'info',
          contents: `export * from './${o.file.replace(/\.ts$/, '')}';\nexport * as scraper from './shared/platforms/${o.platform}/scrape';\n`,
        })),
    ];
    const secretsSource = readFileSync(path.join(ROOT, 'shared/runtime/secrets.ts'), 'utf8');
    const secretsStale = SECRETS_MANAGER_MODULES.filter((m) => !secretsSource.includes(`'${m}'`));
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
    type Sample = { wall: number; cpu: number };
    const samples = new Map<string, Sample[][]>(targets.map((t) => [t.name, modes.map(() => [])]));
    // Interleaved rounds, so drift on the machine affects every bundle alike; round 0 is a discarded warm-up.
    for (let round = 0; round <= K.importRuns; round++) {
      for (const t of targets) {
        modes.forEach((args, m) => {
          const ms = importMs(files.get(t.name)!, [...args]);
          if (round > 0) samples.get(t.name)![m]!.push(ms);
        });
      }
    }
    const med = (name: string, m: number, k: keyof Sample = 'wall') => mid(samples.get(name)![m]!.map((x) => x[k]));
    const base = targets[0]!.name;
    const ratio = (name: string, m: number, k: keyof Sample = 'wall') => med(name, m, k) / med(base, m, k);
    const target = (role: string) => (role === 'parses HTML' ? TARGET_IMPORT_RATIO_HTML : TARGET_IMPORT_RATIO);
    const row = (t: BundleTarget, check: string) => {
      const xs = samples.get(t.name)![0]!.map((x) => x.wall);
      const deployed = targets.find((d) => d.name === `${t.name} (deployed)`);
      return [
        t.name,
        t.role,
        f1(statSync(files.get(t.name)!).size / 1024),
        f1(med(t.name, 0)),
        `${f1(quantile(xs, 0.25))}-${f1(quantile(xs, 0.75))}`,
        f3(ratio(t.name, 0)),
        f3(ratio(t.name, 0, 'cpu')),
        f3(ratio(t.name, 1)),
        deployed ? f3(ratio(deployed.name, 0)) : '-',
        deployed ? f3(ratio(deployed.name, 0, 'cpu')) : '-',
        deployed ? f3(ratio(deployed.name, 1)) : '-',
        check,
      ];
    };
    const rows = targets
      .filter((t) => t.role !== 'deployed')
      .map((t) => {
        let check = '-';
        if (t.role === 'baseline') check = '(baseline)';
        else if (t.noHtml || t.role === 'parses HTML') {
          const r = ratio(t.name, 0);
          const kind = t.noHtml ? 'no-HTML function' : 'HTML-parsing function';
          check = verdict(`cold import ratio <= ${target(t.role)} (${kind})`, t.name, r <= target(t.role), `${f3(r)}x`);
        } else if (t.role === 'info') check = 'info (deferred part)';
        else if (t.role === 'info (same client)') check = 'info';
        else check = 'n/a (not routed)';
        return row(t, check);
      });
    table(
      `1. Bundle size and cold import (esbuild as infra/stack.ts: bundle, minify, sourcemap w/o sources, platform node, target node22, cjs, no externals)`,
      ['function', 'kind', 'bundle KB', 'import ms (median)', 'p25-p75', 'ratio', 'CPU ratio', 'ratio w/ maps', 'deployed ratio', 'deployed CPU ratio', 'deployed w/ maps', `target ratio <= ${TARGET_IMPORT_RATIO} (HTML: ${TARGET_IMPORT_RATIO_HTML})`],
      rows,
      [
        `median of ${K.importRuns} fresh \`node -e "require(bundle)"\` processes per bundle (after 1 discarded warm-up), timed inside the child around the require (wall: process.hrtime; CPU: process.cpuUsage, user + system); node ${process.version}, ${os.cpus().length} CPUs`,
        `baseline: ${f1(med(base, 0))} ms wall, ${f1(med(base, 0, 'cpu'))} ms CPU, ${f1(med(base, 1))} ms w/ maps. ratio = the bundle's median / the baseline's, same mode and measure. The target is judged on the wall ratio, plain node;`,
        `  "w/ maps" is how Lambda loads it (the stack's NODE_OPTIONS=--enable-source-maps). The CPU ratio moves less than the wall ratio when other work shares the machine.`,
        `deployed: the function's module, then what shared/runtime/secrets.ts imports and builds on a deployed cold start (${SECRETS_MANAGER_MODULES.join(', ')}; every deployed function has a secret ARN);`,
        `  a proxy secret is one more read through that client (the ", deployed with a proxy secret" row: the same bundle, measured again). The reads themselves (calls to AWS) are not included.`,
        ...(secretsStale.length ? [`!! shared/runtime/secrets.ts no longer imports ${secretsStale.join(', ')}: the deployed columns measure a stale list (update SECRETS_MANAGER_SOURCE in scripts/bench.ts)`] : []),
        `bundle KB = index.js only (the .map beside it is not loaded without --enable-source-maps). ${targets.length} bundles built in ${f1(buildMs / 1000)} s.`,
      ],
    );
    table(
      '1b. What the bundle bytes are (esbuild metafile, KB of minified output per package; largest 6)',
      ['function', 'largest contributors'],
      targets.filter((t) => t.role !== 'deployed' && t.role !== 'info').map((t) => [
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

// ---- 2–5. requests through the local gateway ----

type Scenario = import('./bench-scenarios').Scenario;
type Operation = import('../shared/operations').Operation;
type LocalStack = import('../dev/stack').LocalStack;
type UpstreamProcess = import('../dev/upstream/child').UpstreamProcess;
type Row = (string | number)[];

/** What one request through the gateway did. */
interface Outcome {
  status: number;
  code?: string;
  ms: number;
  /** DynamoDB calls (dynamoCallCount delta). */
  calls: number;
  /** Sequential DynamoDB round trips (dynamoRoundTripCount delta: calls that ran beside another count once). */
  trips: number;
  upstream: number;
  cached: boolean | undefined;
  writes: WriteSummary;
  /** CPU ms of this process during the request: all of it, the function's, the authorizer's. */
  cpu: { total: number; fn: number; auth: number };
  error?: string;
}

/** A scenario, its index in `scenarios` (the upstream process's hooks name it so) and the routed operation it calls. */
interface Active {
  s: Scenario;
  index: number;
  op: Operation;
  name: string;
}

/** The scenarios whose operation is routed (and named by BENCH_OPS, when set), and a note for each one skipped. */
function activeScenarios(scenarios: Scenario[], routed: Operation[], all: readonly Operation[]): { active: Active[]; notes: string[] } {
  const notes: string[] = [];
  const active: Active[] = [];
  scenarios.forEach((s, index) => {
    const name = s.op + (s.variant ? ` (${s.variant})` : '');
    const op = routed.find((o) => o.id === s.op);
    if (ONLY_OPS && !ONLY_OPS.has(s.op)) return;
    if (op) active.push({ s, index, op, name });
    else notes.push(`skipped ${name}: not routed (status '${all.find((o) => o.id === s.op)?.status ?? 'unknown'}' in shared/operations.ts)`);
  });
  for (const op of routed) if (!scenarios.some((s) => s.op === op.id)) notes.push(`no scenario for routed operation ${op.id}: add one to scripts/bench-scenarios.ts`);
  if (ONLY_OPS) notes.push(`BENCH_OPS: only ${[...ONLY_OPS].join(', ')}`);
  return { active, notes };
}

/** The bench's world: the local stack, the upstream process, the teams, the watcher and the request function. */
interface Bench {
  stack: LocalStack;
  upstream: UpstreamProcess;
  watch: DynamoWatch;
  teams: { funded: import('../dev/teams').TeamKey; low: import('../dev/teams').TeamKey; broke: import('../dev/teams').TeamKey };
  call(key: string, opPath: string, query: Record<string, string>): Promise<Outcome>;
  problems: string[];
}

/** CPU ms of the authorizer and the function during the current request (the gateway calls them through these wrappers). */
const cpuSlots = { fn: 0, auth: 0 };
function timed<A extends unknown[], R>(slot: keyof typeof cpuSlots, f: (...a: A) => Promise<R>): (...a: A) => Promise<R> {
  return async (...a: A) => {
    const c0 = process.cpuUsage();
    try {
      return await f(...a);
    } finally {
      const d = process.cpuUsage(c0);
      cpuSlots[slot] += (d.user + d.system) / 1000;
    }
  };
}

/**
 * The local stack for the bench (dev/stack.ts): its own DynamoDB Local in memory, the replay in a
 * child process answering every input, the gateway with the per-team throttle lifted and the
 * authorizer and functions timed; three teams (funded, below 200 credits, none); stopped on Ctrl-C
 * as well as at the end.
 */
async function withBench(use: (b: Bench, startS: number) => Promise<void>): Promise<void> {
  const { startLocalStack } = await import('../dev/stack');
  const { startUpstreamProcess } = await import('../dev/upstream/child');
  const { teamWithKey } = await import('../dev/teams');
  const { authorizerHandler } = await import('../shared/auth/authorizer');
  const { rawDb, dynamoCallCount, dynamoRoundTripCount } = await import('../shared/db/client');
  const { config } = await import('../shared/runtime/config');
  const t0 = performance.now();
  const upstream = await startUpstreamProcess({ anyInput: true, hooks: path.join(__dirname, 'bench-scenarios.ts') });
  await upstream.hook('notFound');
  let stack: LocalStack | undefined;
  const stop = async () => {
    await stack?.stop();
    await upstream.stop();
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
    stack = await startLocalStack({
      upstream: { url: upstream.url },
      gateway: {
        ratePerMinute: GATEWAY_RATE,
        burst: GATEWAY_RATE,
        authorizer: timed('auth', authorizerHandler),
        loadHandler: async (op) => timed('fn', ((await import(`../functions/${op.id}`)) as { handler: import('../dev/gateway').Handler }).handler),
      },
    });
    // On the client the stack created (pointed at its DynamoDB Local), before the bench's own calls.
    const watch = watchDynamo(rawDb(), { accounts: config.accountsTable, cache: config.cacheTable });
    const teams = {
      funded: await teamWithKey('bench-funded', FUNDED_CREDITS),
      low: await teamWithKey('bench-low', LOW_CREDITS),
      broke: await teamWithKey('bench-broke', 0),
    };
    const gatewayUrl = stack.gateway.url;
    const call: Bench['call'] = async (key, opPath, query) => {
      const u = new URL(gatewayUrl + opPath);
      for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
      const up0 = await upstream.requests();
      const [d0, r0, w0] = [dynamoCallCount(), dynamoRoundTripCount(), watch.calls.length];
      cpuSlots.fn = 0;
      cpuSlots.auth = 0;
      const c0 = process.cpuUsage();
      const t = performance.now();
      const res = await fetch(u, { headers: { 'x-api-key': key } });
      const text = await res.text();
      const ms = performance.now() - t;
      const c = process.cpuUsage(c0);
      const outcome = {
        calls: dynamoCallCount() - d0,
        trips: dynamoRoundTripCount() - r0,
        writes: summarize(watch.since(w0)),
        cpu: { total: (c.user + c.system) / 1000, fn: cpuSlots.fn, auth: cpuSlots.auth },
      };
      const upstreamCalls = (await upstream.requests()) - up0;
      let body: { meta?: { cached?: boolean }; error?: { code?: string; message?: string } } = {};
      try {
        body = JSON.parse(text);
      } catch {
        /* reported below */
      }
      return {
        status: res.status,
        code: body.error?.code,
        ms,
        upstream: upstreamCalls,
        cached: body.meta?.cached,
        ...outcome,
        ...(res.status !== 200 ? { error: `${res.status} ${body.error?.code ?? ''} ${body.error?.message ?? text.slice(0, 120)}`.trim() } : {}),
      };
    };
    await use({ stack, upstream, watch, teams, call, problems: [] }, (performance.now() - t0) / 1000);
  } finally {
    await stop();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

/** Runs scenario `a`'s routes for request i: in the upstream process (its fake), and here (what it sets in the environment). */
async function routesFor(b: Bench, a: Active, i: number): Promise<void> {
  if (!a.s.routes) return;
  const { FakeUpstream } = await import('../dev/upstream/fake');
  a.s.routes(new FakeUpstream(), i);
  await b.upstream.hook('scenario', a.index, i);
}

/** One scenario's requests: live (a new input, request number i), hit (input i again, cache_max_age), miss (a new input, cache_max_age). */
function scenarioRequests(b: Bench, a: Active) {
  let n = 0;
  const expect = (kind: string, o: Outcome, cached: boolean) => {
    if (o.status !== 200) b.problems.push(`${a.name} ${kind}: ${o.error}`);
    else if (o.cached !== cached) b.problems.push(`${a.name} ${kind}: expected cached=${cached}, got ${o.cached}`);
    return o;
  };
  const live = async (kind: string, withMaxAge: boolean, key = b.teams.funded.key) => {
    const i = n++;
    await routesFor(b, a, i);
    await a.s.prime?.(i);
    const q = { ...a.s.query(i), ...(withMaxAge ? { cache_max_age: CACHE_MAX_AGE } : {}) };
    return { i, out: expect(kind, await b.call(key, a.op.path, q), false) };
  };
  const hit = async (i: number) => expect('cache hit', await b.call(b.teams.funded.key, a.op.path, { ...a.s.query(i), cache_max_age: CACHE_MAX_AGE }), true);
  return { live, hit };
}

// ---- 2. the pipeline's paths ----

type PathId = 'hit' | 'live' | 'liveLow' | 'miss' | 'invalid' | 'refused' | 'notFound';
interface PathDef {
  id: PathId;
  label: string;
  team: 'funded' | 'low' | 'broke';
  status: number;
  /** Sequential round trips allowed (undefined: no target, information). */
  trips?: number;
  tripsTarget?: string;
  /** Which writes target applies. */
  writes: 'free' | 'live' | 'free after a reservation';
}
const PATHS: PathDef[] = [
  { id: 'hit', label: 'cache hit', team: 'funded', status: 200, trips: TARGET_TRIPS.hit, tripsTarget: 'cache hit', writes: 'free' },
  { id: 'live', label: 'live (funded team: scrape beside the reservation)', team: 'funded', status: 200, trips: TARGET_TRIPS.live, tripsTarget: 'live answer', writes: 'live' },
  { id: 'liveLow', label: 'live (team < 200 credits: scrape after the reservation)', team: 'low', status: 200, trips: TARGET_TRIPS.live, tripsTarget: 'live answer', writes: 'live' },
  { id: 'miss', label: `live miss (cache_max_age=${CACHE_MAX_AGE})`, team: 'funded', status: 200, trips: TARGET_TRIPS.live, tripsTarget: 'live answer', writes: 'live' },
  { id: 'invalid', label: '422 (invalid query)', team: 'funded', status: 422, trips: TARGET_TRIPS.invalid, tripsTarget: '422', writes: 'free' },
  { id: 'refused', label: '402 (no credits)', team: 'broke', status: 402, trips: TARGET_TRIPS.refused, tripsTarget: '402', writes: 'free' },
  { id: 'notFound', label: '404 after a reservation (refunded)', team: 'funded', status: 404, writes: 'free after a reservation' },
];

/** Which row of the request costs (shared/accounting/request-costs.ts, docs/credits.md's table) each benched path is. */
const COST_OF: Record<PathId, RequestPathId> = { hit: 'hit', live: 'live', liveLow: 'live', miss: 'miss', invalid: 'invalid', refused: 'refused', notFound: 'errorAfterReservation' };

/** How a path's measured calls, trips and writes compare with its stated cost (the table of docs/credits.md). */
function docsCheck(docs: RequestCost, calls: number, trips: number, w: WriteSummary, money: string[], record: number): string {
  const diff: string[] = [];
  if (docs.calls !== calls) diff.push(`calls ${calls} (docs ${docs.calls})`);
  if (docs.trips !== trips) diff.push(`trips ${trips} (docs ${docs.trips})`);
  if (docs.writes.reservation !== money.includes('reservation')) diff.push(`reservation ${money.includes('reservation') ? 'written' : 'not written'} (docs: ${docs.writes.reservation ? 'listed' : 'not listed'})`);
  if (docs.writes.refund !== money.includes('refund')) diff.push(`refund ${money.includes('refund') ? 'written' : 'not written'} (docs: ${docs.writes.refund ? 'listed' : 'not listed'})`);
  const tx = w.transactions[0]?.kinds.length ?? 0;
  if (docs.writes.transactionItems !== tx) diff.push(`transaction of ${tx} items (docs ${docs.writes.transactionItems})`);
  if (docs.writes.plain !== record) diff.push(`${record} plain (docs ${docs.writes.plain})`);
  return diff.length ? `DIFFERS: ${diff.join('; ')}` : 'agrees';
}

/** Judges one path's (or operation's) writes against the writes targets; returns the verdict cell. */
function judgeWrites(kind: PathDef['writes'], subject: string, xs: Outcome[]): string {
  const worst = (f: (o: Outcome) => number) => Math.max(...xs.map(f));
  const shown = mode(xs.map((o) => describeWrites(o.writes))).value;
  if (kind === 'live') {
    const ok = xs.every((o) => moneyWrites(o.writes).join() === 'reservation' && o.writes.transactions.length === 1 && recordWrites(o.writes).length <= TARGET_LIVE_PLAIN);
    return verdict(`writes of a live answer: the reservation, 1 settle transaction, <= ${TARGET_LIVE_PLAIN} plain`, subject, ok, shown);
  }
  const plain = worst((o) => recordWrites(o.writes).length);
  const ok = plain <= TARGET_FREE_PLAIN && xs.every((o) => o.writes.transactions.length === 0);
  const note = kind === 'free after a reservation' ? 'an error after a reservation also writes the reservation and its refund, which the target does not mention: judged on the record\'s plain writes' : undefined;
  return verdict(`plain item writes of a free answer <= ${TARGET_FREE_PLAIN}`, subject, ok, shown, note);
}

async function benchPaths(b: Bench, pathOp: Operation): Promise<void> {
  const { pathScenario } = await import('./bench-scenarios');
  const keyOf = (team: PathDef['team']) => b.teams[team].key;
  let n = 0;
  const queryOf = (p: PathDef): Record<string, string> => {
    const i = n++;
    switch (p.id) {
      case 'hit':
        return { ...pathScenario.query(-1), cache_max_age: CACHE_MAX_AGE };
      case 'miss':
        return { ...pathScenario.query(i), cache_max_age: CACHE_MAX_AGE };
      case 'invalid':
        return pathScenario.invalid;
      case 'notFound':
        return pathScenario.notFound(i);
      default:
        return pathScenario.query(i);
    }
  };
  // The hit's entry, then a warm-up of every path (each key's first use reads the key alone and writes lastUsedAt).
  await b.call(keyOf('funded'), pathOp.path, pathScenario.query(-1));
  for (let k = 0; k < Math.max(2, Math.min(K.warmup, 5)); k++) for (const p of PATHS) await b.call(keyOf(p.team), pathOp.path, queryOf(p));
  const got = new Map<PathId, Outcome[]>(PATHS.map((p) => [p.id, []]));
  for (let k = 0; k < K.pathRequests; k++) {
    for (const p of PATHS) {
      const o = await b.call(keyOf(p.team), pathOp.path, queryOf(p));
      if (o.status !== p.status) b.problems.push(`path ${p.label}: expected ${p.status}, got ${o.error ?? o.status}`);
      else if (p.status === 200 && o.cached !== (p.id === 'hit')) b.problems.push(`path ${p.label}: expected cached=${p.id === 'hit'}, got ${o.cached}`);
      got.get(p.id)!.push(o);
    }
  }
  const rows: Row[] = [];
  const cpuRows: Row[] = [];
  for (const p of PATHS) {
    const all = got.get(p.id)!;
    // The key's lastUsedAt (at most once a minute) adds a write, a call and a round trip to the request that makes it: left out here, counted in section 5.
    const xs = all.filter((o) => o.writes.keyTouches === 0).length ? all.filter((o) => o.writes.keyTouches === 0) : all;
    const calls = median(xs.map((o) => o.calls));
    const trips = median(xs.map((o) => o.trips));
    const typical = xs.find((o) => o.calls === calls && o.trips === trips) ?? xs[0]!;
    const money = moneyWrites(typical.writes);
    const record = recordWrites(typical.writes).length;
    const tripsCell =
      p.trips === undefined
        ? 'info'
        : verdict(`sequential DynamoDB round trips per ${p.tripsTarget} <= ${p.trips}`, `${p.label} (${pathOp.id})`, trips <= p.trips, String(trips), p.tripsTarget === 'live answer' && trips > p.trips ? LIVE_TRIPS_NOTE : undefined);
    const units = xs.map((o) => o.writes.units);
    rows.push([
      p.label,
      `${all.length}${all.length !== xs.length ? ` (${all.length - xs.length} with lastUsedAt left out)` : ''}`,
      countCell(xs.map((o) => o.calls)),
      countCell(xs.map((o) => o.trips)),
      p.trips === undefined ? '-' : `<= ${p.trips}`,
      tripsCell,
      countCell(units),
      judgeWrites(p.writes, `${p.label} (${pathOp.id})`, xs),
      docsCheck(requestCost(COST_OF[p.id]), calls, trips, typical.writes, money, record),
    ]);
    cpuRows.push([
      p.label,
      xs.length,
      f2(mid(xs.map((o) => o.cpu.fn))),
      f2(mid(xs.map((o) => o.cpu.auth))),
      f2(mid(xs.map((o) => o.cpu.fn + o.cpu.auth))),
      f2(mid(xs.map((o) => o.cpu.total - o.cpu.fn - o.cpu.auth))),
      f1(mid(xs.map((o) => o.ms))),
      countCell(xs.map((o) => o.upstream)),
    ]);
  }
  table(
    `2. The pipeline's paths on ${pathOp.id}: DynamoDB per answer, authorizer included (${K.pathRequests} requests per path, interleaved)`,
    ['path', 'n', 'DynamoDB calls', 'sequential round trips', 'target', 'verdict', 'write units', 'writes: verdict', 'docs/credits.md table'],
    rows,
    [
      'calls and round trips: dynamoCallCount() and dynamoRoundTripCount() deltas (shared/db/client.ts); median, "(max n)" when a request differed.',
      'writes: every command the DynamoDB client sent (scripts/bench-dynamo.ts, a middleware on rawDb()), per answer:',
      ...PATHS.map((p) => `  ${p.label}: ${mode(got.get(p.id)!.filter((o) => o.writes.keyTouches === 0).map((o) => describeWrites(o.writes))).value}`),
      'write units: UpdateItem/PutItem 1 per KB of item (items taken as < 1 KB, the cache entry at its real size, rounded up), TransactWriteItems 2 per KB per item;',
      '  a refused conditional write (the 402\'s reservation) still costs 1. The key\'s lastUsedAt (1 unit, at most once a minute per key: section 5) is left out.',
      `The writes target of a free answer (hit or error): at most ${TARGET_FREE_PLAIN} plain item writes; of a live answer: the reservation, one settle transaction, at most ${TARGET_LIVE_PLAIN} plain writes.`,
      `Round-trip targets: hit <= ${TARGET_TRIPS.hit}, 422 <= ${TARGET_TRIPS.invalid}, 402 <= ${TARGET_TRIPS.refused}, live <= ${TARGET_TRIPS.live} besides the upstream rounds; the 404 has none (information).`,
      `A FAIL on a live row is the design's: ${LIVE_TRIPS_NOTE}.`,
      'The 404\'s writes are judged on its record\'s plain writes; the reservation and its refund before them are money writes the free-answer target does not mention (docs/credits.md lists them).',
      `docs/credits.md column: the measured calls, trips and writes against that page's table ("agrees", or what differs).`,
    ],
  );
  table(
    `2b. CPU milliseconds per answer on ${pathOp.id} (process.cpuUsage(), median; DynamoDB Local and the replay upstream are other processes, not included)`,
    ['path', 'n', 'function CPU ms', 'authorizer CPU ms', 'function + authorizer', 'bench client + local gateway', 'latency ms (p50, zero-delay upstream)', 'upstream calls'],
    cpuRows,
    [
      'function: the operation\'s handler (shared/pipeline.ts, the scraper, the AWS SDK\'s work), timed around each call of it; authorizer: the same around the REQUEST authorizer.',
      'What Lambda bills is each function\'s duration; its own CPU is the part spent computing (the rest is waiting on DynamoDB and the upstream, which cost it wall time, not CPU).',
      'bench client + local gateway: the rest of this process during the request (the fetch client, the HTTP server, building the events): API Gateway\'s side, not billed as Lambda.',
    ],
  );
}

// ---- 3. every operation, zero-delay upstream ----

interface OpFigures {
  liveP50: Map<string, number>;
}

async function benchOperations(b: Bench, active: Active[], runners: Map<string, ReturnType<typeof scenarioRequests>>, warmI: Map<string, number>): Promise<OpFigures> {
  const rows: Row[] = [];
  const liveP50 = new Map<string, number>();
  const byPath: Record<'hit' | 'live' | 'miss', { name: string; xs: Outcome[] }[]> = { hit: [], live: [], miss: [] };
  for (const a of active) {
    const r = runners.get(a.name)!;
    const hits: Outcome[] = [];
    const lives: Outcome[] = [];
    const misses: Outcome[] = [];
    for (let k = 0; k < K.opRequests; k++) hits.push(await r.hit(warmI.get(a.name)!));
    for (let k = 0; k < K.opRequests; k++) lives.push((await r.live('live', false)).out);
    for (let k = 0; k < K.missRequests; k++) misses.push((await r.live('live miss', true)).out);
    liveP50.set(a.name, mid(lives.map((o) => o.ms)));
    for (const [kind, all] of [['cache hit', hits], ['live', lives], [`live miss (cache_max_age=${CACHE_MAX_AGE})`, misses]] as const) {
      const xs = all.filter((o) => o.writes.keyTouches === 0).length ? all.filter((o) => o.writes.keyTouches === 0) : all;
      const ms = all.map((o) => o.ms);
      rows.push([
        a.name,
        kind,
        all.length,
        f1(quantile(ms, 0.5)),
        f1(quantile(ms, 0.99)),
        countCell(xs.map((o) => o.calls)),
        countCell(xs.map((o) => o.trips)),
        countCell(xs.map((o) => o.writes.units)),
        f2(mid(xs.map((o) => o.cpu.fn))),
        f2(mid(xs.map((o) => o.cpu.auth))),
        countCell(xs.map((o) => o.upstream)),
      ]);
      byPath[kind === 'cache hit' ? 'hit' : kind === 'live' ? 'live' : 'miss'].push({ name: a.name, xs });
    }
  }
  // The targets, over every operation: one verdict per path (the operations over it named).
  const notes: string[] = [];
  for (const [id, label, target, writes] of [
    ['hit', 'cache hit', TARGET_TRIPS.hit, 'free'],
    ['live', 'live answer', TARGET_TRIPS.live, 'live'],
    ['miss', 'live miss (cache_max_age)', TARGET_TRIPS.live, 'live'],
  ] as const) {
    const list = byPath[id];
    if (!list.length) continue;
    const over = list.filter((x) => median(x.xs.map((o) => o.trips)) > target);
    const worst = Math.max(...list.map((x) => median(x.xs.map((o) => o.trips))));
    const v = verdict(`sequential DynamoDB round trips per ${id === 'hit' ? 'cache hit' : 'live answer'} <= ${target}`, `${label}, every operation (${list.length})`, over.length === 0, over.length ? `${worst} (${over.length} of ${list.length} over)` : String(worst), over.length && id !== 'hit' ? LIVE_TRIPS_NOTE : undefined);
    const w = judgeWrites(writes, `${label}, every operation (${list.length})`, list.flatMap((x) => x.xs));
    const shapes = mode(list.flatMap((x) => x.xs.map((o) => describeWrites(o.writes).replace(/cache \d+ KB/, 'cache n KB'))));
    notes.push(`${label}: round trips ${v} (max of the medians ${worst}); writes ${w}: ${shapes.value}${shapes.distinct > 1 ? ` (and ${shapes.distinct - 1} other shape(s))` : ''}`);
  }
  table(
    `3. Every operation, zero-delay replay upstream (${K.opRequests} hits and ${K.opRequests} live answers, ${K.missRequests} live misses each, sequential, after warm-up)`,
    ['operation', 'request', 'n', 'p50 ms', 'p99 ms', 'DynamoDB calls', 'round trips', 'write units', 'function CPU ms', 'authorizer CPU ms', 'upstream calls'],
    rows,
    [
      'cache hit: the same input with cache_max_age every time; live: a new input per request (a cache miss, 1 credit; the funded team, so the scrape goes out beside the reservation); live miss: a new input with cache_max_age.',
      'Latency is the bench client\'s, around the whole request; calls, round trips, write units and CPU as in section 2 (medians; the request that wrote a key\'s lastUsedAt left out).',
      ...notes,
    ],
  );
  return { liveP50 };
}

// ---- 4. against a 200 ms upstream, interleaved rounds ----

async function benchDelayed(b: Bench, active: Active[], runners: Map<string, ReturnType<typeof scenarioRequests>>, figures: OpFigures | undefined): Promise<void> {
  /** The rows: every operation (funded team), and the path operation for the team below 200 credits (information). */
  const lowOf = active.find((a) => a.s.op === 'microblog-a-user-posts' && !a.s.variant) ?? active[0];
  const rowsDef = [...active.map((a) => ({ a, name: a.name, low: false })), ...(lowOf ? [{ a: lowOf, name: `${lowOf.name} [team < 200 credits]`, low: true }] : [])];
  const perRound = new Map<string, number[]>(rowsDef.map((r) => [r.name, []]));
  const upstreamCalls = new Map<string, number[]>(rowsDef.map((r) => [r.name, []]));
  await b.upstream.setDelay(UPSTREAM_DELAY_MS);
  try {
    for (let round = 0; round < K.rounds; round++) {
      // Each round in another order, so no row always follows the same one.
      const shift = Math.round((round * rowsDef.length) / K.rounds);
      const order = [...rowsDef.slice(shift), ...rowsDef.slice(0, shift)];
      for (const r of order) {
        const run = runners.get(r.a.name)!;
        const key = r.low ? b.teams.low.key : b.teams.funded.key;
        await run.live('live (delayed warm-up)', false, key);
        const ms: number[] = [];
        for (let k = 0; k < K.roundRequests; k++) {
          const o = (await run.live('live (delayed)', false, key)).out;
          ms.push(o.ms);
          upstreamCalls.get(r.name)!.push(o.upstream);
        }
        perRound.get(r.name)!.push(mid(ms));
      }
    }
  } finally {
    await b.upstream.setDelay(0);
  }
  const rows: Row[] = [];
  const oneRoundRatios: number[][] = Array.from({ length: K.rounds }, () => []);
  for (const r of rowsDef) {
    const meds = perRound.get(r.name)!;
    const middle = mid(meds);
    const rounds = r.a.s.sequentialRoundTrips ?? 1;
    // Rounded as printed (3 decimals), so a row shown at the target passes.
    const ratio = Math.round((middle / UPSTREAM_DELAY_MS) * 1000) / 1000;
    const zero = figures?.liveP50.get(r.a.name);
    let check: string;
    if (r.low) check = 'info (scrape after the reservation)';
    else if (rounds === 1) {
      check = verdict(`live answer of one upstream round / ${UPSTREAM_DELAY_MS} ms upstream <= ${TARGET_DELAY_RATIO}x (median of ${K.rounds} round medians)`, r.name, ratio <= TARGET_DELAY_RATIO, `${f3(ratio)}x (rounds ${f3(Math.min(...meds) / UPSTREAM_DELAY_MS)}-${f3(Math.max(...meds) / UPSTREAM_DELAY_MS)})`);
      meds.forEach((m, i) => oneRoundRatios[i]!.push(m / UPSTREAM_DELAY_MS));
    } else check = `info (${rounds} rounds: ${f3(ratio / rounds)}x per round)`;
    rows.push([
      r.name,
      rounds,
      `${K.rounds} x ${K.roundRequests}`,
      countCell(upstreamCalls.get(r.name)!),
      `${f1(Math.min(...meds))} / ${f1(middle)} / ${f1(Math.max(...meds))}`,
      `${f3(ratio)}x`,
      zero === undefined ? '-' : `${f3((middle - zero) / UPSTREAM_DELAY_MS)}x`,
      check,
    ]);
  }
  const pooled = oneRoundRatios.map((xs) => mid(xs)).filter(Number.isFinite);
  table(
    `4. Live answers with every upstream answer delayed ${UPSTREAM_DELAY_MS} ms: ${K.rounds} interleaved rounds of ${K.roundRequests} requests per row (after 1 discarded each)`,
    ['operation', 'upstream rounds', 'n', 'upstream calls', 'round medians ms: min / median / max', `median / ${UPSTREAM_DELAY_MS} ms`, `(median - zero-delay p50) / ${UPSTREAM_DELAY_MS} ms`, `target (one round) <= ${TARGET_DELAY_RATIO}x`],
    rows,
    [
      `Each round runs every row once, in a rotated order; a row's figure is the median of its per-round medians, so one noisy round never decides a verdict.`,
      `One-round rows, per round (the median over those rows): ${pooled.length ? `${f3(Math.min(...pooled))} / ${f3(mid(pooled))} / ${f3(Math.max(...pooled))}x (min / median / max over ${pooled.length} rounds)` : '-'}.`,
      'The figure includes the request\'s own work (gateway, authorizer, DynamoDB Local, mapping); the column before the verdict subtracts section 3\'s zero-delay live p50 (information).',
      'Rows of 2 or 3 upstream rounds (by design: a name to resolve first, a page to fill) are information; "per round" divides by their rounds.',
      `The [team < 200 credits] row: the scrape waits for the reservation (one DynamoDB round trip before the upstream); every other row's team is funded (scrapesAhead).`,
    ],
  );
}

// ---- 5. the key's lastUsedAt ----

function benchKeyTouches(b: Bench, startedAt: number): void {
  const { calls } = b.watch;
  const touches = new Map<string, number[]>();
  calls.forEach((c) => {
    for (const w of c.writes) if (w.kind === 'key touch' && w.applied && w.at >= startedAt) (touches.get(w.pk) ?? touches.set(w.pk, []).get(w.pk)!).push(w.at);
  });
  const minutes = (Date.now() - startedAt) / 60_000;
  const gaps = [...touches.values()].flatMap((ts) => ts.slice(1).map((t, i) => t - ts[i]!));
  const minGap = gaps.length ? Math.min(...gaps) : Infinity;
  const total = [...touches.values()].reduce((n, ts) => n + ts.length, 0);
  const v = verdict('key lastUsedAt written at most once a minute per key', `${touches.size} keys, ${f1(minutes)} min`, minGap >= 59_000, `${total} writes, shortest gap ${Number.isFinite(minGap) ? `${f1(minGap / 1000)} s` : '- (one per key)'}`);
  console.log(`\n== 5. The key's lastUsedAt (the authorizer's one write, KEY_TOUCH_INTERVAL_S = 60) ==`);
  console.log(`  ${total} lastUsedAt writes for ${touches.size} keys over ${f1(minutes)} minutes of requests; shortest gap between two of one key: ${Number.isFinite(minGap) ? `${f1(minGap / 1000)} s` : 'none (one write per key)'}: ${v}`);
  console.log('  A request that makes it has one call, one round trip and one write unit more (the authorizer writes after its read); sections 2 and 3 leave it out.');
}

function printSummary(started: number): void {
  console.log('\n== Summary (targets) ==');
  for (const v of verdicts) console.log(`${v.pass ? 'PASS' : 'FAIL'}  ${v.target.padEnd(92)}  ${v.subject.padEnd(52)}  measured ${v.measured}${!v.pass && v.note ? `  (${v.note})` : ''}`);
  const failed = verdicts.filter((v) => !v.pass).length;
  console.log(failed ? `\n!! ${failed} of ${verdicts.length} targets FAIL (report only: exit code 0)` : `\nAll ${verdicts.length} targets PASS`);
  if (REDUCED) console.log('!! A reduced run (see the header): these are not the reference figures.');
  console.log(`Bench took ${f1((performance.now() - started) / 1000)} s.`);
}

async function main() {
  const started = performance.now();
  console.log(`npm run bench — ${new Date().toISOString()} — node ${process.version}, ${os.platform()} ${os.arch()}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log(
    `  knobs: ${Object.entries(K)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ')}; sections: ${[...SECTIONS].join(',')}${QUICK ? ' (--quick)' : ''}${overridden.length ? `; set: ${overridden.join(' ')}` : ''}`,
  );
  if (REDUCED) console.log('  !! REDUCED RUN (quick knobs, BENCH_OPS or BENCH_SECTIONS): for development; the reference figures come from a full `npm run bench` on a quiet machine.');
  if (os.loadavg()[0]! > os.cpus().length) console.log(`  !! the machine is busy (load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs): latency, CPU and import figures are inflated; counts and writes are not affected.`);
  const { operations, routedOperations, handlerFile } = await import('../shared/operations');
  const { scenarios, pathScenario } = await import('./bench-scenarios');

  const routed = routedOperations();
  const routedIds = new Set(routed.map((o) => o.id));
  if (SECTIONS.has('imports')) {
    const withHandler = operations.filter((o) => (routedIds.has(o.id) || existsSync(path.join(ROOT, handlerFile(o)))) && (!ONLY_OPS || ONLY_OPS.has(o.id)));
    await benchBundles(withHandler.map((o) => ({ id: o.id, file: handlerFile(o), parsesHtml: o.parsesHtml, routed: routedIds.has(o.id), platform: o.platform })));
  }
  if (!SECTIONS.has('paths') && !SECTIONS.has('operations') && !SECTIONS.has('delayed') && !SECTIONS.has('monitors') && !SECTIONS.has('jobs')) return printSummary(started);

  const { active, notes } = activeScenarios(scenarios, routed, operations);
  console.log('\n== Operations benched through the gateway ==');
  for (const { s } of active) console.log(`  ${s.op}${s.variant ? ` (${s.variant})` : ''}${s.note ? ` — ${s.note}` : ''}`);
  for (const n of notes) console.log(`  ${n}`);

  await withBench(async (b, stackStartS) => {
    const requestsStarted = Date.now();
    const javaCpu0 = procCpuMs(b.stack.dynamo?.process.pid);
    const upCpu0 = await b.upstream.cpuUsage();
    const ownCpu0 = process.cpuUsage();
    console.log(`\nSet-up (started in ${f1(stackStartS)} s): DynamoDB Local (in memory, Java, pid ${b.stack.dynamo?.process.pid}) at ${b.stack.endpoint}; replay upstream in its own node process (pid ${b.upstream.process.pid}) at ${b.upstream.url} (recorded fixtures, every input answered); local gateway ${b.stack.gateway.url}`);
    console.log(`  This process (pid ${process.pid}): the bench's HTTP client, the local gateway, the authorizer and the functions. CPU figures are this process's; DynamoDB Local and the upstream are left out.`);
    console.log(`  The gateway's per-team throttle (100 requests / 60 s) is lifted: startGateway({ ratePerMinute: ${GATEWAY_RATE}, burst: ${GATEWAY_RATE} }). Teams: funded (${FUNDED_CREDITS} credits), low (${LOW_CREDITS}: below SCRAPE_AHEAD_MIN_CREDITS), broke (0).`);
    console.log('  Requests are sequential over keep-alive HTTP on 127.0.0.1.');

    const runners = new Map(active.map((a) => [a.name, scenarioRequests(b, a)]));
    const warmI = new Map<string, number>();
    // Every scenario warmed up before any is measured: the first ones measured must not pay for a cold process and a cold database.
    for (const a of active) {
      const r = runners.get(a.name)!;
      for (let k = 0; k < K.warmup; k++) {
        const { i } = await r.live('warm-up', false);
        warmI.set(a.name, i);
        await r.hit(i);
      }
    }
    if (SECTIONS.has('paths')) {
      const pathOp = routed.find((o) => o.id === pathScenario.op);
      if (pathOp) await benchPaths(b, pathOp);
      else console.log(`\n!! section 2 skipped: ${pathScenario.op} is not routed`);
    }
    let figures: OpFigures | undefined;
    if (SECTIONS.has('operations') && active.length) figures = await benchOperations(b, active, runners, warmI);
    if (SECTIONS.has('delayed') && active.length) await benchDelayed(b, active, runners, figures);
    benchKeyTouches(b, requestsStarted);
    if (SECTIONS.has('monitors')) await benchMonitorWrites();
    if (SECTIONS.has('jobs')) await benchJobs(b.stack, b.upstream, b.watch, JOB_INPUTS, () => procCpuMs(b.stack.dynamo?.process.pid));

    const own = process.cpuUsage(ownCpu0);
    const up = await b.upstream.cpuUsage();
    const javaCpu = procCpuMs(b.stack.dynamo?.process.pid) - javaCpu0;
    console.log(
      `\nCPU over the request sections: this process ${f1((own.user + own.system) / 1e6)} s; left out of the figures: DynamoDB Local ${f1(javaCpu / 1000)} s, the replay upstream ${f1((up.user + up.system - upCpu0.user - upCpu0.system) / 1e6)} s.`,
    );
    if (b.problems.length) {
      console.log(`\n!! ${b.problems.length} request(s) did not answer as expected (first 10):`);
      for (const p of b.problems.slice(0, 10)) console.log(`   ${p}`);
    }
    if (active.length === 0) console.log('\n!! no operation could be benched through the gateway');
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
