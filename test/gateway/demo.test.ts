import { readFileSync } from 'node:fs';
import path from 'node:path';
import { DEMO_CREDITS, demoBanner, startDemo, type Demo } from '../../dev/demo';
import { balance } from '../../shared/accounting/teams';
import { routedOperations } from '../../shared/operations';
import { callGateway } from '../support/harness';

/**
 * `npm run demo` answers every printed example with the printed status: the demo stack (the
 * replay upstream on this run's DynamoDB Local) is started in-process, its banner is printed as the
 * script prints it, and every curl line of it is called, in order, with the key it names.
 */
let demo: Demo;
let banner: string;
beforeAll(async () => {
  demo = await startDemo();
  banner = demoBanner(demo, 'Dashboard: (sign-in line)');
});
afterAll(async () => demo?.stack.stop());

/** Each "# title -> expect NNN" line and the curl line under it. */
function printedExamples(text: string) {
  const found = [...text.matchAll(/# (.+?) {2}-> expect (\d{3})\n\s*curl -s -H "x-api-key: ([^"]+)" "([^"]+)"/g)];
  return found.map((m) => ({ title: m[1]!, status: Number(m[2]), key: m[3]!, url: m[4]! }));
}

test('the banner says the data is recorded and that npm start is the real service, and prints the key', () => {
  expect(banner).toMatch(/RECORDED DATA, NOT THE REAL SITES/);
  // Operation 4's source is named, and said to be sample data made for the demo.
  expect(banner).toContain(`${demo.citygameSource}, a bulletin that is SAMPLE DATA MADE FOR THE DEMO, not from any game.`);
  expect(process.env.CITYGAME_SOURCE_URL).toBe(demo.citygameSource);
  expect(banner).toMatch(/`npm start` is the real service/);
  expect(banner).toContain(`    ${demo.key}\n`);
  expect(banner).toContain(`API reference: ${demo.stack.gateway.url}/docs`);
});

test('one example per live operation, then a cache hit, a 404 and a 422', () => {
  const printed = printedExamples(banner);
  const live = routedOperations();
  expect(printed).toHaveLength(live.length + 3);
  expect(printed.slice(0, live.length).map((p) => new URL(p.url).pathname)).toEqual(live.map((op) => op.path));
  // All thirteen answer offline: operation 4 from the sample source the demo names, said to be one.
  expect(printed.map((p) => p.status)).toEqual([...live.map(() => 200), 200, 404, 422]);
  expect(printed.find((p) => new URL(p.url).pathname === '/v1/citygame/daily')?.title).toMatch(/SAMPLE DATA MADE FOR THE DEMO, not from any game/);
  for (const p of printed) expect(p.key).toBe(demo.key);
});

test('every printed example answers the printed status; 200s are real-shaped data, the cache hit is free', async () => {
  const printed = printedExamples(banner);
  expect(printed.length).toBeGreaterThan(3);
  const answers = [];
  for (const p of printed) {
    const url = new URL(p.url);
    // callGateway checks each answer against the OpenAPI document (the data schema of a 200).
    const res = await callGateway(url.origin, url.pathname, Object.fromEntries(url.searchParams), { key: p.key });
    answers.push({ title: p.title, status: res.status, code: res.body.error?.code });
    if (new URL(p.url).pathname === '/v1/citygame/daily') {
      // The sample bulletin, through CITYGAME_SOURCE_URL as a deployment names its source: every text says what it is.
      expect(res.body.data).toMatchObject({ date: new Date().toISOString().slice(0, 10), weekday: expect.any(String) });
      for (const field of ['weather', 'headline', 'tip']) expect(res.body.data[field]).toContain('sample data made for the demo');
    }
    if (res.status === 200) expect(Object.keys(res.body.data).length).toBeGreaterThan(1);
    if (p.title.startsWith('Cache hit')) expect(res.body.meta).toMatchObject({ cached: true, creditsCharged: 0 });
  }
  expect(answers).toEqual(printed.map((p) => ({ title: p.title, status: p.status, code: p.status === 200 ? undefined : expect.any(String) })));
  // One credit per live example (all thirteen); the cache hit and the errors are free.
  expect(await balance(demo.teamId)).toBe(DEMO_CREDITS - routedOperations().length);
});

test("every example request of the README is one the demo answers (its operations' URLs, and the command line's --handle)", async () => {
  const readme = readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
  const urls = [...readme.matchAll(/http:\/\/localhost:3000(\/v1\/[\w/-]+)\?([^"\s`]+)/g)].map((m) => ({ path: m[1]!, query: Object.fromEntries(new URLSearchParams(m[2]!)) }));
  const cli = [...readme.matchAll(/social-data ([\w-]+) --handle (\S+)/g)].map((m) => ({ path: routedOperations().find((op) => op.id === m[1])!.path, query: { handle: m[2]! } }));
  expect(urls.length).toBeGreaterThan(0);
  expect(cli.length).toBeGreaterThan(0);
  for (const ex of [...urls, ...cli]) {
    const res = await callGateway(demo.stack.gateway.url, ex.path, ex.query, { key: demo.key });
    expect({ ...ex, status: res.status }).toEqual({ ...ex, status: 200 });
  }
});
