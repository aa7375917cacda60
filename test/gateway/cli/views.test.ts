import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { main } from '../../../cli/main';
import { commandById } from '../../../cli/table';
import { RECORDED, replayAll } from '../../../dev/upstream/replay';
import { startHarness, type Harness } from '../../support/harness';
import { cliEnv, jsonLines, runCli, tempDir } from './support';

/**
 * What a person at a terminal sees, and what a program gets: credits, usage, requests and monitors
 * list print a table when standard output is a terminal (main() in this process, isTTY set) and
 * JSON with --format json or when piped (the CLI in a child process, its output a pipe); --columns
 * chooses a table's columns, and an operation's CSV columns.
 */
process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
let h: Harness;
let key: string;
const HANDLE = RECORDED['microblog-a-user-posts']!.handle!;
beforeAll(async () => {
  h = await startHarness();
  replayAll(h.fake);
  ({ key } = await h.team(50));
  // Something to show: two live answers and a 404.
  await h.call('/v1/microblog-a/user/posts', { handle: HANDLE }, { key });
  await h.call('/v1/microblog-a/user/posts', { handle: HANDLE }, { key });
  await h.call('/v1/microblog-a/user/posts', { handle: 'nobody-here.bsky.social' }, { key });
});
afterAll(async () => h?.stop());

/** main() in this process as at a terminal (stdout.isTTY true), its standard output and error captured. */
async function atTerminal(args: string[]) {
  const saved = { url: process.env.SOCIAL_DATA_API_URL, key: process.env.SOCIAL_DATA_API_KEY, tty: Object.getOwnPropertyDescriptor(process.stdout, 'isTTY') };
  let stdout = '';
  let stderr = '';
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
  process.env.SOCIAL_DATA_API_URL = h.gateway.url;
  process.env.SOCIAL_DATA_API_KEY = key;
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    if (saved.tty) Object.defineProperty(process.stdout, 'isTTY', saved.tty);
    else delete (process.stdout as { isTTY?: boolean }).isTTY;
    for (const [k, v] of [['SOCIAL_DATA_API_URL', saved.url], ['SOCIAL_DATA_API_KEY', saved.key]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

/** The header cells of the (first) table of a text. */
const header = (text: string) => text.split('\n').find((l) => l.startsWith('│'))!.split('│').slice(1, -1).map((c) => c.trim());
/** The body rows of a table, as cells. */
const rows = (text: string) => text.split('\n').filter((l) => l.startsWith('│')).slice(1).map((l) => l.split('│').slice(1, -1).map((c) => c.trim()));

test('credits: a table at a terminal (balance, then the charges), JSON when piped or with --format json', async () => {
  const tty = await atTerminal(['credits']);
  expect(tty.code).toBe(0);
  expect(tty.stdout).toMatch(/^Balance: 48 credits\. Latest charges:\n┌/);
  expect(header(tty.stdout)).toEqual(['time', 'operation', 'credits', 'requestId']);
  expect(rows(tty.stdout).map((r) => r.slice(1, 3))).toEqual([['microblog-a-user-posts', '1'], ['microblog-a-user-posts', '1']]);

  const piped = await runCli(['credits'], cliEnv(h.gateway.url, key));
  expect(JSON.parse(piped.stdout)).toMatchObject({ balance: 48, charges: [{ operation: 'microblog-a-user-posts', credits: 1 }, { credits: 1 }] });
  const asked = await atTerminal(['credits', '--format', 'json']);
  expect(JSON.parse(asked.stdout)).toEqual(JSON.parse(piped.stdout));
});

test('--columns chooses the columns and their order; an unknown one, or --columns on JSON, is a usage error (exit 2)', async () => {
  const chosen = await atTerminal(['requests', '--columns', 'status,operation']);
  expect(header(chosen.stdout)).toEqual(['status', 'operation']);
  expect(rows(chosen.stdout)).toEqual([['404', 'microblog-a-user-posts'], ['200', 'microblog-a-user-posts'], ['200', 'microblog-a-user-posts']]);

  const unknown = await atTerminal(['requests', '--columns', 'status,nope']);
  expect(unknown).toMatchObject({ code: 2, stdout: '' });
  expect(unknown.stderr).toMatch(/--columns: no column nope \(the columns: time, operation, status, code, credits, cached, ms, keyName, requestId, keyId\)/);
  const onJson = await runCli(['credits', '--columns', 'time'], cliEnv(h.gateway.url, key));
  expect(onJson.code).toBe(2);
  expect(onJson.stderr).toMatch(/--columns: chooses a table's columns/);
});

test('requests --all: one table of every page at a terminal; JSON Lines when piped', async () => {
  const tty = await atTerminal(['requests', '--all', '--limit', '1']);
  expect(header(tty.stdout)).toEqual(['time', 'operation', 'status', 'code', 'credits', 'cached', 'ms', 'keyName', 'requestId']);
  expect(rows(tty.stdout).map((r) => [r[2], r[3]])).toEqual([['404', 'NOT_FOUND'], ['200', ''], ['200', '']]);
  const piped = await runCli(['requests', '--all', '--limit', '1'], cliEnv(h.gateway.url, key));
  expect(jsonLines(piped.stdout).map((r) => r.status)).toEqual([404, 200, 200]);
});

test('usage: one row per operation and one for all of them', async () => {
  const tty = await atTerminal(['usage', '--days', '7']);
  expect(tty.stdout).toMatch(/^Answers per operation over the last 7 days/);
  expect(header(tty.stdout)).toEqual(['operation', 'requests', 'live', 'hits', 'errors', 'credits', 'cacheHitShare']);
  expect(rows(tty.stdout)).toEqual([
    ['microblog-a-user-posts', '3', '2', '0', '1', '2', '0%'],
    ['(all)', '3', '2', '0', '1', '2', '0%'],
  ]);
});

test('monitors list: a table at a terminal (params as name=value), JSON when piped', async () => {
  const created = await runCli(['monitors', 'create', '--operation', 'microblog-a-user-posts', '--param', `handle=${HANDLE}`, '--interval', '300', '--webhook-url', 'http://127.0.0.1:9/hook'], cliEnv(h.gateway.url, key));
  expect(created.code).toBe(0);
  const { monitor } = JSON.parse(created.stdout);
  const tty = await atTerminal(['monitors', 'list']);
  expect(header(tty.stdout)).toEqual(['id', 'operation', 'params', 'intervalSeconds', 'status', 'lastPollAt', 'lastPollStatus', 'webhookUrl']);
  expect(rows(tty.stdout)).toEqual([[monitor.id, 'microblog-a-user-posts', `handle=${HANDLE}`, '300', 'active', '', '', 'http://127.0.0.1:9/hook']]);
  const piped = await runCli(['monitors', 'list'], cliEnv(h.gateway.url, key));
  expect(JSON.parse(piped.stdout).monitors.map((m: { id: string }) => m.id)).toEqual([monitor.id]);
});

test('an operation\'s CSV with --columns: those columns, in that order; --columns without CSV is a usage error', async () => {
  const out = path.join(tempDir(), 'posts.csv');
  const run = await runCli(['microblog-a-user-posts', '--handle', HANDLE, '--out', out, '--columns', 'text,id', '-q'], cliEnv(h.gateway.url, key));
  expect(run.code).toBe(0);
  const table = parse(readFileSync(out), { bom: true }) as string[][];
  expect(table[0]).toEqual(['text', 'id']);
  expect(table.length).toBeGreaterThan(2);
  for (const row of table) expect(row).toHaveLength(2);

  const jsonl = await runCli(['microblog-a-user-posts', '--handle', HANDLE, '--columns', 'id'], cliEnv(h.gateway.url, key));
  expect(jsonl.code).toBe(2);
  expect(jsonl.stderr).toMatch(/--columns: chooses CSV columns/);
  const unknown = await runCli(['microblog-a-user-posts', '--handle', HANDLE, '--format', 'csv', '--columns', 'id,nope'], cliEnv(h.gateway.url, key));
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toContain(`--columns: no column nope (the columns: ${commandById('microblog-a-user-posts')!.columns.map((c) => c.name).join(', ')})`);
});
