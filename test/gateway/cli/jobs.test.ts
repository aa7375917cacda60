import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { replayAll } from '../../../dev/upstream/replay';
import { startHarness, type Harness } from '../../support/harness';
import { cliEnv, runCli, tempDir } from './support';

/**
 * `social-data jobs …` in a child process against the local gateway (jobs run in this process's
 * in-process queue, on the replay upstream): submit a file inline with --wait --download, a CSV file
 * (uploaded to its pre-signed URL first), list, get, results, deliver (refused: no destination; the
 * delivery itself is tested against moto_server in test/integration/jobs/destination.test.ts and
 * test/e2e/jobs-page.test.ts); a malformed command line is exit 2.
 */
let h: Harness;
let key: string;
beforeAll(async () => {
  h = await startHarness();
  replayAll(h.fake, { anyInput: true });
  ({ key } = await h.team(50));
});
afterAll(() => h?.stop());

const cli = (args: string[]) => runCli(['jobs', ...args], cliEnv(h.gateway.url, key));
const json = (text: string) => JSON.parse(text) as any; // eslint-disable-line @typescript-eslint/no-explicit-any

test('submit --wait --download: the job ends and its four files are written; list and get show it', async () => {
  const dir = tempDir();
  const input = path.join(dir, 'handles.txt');
  writeFileSync(input, '@marlowe-tern.bsky.social\nmarlowe-tern.bsky.social\n{"handle":"other-one.bsky.social"}\n');
  const out = path.join(dir, 'results');
  const run = await cli(['submit', 'microblog-a-user-posts', '--input', input, '--wait', '--download', out]);
  expect(run.code).toBe(0);
  const { job } = json(run.stdout);
  expect(job).toMatchObject({ state: 'succeeded', inputs: { total: 2, duplicates: 1, done: 2 }, creditsCharged: 2 });
  expect(run.stderr).toContain(`${job.id} succeeded`);
  expect(readdirSync(out).sort()).toEqual(['errors.csv', 'errors.jsonl', 'items.csv', 'items.jsonl'].map((f) => `${job.id}-${f}`));
  const rows = parseCsv(readFileSync(path.join(out, `${job.id}-items.csv`), 'utf8'), { columns: true }) as { input: string }[];
  expect(new Set(rows.map((r) => r.input))).toEqual(new Set(['@marlowe-tern.bsky.social', 'other-one.bsky.social']));
  const list = await cli(['list']);
  expect(json(list.stdout).jobs.map((j: { id: string }) => j.id)).toContain(job.id);
  expect(json((await cli(['get', job.id])).stdout).job.id).toBe(job.id);
  expect(json((await cli(['results', job.id])).stdout).files).toHaveLength(4);
  // deliver (POST /v1/jobs/{id}/destination/retry): this job names no bucket, so the API's 400 and its message, exit 1.
  const deliver = await cli(['deliver', job.id]);
  expect(deliver.code).toBe(1);
  expect(deliver.stderr).toMatch(/no destination/);
}, 120_000);

test('a CSV file goes up to its pre-signed URL first, then runs', async () => {
  const dir = tempDir();
  const input = path.join(dir, 'inputs.csv');
  writeFileSync(input, 'handle\r\ncsv-a.bsky.social\r\n"csv-b.bsky.social"\r\n');
  const run = await cli(['submit', 'microblog-a-user-posts', '--input', input, '--wait']);
  expect(run.code).toBe(0);
  expect(json(run.stdout).job).toMatchObject({ state: 'succeeded', inputs: { total: 2, done: 2 } });
}, 120_000);

test('submit --webhook: the signing secret goes to the --webhook-secret-out file (mode 0600), never to the output; get shows the url', async () => {
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  const dir = tempDir();
  const input = path.join(dir, 'handles.txt');
  writeFileSync(input, 'hooked.bsky.social\n');
  const secretFile = path.join(dir, 'job-webhook.secret');
  const run = await cli(['submit', 'microblog-a-user-posts', '--input', input, '--webhook', 'http://127.0.0.1:9/hook', '--webhook-event', 'job.succeeded', '--webhook-secret-out', secretFile]);
  expect(run.code).toBe(0);
  const { job } = json(run.stdout);
  expect(job.webhook).toEqual({ url: 'http://127.0.0.1:9/hook', events: ['job.succeeded'], deliveries: [] });
  const secret = readFileSync(secretFile, 'utf8').trim();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
  expect(statSync(secretFile).mode & 0o777).toBe(0o600);
  expect(run.stdout + run.stderr).not.toContain(secret);
  expect(run.stderr).toContain(secretFile);
  const got = await cli(['get', job.id]);
  expect(json(got.stdout).job.webhook.url).toBe('http://127.0.0.1:9/hook');
  expect(got.stdout).not.toContain(secret);
  // Without the file to write the secret to: refused before anything is sent.
  const missing = path.join(dir, 'never.secret');
  expect((await cli(['submit', 'microblog-a-user-posts', '--input', input, '--webhook', 'http://127.0.0.1:9/hook'])).code).toBe(2);
  expect((await cli(['submit', 'microblog-a-user-posts', '--input', input, '--webhook-secret-out', missing])).code).toBe(2);
  expect((await cli(['submit', 'microblog-a-user-posts', '--input', input, '--webhook', 'http://127.0.0.1:9/hook', '--webhook-event', 'job.started', '--webhook-secret-out', missing])).code).toBe(2);
  expect(existsSync(missing)).toBe(false);
}, 120_000);

test('a malformed command line is exit 2, nothing sent', async () => {
  const run = await cli(['submit', 'no-such-operation', '--input', '/dev/null']);
  expect(run.code).toBe(2);
  expect((await cli(['submit', 'microblog-a-user-posts', '--input', '/dev/null', '--download', 'x'])).code).toBe(2);
});
