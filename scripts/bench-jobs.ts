import { performance } from 'node:perf_hooks';
import type { LocalStack } from '../dev/stack';
import type { UpstreamProcess } from '../dev/upstream/child';
import type { DynamoWatch } from './bench-dynamo';

/**
 * Section 7 of `npm run bench`: a bulk job of BENCH_JOB_INPUTS inputs (10,000 in a full run) of
 * microblog-a-user-posts against the replay upstream answering in 50–300 ms, submitted as an
 * uploaded JSON Lines file through the local gateway and run by the in-process queue (the same
 * engine as the SQS worker: shared/jobs/engine.ts) within the platform's bound of 25 at once.
 * Prints inputs per second, this process's CPU ms per input, DynamoDB calls and write units per
 * input (priced by ./bench-dynamo.ts: 1 unit an item, 2 in a transaction, a cache entry by its
 * size), and credits charged against live pages (the job's count, the ledger's, the history's).
 * DynamoDB Local's CPU per input beside this process's (on two cores it is the job's bottleneck).
 * BENCH_LOAD_RPS, when given (what `npm run load` answered per second just before, on the same
 * machine), is printed beside the job's rate: the target is a job at least as fast.
 */
export async function benchJobs(stack: LocalStack, upstream: UpstreamProcess, watch: DynamoWatch, inputs: number, dynamoCpuMs: () => number): Promise<{ inputsPerSecond: number }> {
  const { teamWithKey } = await import('../dev/teams');
  const { ledger } = await import('../shared/accounting/ledger');
  const { balance } = await import('../shared/accounting/teams');
  const { summarize } = await import('./bench-dynamo');
  // The team's bound at the platform's: the platform's 25 at once is what limits the job.
  process.env.JOB_INPUTS_PER_TEAM = '25';
  const credits = inputs * 2;
  const team = await teamWithKey('bench-jobs', credits);
  await upstream.setDelay(50, 250);
  const base = stack.gateway.url;
  const headers = { 'x-api-key': team.key, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => (await (await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as { data: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
  const lines = Array.from({ length: inputs }, (_, i) => JSON.stringify({ handle: `bench-job-${i}.bsky.social` })).join('\n');
  const mark = watch.calls.length;
  const cpu0 = process.cpuUsage();
  const javaCpu0 = dynamoCpuMs();
  const t0 = performance.now();
  const upload = (await post('/v1/jobs/uploads', { format: 'jsonl' })).data.upload as { id: string; url: string; headers: Record<string, string> };
  const put = await fetch(upload.url, { method: 'PUT', headers: upload.headers, body: lines });
  if (!put.ok) throw new Error(`upload refused: ${put.status}`);
  const submitted = (await post('/v1/jobs', { operation: 'microblog-a-user-posts', inputsUpload: upload.id })).data.job as { id: string };
  const tSubmitted = performance.now();
  let job: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  for (;;) {
    await stack.jobs.idle();
    job = ((await (await fetch(`${base}/v1/jobs/${submitted.id}`, { headers })).json()) as { data: { job: unknown } }).data.job;
    if (!['queued', 'running'].includes(job.state)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const seconds = (performance.now() - t0) / 1000;
  const inputsPerSecond = inputs / seconds;
  const cpu = process.cpuUsage(cpu0);
  const javaCpu = dynamoCpuMs() - javaCpu0;
  await upstream.setDelay(0, 0);
  const calls = watch.since(mark);
  const writes = summarize(calls);
  const units = writes.units;
  const charges = (await ledger(team.teamId)).filter((e) => e.jobId === submitted.id).length;
  const spent = credits - (await balance(team.teamId));
  const perInput = (n: number) => (n / inputs).toFixed(2);
  console.log(`\n== 7. A bulk job: ${inputs.toLocaleString('en')} inputs, replay upstream 50–300 ms, in-process queue (platform bound 25) ==`);
  console.log(`  job ${job.id}: ${job.state}; ${job.inputs.done} done, ${job.inputs.failed} failed; ${job.pages} pages, ${job.items.toLocaleString('en')} items`);
  console.log(`  wall: ${seconds.toFixed(1)} s (submit with its upload and checks ${((tSubmitted - t0) / 1000).toFixed(1)} s) -> ${inputsPerSecond.toFixed(1)} inputs/s`);
  console.log(`  CPU of this process (gateway, jobs API, engine, operation handlers): ${((cpu.user + cpu.system) / 1000 / inputs).toFixed(2)} ms per input; DynamoDB Local's: ${(javaCpu / inputs).toFixed(2)} ms per input`);
  const loadRps = Number(process.env.BENCH_LOAD_RPS);
  if (loadRps > 0) console.log(`  beside \`npm run load\` (BENCH_LOAD_RPS, same machine): ${loadRps} req/s -> the job runs ${(inputsPerSecond / loadRps).toFixed(2)}x its rate: ${inputsPerSecond >= loadRps ? 'at least as fast' : 'SLOWER'}`);
  console.log(`  DynamoDB: ${perInput(calls.length)} calls and ${perInput(units)} write units per input (jobs bookkeeping and the pipeline's own, together)`);
  const byCommand = new Map<string, number>();
  for (const c of calls) {
    const k = `${c.command.replace(/Command$/, '')}${c.ok ? '' : ' refused'}`;
    byCommand.set(k, (byCommand.get(k) ?? 0) + 1);
  }
  console.log(`  DynamoDB calls per input, by command: ${[...byCommand].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${perInput(n)}`).join('; ')}`);
  // Where the write units go: transactions by their items' kinds (a cancelled one billed too), plain writes by kind.
  const byKind = new Map<string, { n: number; units: number }>();
  const add = (k: string, units: number) => byKind.set(k, { n: (byKind.get(k)?.n ?? 0) + 1, units: (byKind.get(k)?.units ?? 0) + units });
  for (const c of calls) {
    if (c.command === 'TransactWriteItemsCommand') add(`tx(${c.writes.map((w) => w.kind).join(', ')})${c.ok ? '' : ' cancelled'}`, c.writes.reduce((n, w) => n + w.units, 0));
    else for (const w of c.writes) if (w.kind !== 'key touch') add(`${w.kind}${w.applied ? '' : ' refused'}`, w.units);
  }
  console.log(`  write units per input, by write: ${[...byKind].sort((a, b) => b[1].units - a[1].units).map(([k, v]) => `${k} ${perInput(v.units)} (${perInput(v.n)}x)`).join('; ')}`);
  console.log(`  credits: job ${job.creditsCharged}, ledger ${charges}, balance moved ${spent}, live pages ${job.pages} -> ${job.creditsCharged === charges && charges === spent && spent === job.pages ? 'equal' : 'NOT EQUAL'}`);
  return { inputsPerSecond };
}
