import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { startServer, type TestServer } from '../client/servers';
import { cliEnv, runCli, tempDir } from './support';

/**
 * Writes are streamed: 100,000 items (over 100 MB of CSV) go through a process whose heap is capped
 * at 64 MB, so a run that held its items (or its output) in memory would die of it. The API here is a
 * stand-in that answers operation 5's envelope with pages of 1,000 accounts (the real one has 30, and
 * the local gateway would spend minutes on 3,334 pages): the command line does not know the difference.
 */
const PAGES = 100;
const PER_PAGE = 1000;
let api: TestServer;
const dir = tempDir();

const account = (n: number) => ({
  id: String(7_000_000_000_000 + n),
  secUid: `MS4wLjABAAAA${'x'.repeat(60)}${n}`,
  handle: `user${n}`,
  nickname: `User number ${n}, "quoted"`,
  bio: `A bio of account ${n}: ${'lorem ipsum dolor sit amet '.repeat(20)}`,
  url: `https://www.tiktok.com/@user${n}`,
  avatarUrl: `https://p16.example/avatar/${n}.jpeg?x-expires=1700000000&signature=${'s'.repeat(80)}`,
  avatars: { large: `https://p16.example/l/${n}`, medium: `https://p16.example/m/${n}`, thumb: `https://p16.example/t/${n}` },
  verified: n % 7 === 0,
  privateAccount: false,
  secret: false,
  platformSeller: false,
  openFavorite: true,
  ftc: false,
  isADVirtual: false,
  downloadSetting: 0,
  stats: { followerCount: n, followingCount: 10, likeCount: n * 3, videoCount: 5, friendCount: 2, diggCount: 9 },
});

beforeAll(async () => {
  api = await startServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const page = Number(url.searchParams.get('cursor') ?? 0);
    const next = page + 1 < PAGES ? String(page + 1) : null;
    const following = Array.from({ length: PER_PAGE }, (_, i) => account(page * PER_PAGE + i));
    const data = { profile: { id: '1', secUid: 's', handle: 'someone', nickname: 'n', url: 'u', followingCount: PAGES * PER_PAGE }, following, count: PER_PAGE, total: PAGES * PER_PAGE, cursor: next, hasMore: next !== null, fetchedAt: new Date().toISOString() };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ data, meta: { requestId: 'r', creditsCharged: 1, creditsRemaining: 1000, cached: false } }));
  });
});
afterAll(async () => api?.close());

test('100,000 items to CSV with a 64 MB heap: every row written once, memory never the limit', async () => {
  const out = path.join(dir, 'following.csv');
  const run = await runCli(['shortvideo-user-following', '--handle', 'someone', '--all', '--out', out, '--rate', '60000'], cliEnv(api.url, 'any-key'), { nodeArgs: ['--max-old-space-size=64'] });
  expect(run.stderr).toMatch(/100000 items, 100 pages, 100 credits charged/);
  expect(run.code).toBe(0);
  expect(statSync(out).size).toBeGreaterThan(100_000_000);
  // Rows end in CRLF and no field here holds a line break: count the line feeds as they stream past, and read the last row.
  let lineEnds = 0;
  let tail = '';
  for await (const chunk of createReadStream(out, 'utf8') as AsyncIterable<string>) {
    lineEnds += chunk.split('\n').length - 1;
    tail = (tail + chunk).slice(-4096);
  }
  expect(lineEnds).toBe(1 + PAGES * PER_PAGE);
  const lastRow = parse(tail.slice(tail.lastIndexOf('\r\n', tail.length - 3) + 2), { record_delimiter: '\r\n' }) as string[][];
  expect(lastRow[0]![0]).toBe(String(7_000_000_000_000 + PAGES * PER_PAGE - 1));
});
