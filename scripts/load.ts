/**
 * `npm run load`: the local gateway under load, on loopback only.
 *
 * 100 concurrent clients for 30 s (LOAD_CLIENTS, LOAD_SECONDS; at most LOAD_MAX_REQUESTS requests in
 * all) call every routed operation in turn, with the input the replay has a recording of
 * (dev/upstream/replay.ts): 4 of 5 live, 1 of 5 with cache_max_age=1d. The replay upstream answers
 * after 50-300 ms (LOAD_UPSTREAM_MIN_MS, LOAD_UPSTREAM_MAX_MS). The per-team rate limit is raised for
 * the run (startGateway's ratePerMinute/burst). Everything runs in this process, on the local stack
 * (dev/stack.ts), except its own in-memory DynamoDB Local.
 *
 * Prints throughput, latency p50/p99 (overall and per operation), answers by status and code, memory
 * (RSS of this process, sampled each second, and of DynamoDB Local), and checks that no credit was
 * lost or created: the charges reported to callers == the teams' balance drop == the ledger records.
 * Exit code 1 when that check fails or an answer is a 5xx other than an upstream 503.
 */

import { measuringEnvironment } from '../dev/env';

// Before any project module is loaded (they are imported in main).
measuringEnvironment('load');
// DynamoDB Local sharing two busy cores answers far slower than DynamoDB: measure the service, not its timeouts.
process.env.DYNAMODB_TIMEOUT_MS ||= '5000';
process.env.DYNAMODB_CONNECT_TIMEOUT_MS ||= '2000';

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { procCpuMs } from './proc-cpu';

const int = (name: string, fallback: number) => {
  const n = Number(process.env[name]);
  return Number.isFinite(n) && n > 0 ? Math.floor(n) : fallback;
};
const CLIENTS = int('LOAD_CLIENTS', 100);
const SECONDS = int('LOAD_SECONDS', 30);
const MAX_REQUESTS = int('LOAD_MAX_REQUESTS', 200_000);
const UP_MIN = int('LOAD_UPSTREAM_MIN_MS', 50);
const UP_MAX = int('LOAD_UPSTREAM_MAX_MS', 300);
const TEAMS = 10;
const CREDITS_PER_TEAM = 1_000_000;
const CACHED_SHARE = 5; // every 5th request asks cache_max_age=1d

function quantile(xs: number[], q: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] as number;
}
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

function rssOfPid(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)\s+kB/);
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

async function main() {
  const { startLocalStack } = await import('../dev/stack');
  const { teamWithKey } = await import('../dev/teams');
  const { RECORDED } = await import('../dev/upstream/replay');
  const { balance } = await import('../shared/accounting/teams');
  const { ledger } = await import('../shared/accounting/ledger');
  const { routedOperations } = await import('../shared/operations');

  const stack = await startLocalStack({ upstream: 'replay', gateway: { host: '127.0.0.1', ratePerMinute: 1e9, burst: 1e9 } });
  try {
    const { gateway, dynamo } = stack;
    const fake = stack.upstream!;
    const inputOf = (id: string) => RECORDED[id as keyof typeof RECORDED];
    const routed = routedOperations().filter((op) => inputOf(op.id));
    const skipped = routedOperations().filter((op) => !inputOf(op.id)).map((op) => op.id);
    fake.delayMs = UP_MIN;
    fake.jitterMs = UP_MAX - UP_MIN;

    const teams: { teamId: string; key: string }[] = [];
    for (let i = 0; i < TEAMS; i++) teams.push(await teamWithKey(`load-${i}`, CREDITS_PER_TEAM));

    console.log(`load: ${CLIENTS} clients for ${SECONDS} s (at most ${MAX_REQUESTS} requests) on ${gateway.url}, upstream ${UP_MIN}-${UP_MAX} ms, ${TEAMS} teams`);
    console.log(`  operations: ${routed.map((o) => o.id).join(', ')}${skipped.length ? `; skipped (no recorded input in the replay): ${skipped.join(', ')}` : ''}`);

    const latencies: number[] = [];
    const byOp = new Map<string, number[]>();
    const answers = new Map<string, number>();
    let charged = 0;
    let sent = 0;
    let transportErrors = 0;
    let bad5xx = 0;
    let rssPeak = process.memoryUsage().rss;
    let dynamoPeak = rssOfPid(dynamo?.process.pid) ?? 0;
    const rssStart = process.memoryUsage().rss;
    let heapPeak = process.memoryUsage().heapUsed;
    const sampler = setInterval(() => {
      // The upstream records every request for tests; a load run does not need the record.
      fake.requests.length = 0;
      fake.forgetConnections();
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
      dynamoPeak = Math.max(dynamoPeak, rssOfPid(dynamo?.process.pid) ?? 0);
    }, 1000);

    const cpu0 = process.cpuUsage();
    const javaCpu0 = procCpuMs(dynamo?.process.pid);
    const started = performance.now();
    const until = started + SECONDS * 1000;
    async function client(c: number) {
      const team = teams[c % TEAMS]!;
      for (let i = 0; performance.now() < until && sent < MAX_REQUESTS; i++) {
        const n = sent++;
        const op = routed[(c + i) % routed.length]!;
        const input = inputOf(op.id)!;
        const query = n % CACHED_SHARE === 0 ? { ...input, cache_max_age: '1d' } : input;
        const url = `${gateway.url}${op.path}?${new URLSearchParams(query)}`;
        const t0 = performance.now();
        try {
          const res = await fetch(url, { headers: { 'x-api-key': team.key } });
          const body = (await res.json()) as { meta?: { creditsCharged?: number }; error?: { code?: string } };
          const ms = performance.now() - t0;
          latencies.push(ms);
          (byOp.get(op.id) ?? byOp.set(op.id, []).get(op.id)!).push(ms);
          const label = res.status === 200 ? '200' : `${res.status} ${body.error?.code ?? '?'}`;
          answers.set(label, (answers.get(label) ?? 0) + 1);
          charged += body.meta?.creditsCharged ?? 0;
          if (res.status >= 500 && !(res.status === 503 && ['UPSTREAM_BLOCKED', 'EXTRACTION_FAILED', 'PLATFORM_UNAVAILABLE'].includes(body.error?.code ?? ''))) bad5xx += 1;
        } catch {
          transportErrors += 1;
        }
      }
    }
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const javaCpu = procCpuMs(dynamo?.process.pid) - javaCpu0;
    clearInterval(sampler);
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);

    let balanceDrop = 0;
    let ledgerRecords = 0;
    let ledgerCredits = 0;
    for (const t of teams) {
      balanceDrop += CREDITS_PER_TEAM - (await balance(t.teamId));
      const records = await ledger(t.teamId);
      ledgerRecords += records.length;
      ledgerCredits += records.reduce((s, r) => s + r.credits, 0);
    }

    const done = latencies.length;
    console.log(`  requests: ${done} answered in ${seconds.toFixed(1)} s = ${(done / seconds).toFixed(0)} req/s; transport errors ${transportErrors}`);
    console.log(`  latency: p50 ${quantile(latencies, 0.5).toFixed(0)} ms, p99 ${quantile(latencies, 0.99).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms`);
    // Beside the job bench's figures (scripts/bench-jobs.ts prints the same two per input).
    console.log(`  CPU per answer: this process (load clients, gateway, authorizer, handlers) ${((cpu.user + cpu.system) / 1000 / done).toFixed(2)} ms; DynamoDB Local's ${(javaCpu / done).toFixed(2)} ms`);
    for (const [id, xs] of byOp) console.log(`    ${id}: ${xs.length} requests, p50 ${quantile(xs, 0.5).toFixed(0)} ms, p99 ${quantile(xs, 0.99).toFixed(0)} ms`);
    console.log(`  answers: ${[...answers].sort().map(([k, v]) => `${k}: ${v}`).join(', ')}; 5xx other than an upstream 503: ${bad5xx}`);
    console.log(`  memory: this process RSS ${mb(rssStart)} at start, peak ${mb(rssPeak)} (JS heap peak ${mb(heapPeak)}, ${mb(process.memoryUsage().heapUsed)} at the end); DynamoDB Local peak ${dynamoPeak ? mb(dynamoPeak) : 'n/a'}`);
    const creditsOk = charged === balanceDrop && balanceDrop === ledgerRecords && ledgerRecords === ledgerCredits;
    console.log(`  credits: charged to callers ${charged}, balance drop ${balanceDrop}, ledger records ${ledgerRecords} (${ledgerCredits} credits): ${creditsOk ? 'OK, none lost or created' : 'FAIL'}`);
    if (!creditsOk || bad5xx > 0 || transportErrors > 0) process.exitCode = 1;
  } finally {
    await stack.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
