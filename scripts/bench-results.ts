import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

/**
 * The memory a job's end takes to write its result files (shared/jobs/results.ts writeResults), for
 * a synthetic job of BENCH_RESULT_PARTS parts (default 100,000) of BENCH_RESULT_ITEMS items each
 * (default 10; about 600 bytes of JSON an item, a post's fields), in the local file store:
 *
 *   npx tsx scripts/bench-results.ts
 *
 * The parts are written once under BENCH_RESULT_DIR (default <tmp>/bench-results-<parts>x<items>) and
 * kept for the next run; then a fresh process runs writeResults alone and prints its peak resident
 * set (getrusage's maxrss), its time and the files' sizes. BENCH_RESULT_MODULE names another module
 * exporting writeResults (the same signature), to compare an implementation with this one.
 */
const parts = Number(process.env.BENCH_RESULT_PARTS || 100_000);
const items = Number(process.env.BENCH_RESULT_ITEMS || 10);
const dir = process.env.BENCH_RESULT_DIR || path.join(os.tmpdir(), `bench-results-${parts}x${items}`);
const TEAM = 'bench-team';
const JOB = 'bench-job';

async function prepare(): Promise<void> {
  const { partKey } = await import('../shared/jobs/files');
  const done = path.join(dir, 'prepared');
  if (existsSync(done)) return;
  const t0 = performance.now();
  for (let i = 0; i < parts; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, parts - i) }, async (_, n) => {
        const index = i + n;
        const input = `user${index}.bsky.social`;
        const part = {
          index,
          line: index + 1,
          input,
          pages: 1,
          items: Array.from({ length: items }, (_, k) => ({
            uri: `at://did:plc:${index.toString(36).padStart(8, '0')}/app.bsky.feed.post/3k${k}${index}`,
            id: `3k${k}${index}`,
            text: `Post ${k} of ${input}: some words, "quoted" ones, and a line break\nas posts have them. #bench`,
            createdAt: '2026-12-01T10:00:00.000Z',
            author: { handle: input, displayName: `User ${index}`, did: `did:plc:${index.toString(36)}` },
            likeCount: k * 3,
            repostCount: k,
            replyCount: 0,
            langs: ['en'],
          })),
        };
        const file = path.join(dir, partKey(TEAM, JOB, index));
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, JSON.stringify(part));
      }),
    );
  }
  await writeFile(done, '');
  console.log(`parts written: ${parts.toLocaleString('en')} x ${items} items in ${((performance.now() - t0) / 1000).toFixed(0)} s (${dir})`);
}

async function measure(): Promise<void> {
  const { operation } = await import('../shared/operations');
  const { resultKey } = await import('../shared/jobs/files');
  const mod = (await import(process.env.BENCH_RESULT_MODULE || '../shared/jobs/results')) as typeof import('../shared/jobs/results');
  const t0 = performance.now();
  const written = await mod.writeResults(operation('microblog-a-user-posts') as never, TEAM, JOB, Array.from({ length: parts }, (_, i) => i));
  const seconds = (performance.now() - t0) / 1000;
  const sizes = await Promise.all(['items.jsonl', 'items.csv'].map(async (n) => (await stat(path.join(dir, resultKey(TEAM, JOB, n)))).size));
  const peakMb = process.resourceUsage().maxRSS / 1024;
  console.log(JSON.stringify({ module: process.env.BENCH_RESULT_MODULE || 'shared/jobs/results', parts, items: written.items, seconds: Number(seconds.toFixed(1)), peakRssMb: Math.round(peakMb), heapLimitMb: Math.round((await import('node:v8')).getHeapStatistics().heap_size_limit / 1048576), itemsJsonlMb: Math.round(sizes[0]! / 1048576), itemsCsvMb: Math.round(sizes[1]! / 1048576) }));
}

async function main(): Promise<void> {
  process.env.JOB_FILES_DIR = dir;
  delete process.env.JOBS_BUCKET;
  if (process.argv[2] === 'measure') return measure();
  await prepare();
  // A fresh process: its peak resident set is writeResults' alone (the preparation's is not in it).
  execFileSync(process.execPath, [...process.execArgv, process.argv[1]!, 'measure'], { stdio: 'inherit', env: { ...process.env, JOB_FILES_DIR: dir } });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
