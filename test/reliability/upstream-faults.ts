import { balance } from '../../shared/accounting/teams';
import { ledger } from '../../shared/accounting/ledger';
import { envName } from '../../shared/runtime/config';
import { startBlackhole, type Blackhole } from '../support/blackhole';
import { FakeUpstream, fixtureText, type FakeReply } from '../../dev/upstream/fake';
import { startHarness, type CallResult, type Harness } from '../support/harness';
import { LogCapture } from '../support/logs';
import { NetGuard, portOf } from '../support/net-guard';
import { RememberedIds } from '../../shared/scrape/remembered';
import { startCold } from '../../shared/scrape/warm';
import { cachedItem, dropCached, forgetSharedCredentials, liveOps, successPaths, type LiveOp } from './table';

/**
 * The upstream fault matrix: every routed operation x every way an upstream fails, injected on
 * every path the operation's success route uses (all at once, and each path alone while the others
 * answer normally). Each must give the spec's 503 code with Retry-After, cost nothing, write no
 * ledger record and no cache entry, reach no host but the platform's (the fake), and log its cause.
 *
 * The matrix is split by operation over several test files (upstream-faults-<n>.test.ts, each
 * calling `faultMatrix(n, PARTS)`), so jest's workers share it; together they cover every routed
 * operation (upstream-faults-parts.test.ts checks that the files and PARTS agree).
 */

// Short deadlines so stalls and connect timeouts end fast (config reads these per request); every
// other fault keeps the service's own limits, so a busy machine cannot turn it into a timeout.
const SHORT_LIMITS = { SCRAPE_DEADLINE_MS: '1000', UPSTREAM_TIMEOUT_MS: '300' };
const TIMING_FAULTS = new Set(['connect timeout', 'read stalls past the deadline']);

type Code = 'PLATFORM_UNAVAILABLE' | 'UPSTREAM_BLOCKED' | 'EXTRACTION_FAILED';

interface Fault {
  name: string;
  /** The answer of every faulty path; absent for a connect timeout (the platform's whole origin hangs). */
  reply?: (foreign: string) => FakeReply;
  code: Code;
  /** What the logged cause must say. */
  cause: RegExp;
  /** The Retry-After the caller must see, when the fault dictates it. */
  retryAfter?: string;
  /** Also injected on each success path alone (default true). */
  eachPath?: boolean;
}

const challenge = fixtureText('livestream/cloudflare-challenge.html');
const bigJson = { items: Array.from({ length: 50 }, (_, i) => ({ id: String(i), text: 'lorem ipsum dolor sit amet '.repeat(4) })) };
const htmlPage = '<!DOCTYPE html><html><head><title>Welcome</title></head><body><form action="/login">Sign in to continue</form></body></html>';
const plainPage = '<!DOCTYPE html><html><head><title>Maintenance notes</title></head><body><p>Nothing to see here.</p></body></html>';

const FAULTS: Fault[] = [
  ...[500, 502, 503, 504].map((status) => ({
    name: `HTTP ${status}`,
    // Every 5xx takes one branch (retried, then unavailable): 500, 502 and 504 are tried on every
    // path at once; 503 also path by path, which for the others would only repeat its runs.
    eachPath: status === 503,
    reply: () => ({ status, body: { error: 'InternalServerError', message: 'upstream failure' } }),
    code: 'PLATFORM_UNAVAILABLE' as const,
    cause: new RegExp(`\\b${status}\\b`),
  })),
  { name: 'connect timeout', code: 'PLATFORM_UNAVAILABLE', cause: /unreachable|deadline|timeout/i },
  { name: 'read stalls past the deadline', reply: () => ({ kind: 'stall', body: bigJson }), code: 'PLATFORM_UNAVAILABLE', cause: /unreachable|deadline|timeout/i },
  { name: 'connection reset mid-body', reply: () => ({ kind: 'reset', body: bigJson }), code: 'PLATFORM_UNAVAILABLE', cause: /unreachable|ECONNRESET|socket|aborted|closed/i },
  ...[200, 403, 503].map((status) => ({
    name: `challenge page as ${status}`,
    // A challenge is recognised by its body before its status is read: one branch whatever the
    // status, so path by path as 403 only.
    eachPath: status === 403,
    reply: () => ({ status, body: challenge }),
    code: 'UPSTREAM_BLOCKED' as const,
    cause: /anti-bot/,
  })),
  { name: 'HTML where JSON was expected', reply: () => ({ status: 200, body: htmlPage }), code: 'UPSTREAM_BLOCKED', cause: /HTML page where JSON/ },
  // Without a sign-in form or a challenge, a page is no evidence of a wall: a page without the data.
  { name: 'HTML without a wall where JSON was expected', reply: () => ({ status: 200, body: plainPage }), code: 'EXTRACTION_FAILED', cause: /HTML page where JSON was expected \(title "Maintenance notes"\), with no sign-in form/ },
  { name: 'truncated JSON', reply: () => ({ kind: 'truncate', body: bigJson }), code: 'EXTRACTION_FAILED', cause: /not JSON|JSON/ },
  { name: 'valid JSON of the wrong shape', reply: () => ({ body: { unexpected: true, items: 'none', count: -1 } }), code: 'EXTRACTION_FAILED', cause: /./ },
  { name: 'HTTP 403', reply: () => ({ status: 403, body: { error: 'Forbidden' } }), code: 'UPSTREAM_BLOCKED', cause: /\b403\b/ },
  { name: '429 with Retry-After', reply: () => ({ status: 429, headers: { 'retry-after': '90' }, body: { error: 'RateLimitExceeded' } }), code: 'UPSTREAM_BLOCKED', cause: /\b429\b/, retryAfter: '90' },
  // The same branch as with Retry-After (only the value differs): every path at once.
  { name: '429 without Retry-After', eachPath: false, reply: () => ({ status: 429, body: { error: 'RateLimitExceeded' } }), code: 'UPSTREAM_BLOCKED', cause: /\b429\b/, retryAfter: '60' },
  { name: 'redirect to another host (loopback)', reply: (foreign) => ({ status: 302, headers: { location: `${foreign}/landing?from=upstream` }, body: '' }), code: 'UPSTREAM_BLOCKED', cause: /redirected off the platform/ },
  // The same branch as the loopback redirect (a host not the platform's), which also meets the address check: every path at once.
  { name: 'redirect to another host (name)', eachPath: false, reply: () => ({ status: 301, headers: { location: 'https://evil.example/steal' }, body: '' }), code: 'UPSTREAM_BLOCKED', cause: /redirected off the platform/ },
];

/** Faults that put a body of the wrong kind where the content should be. */
const JSON_FAULTS = new Set(['HTML where JSON was expected', 'HTML without a wall where JSON was expected', 'truncated JSON', 'valid JSON of the wrong shape']);

/** How many files the matrix is split into (upstream-faults-1.test.ts … upstream-faults-<PARTS>.test.ts). */
export const PARTS = 4;

/** The operations of this part of the matrix (set by faultMatrix). */
let OPS: LiveOp[] = [];
let h: Harness;
let foreign: FakeUpstream;
let blackhole: Blackhole;
const guard = new NetGuard();
const logs = new LogCapture();
const keys = new Map<string, { key: string; teamId: string; paths: string[] }>();
let tried = 0;
let coldRuns = 0;

interface Case {
  live: LiveOp;
  fault: Fault;
  /** null: every path (and every other) faults; a path: only that one, the scenario answers the rest. */
  only: string | null;
}

async function runOne(c: Case, only: string | null, cold = false): Promise<void> {
  const { live, fault } = c;
  const { op, scenario } = live;
  const { key, teamId } = keys.get(op.id)!;
  h.fake.reset();
  // Every case starts from a cold container: names resolved before are forgotten.
  RememberedIds.clearAll();
  const envVar = `UPSTREAM_${envName(op.platform)}_URL`;
  const saved = process.env[envVar];
  const savedLimits = { SCRAPE_DEADLINE_MS: process.env.SCRAPE_DEADLINE_MS, UPSTREAM_TIMEOUT_MS: process.env.UPSTREAM_TIMEOUT_MS };
  if (TIMING_FAULTS.has(fault.name)) Object.assign(process.env, SHORT_LIMITS);
  if (!fault.reply) {
    process.env[envVar] = blackhole.url;
  } else if (only === null) {
    h.fake.otherwise(fault.reply(foreign.url));
  } else {
    scenario.routes(h.fake);
    h.fake.on(only, fault.reply(foreign.url));
  }
  guard.clear();
  logs.clear();
  const before = await balance(teamId);
  const ledgerBefore = (await ledger(teamId)).length;
  let res: CallResult;
  try {
    if (cold) {
      // A cold function of a fresh deployment: nothing the platform's warm function keeps in memory
      // (names resolved to ids, sessions, tokens: every keptWarm hook, shared/scrape/warm.ts), and no
      // shared upstream credential in the database. A hook that missed something would leave the
      // faulty path unasked, which the check below refuses.
      startCold(op.platform);
      await forgetSharedCredentials();
    }
    res = await h.call(op.path, scenario.query, { key });
  } finally {
    process.env[envVar] = saved;
    Object.assign(process.env, savedLimits);
  }
  tried += 1;
  const where = `${op.id} / ${fault.name} / ${only ?? 'every path'}${cold ? ' (cold)' : ''}`;
  if (only !== null && h.fake.requestsTo(only).length === 0 && !cold) {
    // A warm function that remembers what this path would tell it (a name's id, a shared token)
    // does not ask it: served as usual; then the same fault on a cold function, which must ask it.
    expect({ where, status: res.status }).toEqual({ where, status: 200 });
    expect(await balance(teamId)).toBe(before - 1);
    await dropCached(op, scenario.query);
    coldRuns += 1;
    return runOne(c, only, true);
  }
  if (only !== null) expect({ where, asked: h.fake.requestsTo(only).length > 0 }).toEqual({ where, asked: true });

  const matches = (list: RegExp[] | undefined, path: string | null) => path !== null && (list ?? []).some((re) => re.test(path));
  if (res.status === 200 && matches(scenario.faults?.bestEffort, only)) {
    // Survived by design: served without what that path adds, charged once like any live 200.
    expect(await balance(teamId)).toBe(before - 1);
    await dropCached(op, scenario.query);
    return;
  }
  // A JSON-shaped fault on an HTML page is a page without the content: blocked or unexpected data.
  const onPage = only === null ? (scenario.faults?.pages ?? []).length > 0 : matches(scenario.faults?.pages, only);
  const codes: string[] = onPage && JSON_FAULTS.has(fault.name) ? ['UPSTREAM_BLOCKED', 'EXTRACTION_FAILED'] : [fault.code];
  expect({ where, status: res.status, ok: codes.includes(res.body?.error?.code) }).toEqual({ where, status: 503, ok: true });
  expect(res.body.error.requestId).toEqual(expect.any(String));
  expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
  if (fault.retryAfter) expect(res.headers['retry-after']).toBe(fault.retryAfter);

  // Nothing charged, nothing recorded, nothing cached.
  expect(await balance(teamId)).toBe(before);
  expect((await ledger(teamId)).length).toBe(ledgerBefore);
  expect(await cachedItem(op, scenario.query)).toBeUndefined();

  // No connection to anything but the fake (or the black hole standing for the platform), the gateway and DynamoDB.
  const allowed = [portOf(h.fake.url), portOf(h.gateway.url), portOf(process.env.DYNAMODB_ENDPOINT), blackhole.port];
  expect(guard.foreign(allowed)).toEqual([]);
  expect(foreign.connections).toEqual([]);
  if (fault.reply && only === null) expect(h.fake.requests.length).toBeGreaterThan(0);

  // The cause is logged with the request's id.
  const failed = logs.of(res.body.error.requestId).filter((r) => r.message === 'request failed');
  expect(failed).toHaveLength(1);
  expect(failed[0]).toMatchObject({ code: res.body.error.code, status: 503 });
  // On a page the cause names what the page lacks, not the fault's own words.
  if (codes.length === 1) expect(String(failed[0]!.cause)).toMatch(fault.cause);
  else expect(String(failed[0]!.cause).length).toBeGreaterThan(0);
}

/** Registers the matrix for part `part` (1-based) of `parts`: every `parts`-th routed operation. */
export function faultMatrix(part: number, parts: number): void {
  OPS = liveOps().filter((_live, i) => i % parts === part - 1);
  beforeAll(async () => {
    h = await startHarness();
    foreign = new FakeUpstream();
    await foreign.start();
    blackhole = await startBlackhole();
    for (const live of OPS) {
      const { key, teamId } = await h.team(10_000);
      keys.set(live.op.id, { key, teamId, paths: await successPaths(h, live, key) });
    }
    guard.install();
    logs.start();
  });

  afterAll(async () => {
    logs.stop();
    guard.uninstall();
    process.stdout.write(`upstream fault matrix: ${tried} requests, ${coldRuns} of them to a cold function (a warm one did not ask the faulty path)\n`);
    await blackhole.stop();
    await foreign.stop();
    await h.stop();
  });

  beforeEach(() => {
    h.fake.reset();
    h.fake.forgetConnections();
    foreign.reset();
    foreign.forgetConnections();
    guard.clear();
    logs.clear();
  });

  const cases: [string, Case][] = [];
  for (const live of OPS) {
    for (const fault of FAULTS) {
      cases.push([`${live.op.id} | ${fault.name} | every path`, { live, fault, only: null }]);
      // Paths are learnt in beforeAll; the per-path cases read them at run time (see below).
      if (fault.reply && fault.eachPath !== false) cases.push([`${live.op.id} | ${fault.name} | each success path alone`, { live, fault, only: 'each' }]);
    }
  }

  test.each(cases)('%s', async (_name, c) => {
    if (c.only === null) return runOne(c, null);
    const paths = keys.get(c.live.op.id)!.paths;
    expect(paths.length).toBeGreaterThan(0);
    for (const p of paths) await runOne(c, p);
  });

  test('after the faults, the success query is still a live 200 (no fault result was cached)', async () => {
    for (const live of OPS) {
      const { key, teamId } = keys.get(live.op.id)!;
      h.fake.reset();
      live.scenario.routes(h.fake);
      const before = await balance(teamId);
      const res = await h.call(live.op.path, { ...live.scenario.query, cache_max_age: '30d' }, { key });
      expect({ op: live.op.id, status: res.status, cached: res.body.meta?.cached }).toEqual({ op: live.op.id, status: 200, cached: false });
      expect(await balance(teamId)).toBe(before - 1);
    }
  });
}
