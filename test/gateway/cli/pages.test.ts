import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { main } from '../../../cli/main';
import { COST_RULE, commandById, operationCommands } from '../../../cli/table';
import { fixture, fixtureText } from '../../../dev/upstream/fake';
import { RECORDED, SHORTVIDEO, replayAll } from '../../../dev/upstream/replay';
import { balance } from '../../../shared/accounting/teams';
import { startServer, type TestServer } from '../client/servers';
import { callGateway, startHarness, type Harness } from '../../support/harness';
import { cliEnv, jsonLines, runCli, tempDir } from './support';

/**
 * `social-data` in a child process against the local gateway, every platform answered by the replay
 * of the recorded fixtures: --all to the last page, items of a re-ranking source once, CSV columns,
 * --dry-run and bad options (those two against a server that records every request it gets).
 */
let h: Harness;
let key: string;
let teamId: string;
let recorder: TestServer;
const dir = tempDir();
const HASHTAG = RECORDED['shortvideo-search-hashtag']!.hashtag!;

beforeAll(async () => {
  h = await startHarness();
  ({ key, teamId } = await h.team(1000));
  recorder = await startServer((_req, res) => {
    res.writeHead(500);
    res.end('a request reached the server');
  });
});
afterAll(async () => {
  await recorder?.close();
  await h?.stop();
});
beforeEach(() => {
  h.fake.reset();
  replayAll(h.fake);
});

const env = () => cliEnv(h.gateway.url, key);
/** The ids of the recorded hashtag's pages (page 2 repeats a video of page 1; the service drops it). */
const HASHTAG_IDS = ['7500000000000000001', '7500000000000000002', '7500000000000000003', '7500000000000000004', '7500000000000000005', '7500000000000000006'];

test('--all follows the cursor to the last page: every item once, one credit a page', async () => {
  const before = await balance(teamId);
  // The package's bin itself (cli/bin.mjs through tsx); the other runs are the bundle of the same program (./support.ts).
  const run = await runCli(['shortvideo-search-hashtag', '--hashtag', HASHTAG, '--all'], env(), { source: true });
  expect(run.code).toBe(0);
  const items = jsonLines(run.stdout);
  expect(items.map((i) => i.id)).toEqual(HASHTAG_IDS);
  // The recording has three pages, the last with no cursor: each was asked once.
  expect(h.fake.requestsTo(SHORTVIDEO.hashtagVideos)).toHaveLength(3);
  expect(await balance(teamId)).toBe(before - 3);
  expect(run.stderr).toMatch(/social-data: 6 items, 3 pages, 3 credits charged, 0 cache hits, 0 of 1 input failed/);

  // Without --all: the first page, and the summary says more are left.
  const first = await runCli(['shortvideo-search-hashtag', '--hashtag', HASHTAG, '--cache-max-age', '1d'], env());
  expect(jsonLines(first.stdout).map((i) => i.id)).toEqual(HASHTAG_IDS.slice(0, 3));
  expect(first.stderr).toMatch(/1 page, 0 credits charged, 1 cache hit.*more pages left: --all follows them/);
});

test('a source that re-ranks between requests: an item an earlier page had is written once', async () => {
  // The recorded comments, with the source re-ranking: the first comment of page 1 comes back on page 2.
  const page1 = fixture('shortvideo/comments-page1.json') as { comments: unknown[] };
  const last = fixture('shortvideo/comments-last.json') as { comments: unknown[] };
  const reranked = JSON.stringify({ ...last, comments: [page1.comments[0], ...last.comments] });
  const headers = { 'content-type': 'application/json; charset=utf-8', 'set-cookie': 'tt_chain_token=replay; Path=/' };
  h.fake.on(SHORTVIDEO.comments, (req) => ({ headers, body: req.query.cursor === '40' ? reranked : fixtureText('shortvideo/comments-page1.json') }));

  const run = await runCli(['shortvideo-video-comments', '--url', RECORDED['shortvideo-video-comments']!.url!, '--all'], env());
  expect(run.code).toBe(0);
  const ids = jsonLines(run.stdout).map((c) => c.id);
  expect(ids).toHaveLength(page1.comments.length + last.comments.length);
  expect(new Set(ids).size).toBe(ids.length);
  expect(h.fake.requestsTo(SHORTVIDEO.comments)).toHaveLength(2);
  expect(run.stderr).toMatch(/, 1 duplicate removed/);
});

test('CSV: the columns of the schema, the same in every run, read back by a CSV parser', async () => {
  const expected = ['id', ...commandById('shortvideo-search-hashtag')!.columns.map((c) => c.name).slice(1)];
  const firstPage = path.join(dir, 'first.csv');
  const all = path.join(dir, 'all.csv');
  const runs = await Promise.all([
    runCli(['shortvideo-search-hashtag', '--hashtag', HASHTAG, '--out', firstPage, '--cache-max-age', '7d'], env()),
    runCli(['shortvideo-search-hashtag', '--hashtag', HASHTAG, '--all', '--out', all, '--cache-max-age', '7d'], env()),
  ]);
  expect(runs.map((r) => r.code)).toEqual([0, 0]);
  const header = (file: string) => readFileSync(file, 'utf8').split('\r\n')[0];
  expect(header(firstPage)).toBe(header(all));
  // UTF-8 with a byte order mark, so that a spreadsheet reads it as UTF-8.
  expect(readFileSync(all).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));

  const rows = parse(readFileSync(all), { bom: true, columns: true }) as Record<string, string>[];
  // The same pages as JSON, from the API itself (from the cache the runs filled: free).
  const records: Record<string, any>[] = []; // eslint-disable-line @typescript-eslint/no-explicit-any -- records are arbitrary JSON
  for (let cursor: string | undefined; ; ) {
    const page = await callGateway(h.gateway.url, '/v1/shortvideo/search/hashtag', { hashtag: HASHTAG, cache_max_age: '7d', ...(cursor ? { cursor } : {}) }, { key });
    records.push(...page.body.data.videos);
    if (!page.body.data.cursor) break;
    cursor = page.body.data.cursor;
  }
  expect(Object.keys(rows[0]!)).toEqual(expected);
  expect(rows.map((r) => r.id)).toEqual(records.map((r) => r.id));
  records.forEach((record, i) => {
    const row = rows[i]!;
    expect(row['author.handle']).toBe(record.author.handle);
    expect(row['stats.playCount']).toBe(String(record.stats.playCount));
    expect(JSON.parse(row.hashtags!)).toEqual(record.hashtags);
    expect(row.description).toBe(record.description ?? '');
  });
});

test('--dry-run prints the requests and the most they could cost, and sends nothing', async () => {
  const inputs = path.join(dir, 'handles.txt');
  writeFileSync(inputs, 'alice.bsky.social\nbob.bsky.social\nnot a handle!\n');
  const bounded = await runCli(['microblog-a-user-posts', '--input', inputs, '--all', '--max-pages', '5', '--dry-run'], cliEnv(recorder.url));
  expect(bounded.code).toBe(0);
  expect(bounded.stdout.split('\n').filter((l) => l.startsWith('GET '))).toEqual([
    `GET ${recorder.url}/v1/microblog-a/user/posts?handle=alice.bsky.social`,
    `GET ${recorder.url}/v1/microblog-a/user/posts?handle=bob.bsky.social`,
  ]);
  expect(bounded.stdout).toMatch(/# not sent, not a handle!: VALIDATION_ERROR: handle: /);
  expect(bounded.stdout).toMatch(/at most 5 pages: at most 10 credits/);
  const unbounded = await inThisProcess(['shortvideo-search-hashtag', '--hashtag', 'x', '--all', '--dry-run'], { SOCIAL_DATA_API_URL: recorder.url });
  expect(unbounded).toMatchObject({ code: 0, stdout: expect.stringMatching(/no upper bound without --max-pages/) });
  expect(recorder.requests).toEqual([]);
});

test('a bad option is a usage error naming it: exit code 2, no request sent', async () => {
  const noInputs = path.join(dir, 'daily.txt');
  writeFileSync(noInputs, 'x\n');
  const cases: [string[], RegExp][] = [
    [['livestream-clip', '--url', 'https://example.com/someone/clips/clip_01JQ7ZK3M8W4TYV5R2N6P9XBCD'], /--url: Must be a clip URL on kick\.com/],
    [['livestream-clip', '--nope'], /unknown option '--nope'/],
  ];
  // As users run it (a child process), and in this process for the cases that need no second proof of it.
  const runs = await Promise.all(cases.map(([args]) => runCli(args, cliEnv(recorder.url, 'any-key'))));
  runs.forEach((run, i) => {
    expect({ args: cases[i]![0], code: run.code, stdout: run.stdout }).toEqual({ args: cases[i]![0], code: 2, stdout: '' });
    expect(run.stderr).toMatch(cases[i]![1]);
  });
  const inProcess: [string[], RegExp][] = [
    [['microblog-a-user-posts', '--handle', 'alice.bsky.social', '--userId', 'did:plc:abcdefghijklmnopqrstuvwx'], /--handle: Give either handle or userId, not both/],
    [['shortvideo-user-following', '--handle', 'someone', '--cursor', 'not-digits'], /--cursor: The cursor is invalid/],
    [['microblog-a-user-posts'], /--handle: Exactly one of handle or userId is required/],
    [['shortvideo-search-hashtag', '--hashtag', 'x', '--cache-max-age', '2d'], /--cache-max-age: Must be one of 1d, 3d, 7d, 14d, 30d/],
    [['shortvideo-search-hashtag', '--hashtag', 'x', '--max-pages', '0'], /--max-pages must be a whole number of at least 1/],
    [['citygame-daily', '--input', noInputs], /--input: citygame-daily takes no parameter/],
    [['microblog-a-user-posts', '--input', noInputs, '--userId', 'did:plc:abcdefghijklmnopqrstuvwx'], /--userId: --input gives handle, and microblog-a-user-posts takes exactly one of handle or userId/],
    [['microblog-a-user-posts', '--handle', 'a.bsky.social', '--resume'], /--resume: only with --out/],
    [['livestream-clip', '--url', RECORDED['livestream-clip']!.url!, '--api-url', recorder.url], /no API key: set \$SOCIAL_DATA_API_KEY or give --api-key/],
  ];
  for (const [args, message] of inProcess) {
    const { code, stdout, stderr } = await inThisProcess(args, { SOCIAL_DATA_API_URL: recorder.url, SOCIAL_DATA_API_KEY: args.includes('--api-url') ? undefined : 'any-key' });
    expect({ args, code, stdout }).toEqual({ args, code: 2, stdout: '' });
    expect(stderr).toMatch(message);
  }
  expect(recorder.requests).toEqual([]);
});

test('--help on every level: the parameters, the page size and the cost rule, from the table', async () => {
  const top = await inThisProcess(['--help'], {});
  expect(top.code).toBe(0);
  for (const c of operationCommands()) {
    expect(top.stdout).toContain(c.op.id);
    const help = await inThisProcess([c.op.id, '--help'], {});
    expect(help.code).toBe(0);
    for (const param of Object.keys(c.op.params)) expect(help.stdout).toContain(`--${param} <value>`);
    expect(help.stdout).toContain(`GET ${c.op.path}`);
    expect(help.stdout).toContain(c.cursorParam ? `Page size:  ${c.op.pageSize} items a page` : 'Page size:  not paged');
    expect(help.stdout).toContain(`Cost:       ${COST_RULE}`);
  }
  expect(top.stdout).toContain(`Cost: ${COST_RULE}`);
  expect(top.stdout).toMatch(/shortvideo-user-following +--handle or --userId \(exactly one\), --cursor; 30 a page/);
});

test('credits, usage, requests and status read the account API and the public status', async () => {
  const vars = { SOCIAL_DATA_API_URL: h.gateway.url, SOCIAL_DATA_API_KEY: key };
  expect((await callGateway(h.gateway.url, '/v1/shortvideo/search/hashtag', { hashtag: HASHTAG }, { key })).status).toBe(200);
  const credits = await inThisProcess(['credits'], vars);
  expect(credits.code).toBe(0);
  expect(JSON.parse(credits.stdout).balance).toBe(await balance(teamId));
  const usage = JSON.parse((await inThisProcess(['usage', '--days', '1'], vars)).stdout);
  expect(usage.byOperation['shortvideo-search-hashtag'].requests).toBeGreaterThan(0);
  const history = jsonLines((await inThisProcess(['requests', '--all', '--operation', 'shortvideo-search-hashtag'], vars)).stdout);
  expect(history.length).toBeGreaterThan(0);
  expect(history.every((r) => r.operation === 'shortvideo-search-hashtag')).toBe(true);
  // The public status needs no key.
  const status = await inThisProcess(['status'], { SOCIAL_DATA_API_URL: h.gateway.url });
  expect(JSON.parse(status.stdout).operations.map((o: { path: string }) => o.path)).toEqual(operationCommands().map((c) => c.op.path));
});

/** main() in this process, its standard output and error captured. */
async function inThisProcess(args: string[], vars: Record<string, string | undefined>) {
  const names = ['SOCIAL_DATA_API_URL', 'SOCIAL_DATA_API_KEY'];
  const saved = names.map((n) => process.env[n]);
  let stdout = '';
  let stderr = '';
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  names.forEach((n) => delete process.env[n]);
  for (const [k, v] of Object.entries(vars)) if (v !== undefined) process.env[k] = v;
  try {
    const code = await main(args);
    return { code, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    names.forEach((n, i) => (saved[i] === undefined ? delete process.env[n] : (process.env[n] = saved[i])));
  }
}
