import fc from 'fast-check';
import { balance } from '../../shared/accounting/teams';
import { ledger } from '../../shared/accounting/ledger';
import { ApiError } from '../../shared/http/errors';
import type { Operation } from '../../shared/operations';
import { validateQuery } from '../../shared/http/validation';
import { startHarness, type Harness } from '../support/harness';
import { liveOps, type LiveOp } from './table';

/**
 * Generated requests through the local gateway, across every routed operation: random and
 * boundary values, unicode, very long values, repeated and unknown parameters, percent-encoding
 * tricks, header variants and malformed keys. Every answer must be in the spec's shape, never a
 * 5xx other than a 503 the upstream caused (a request that got through validation), and nothing
 * but a 200 may cost a credit.
 *
 * FUZZ_SEED=<n> replays a run; FUZZ_RUNS=<n> sets the number of requests (default 4,000;
 * every run draws a new seed, so the runs of every `npm test` add up).
 */
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const RUNS = Number(process.env.FUZZ_RUNS || 2_000);
const CONCURRENCY = 8;

const OPS = liveOps();
let h: Harness;
let team: { key: string; teamId: string };

beforeAll(async () => {
  h = await startHarness({ ratePerMinute: 1e9, burst: 1e9 });
  team = await h.team(1_000_000);
  h.fake.reset();
  for (const live of OPS) live.scenario.routes(h.fake);
});
afterAll(async () => h.stop());

// ---- generators ---------------------------------------------------------------------------------

const PERCENT_TRICKS = ['%00', '%2F', '%2f', '%252F', '%2e%2e%2f', '..%2F', '%', '%%', '%zz', '%C0%AF', '%E2%80%AE', '%0d%0a', '+', '%20', '%u0041', '%ef%bc%8f', '%F0%9F%92%A9', '\u0000', '&', '=', '#'];

/** Values an operation's own inputs suggest: examples, the scenario's working values, and mutations of them. */
function seedValues(op: Operation, live: LiveOp): string[] {
  const out = new Set<string>();
  for (const def of Object.values(op.params)) if (def.example) out.add(def.example);
  for (const v of Object.values(live.scenario.query)) out.add(v);
  for (const m of live.scenario.moreSuccesses ?? []) for (const v of Object.values(m.query ?? {})) out.add(v);
  return [...out];
}

function valueArb(op: Operation, live: LiveOp): fc.Arbitrary<string> {
  const seeds = seedValues(op, live);
  // An operation without parameters (citygame) has no working value: every name is unknown (422).
  const seed = fc.constantFrom(...(seeds.length ? seeds : ['']));
  return fc.oneof(
    { weight: 3, arbitrary: seed },
    // A working value with something added, removed or swapped.
    {
      weight: 4,
      arbitrary: fc.tuple(seed, fc.constantFrom(...PERCENT_TRICKS, '@evil.example', ':8080', '/..', '.', ' ', '\t', 'é', 'Ａ', '\u202e', '\ud83d\ude00', 'x'.repeat(300)), fc.nat(), fc.constantFrom('insert', 'append', 'prefix', 'cut', 'upper')).map(([s, t, at, how]) => {
        const i = at % (s.length + 1);
        if (how === 'append') return s + t;
        if (how === 'prefix') return t + s;
        if (how === 'cut') return s.slice(0, i);
        if (how === 'upper') return s.toUpperCase();
        return s.slice(0, i) + t + s.slice(i);
      }),
    },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
    { weight: 1, arbitrary: fc.constantFrom('', ' ', '0', '-1', '1e309', 'NaN', 'null', 'undefined', 'true', '[]', '{}', "'", '"', '<script>', '../../etc/passwd', 'a'.repeat(2049), '9'.repeat(40), '@', '@@', 'did:plc:', 'clip_') },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 2500 }).map((n) => 'a'.repeat(n)) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom(...PERCENT_TRICKS), { minLength: 1, maxLength: 6 }).map((xs) => xs.join('')) },
  );
}

function nameArb(op: Operation): fc.Arbitrary<string> {
  const known = Object.keys(op.params);
  return fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...known, 'cache_max_age') },
    { weight: 1, arbitrary: fc.constantFrom(...known.map((k) => k.toUpperCase()), ...known.map((k) => `${k}[]`), 'constructor', '__proto__', 'toString', 'hasOwnProperty', 'prototype', '', 'cache-max-age', 'url ', 'x') },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
  );
}

const CACHE_AGES = fc.constantFrom('1d', '3d', '7d', '14d', '30d', '0', '1D', '31d', '', '1d ', '-1d', '1w');

interface Generated {
  op: Operation;
  /** The path asked: the operation's own, or a near miss (trailing slash, case, doubled or encoded slash). */
  path: string;
  pairs: [string, string][];
  /** How each pair is written: encoded as a browser would, or raw (percent tricks survive). */
  raw: boolean;
  auth: AuthVariant;
}

type AuthVariant = { name: string; valid: boolean; headers: (key: string) => Record<string, string> };

const AUTH: AuthVariant[] = [
  { name: 'x-api-key', valid: true, headers: (k) => ({ 'x-api-key': k }) },
  { name: 'X-API-KEY', valid: true, headers: (k) => ({ 'X-API-KEY': k }) },
  { name: 'Bearer', valid: true, headers: (k) => ({ authorization: `Bearer ${k}` }) },
  { name: 'bearer, spaced', valid: true, headers: (k) => ({ Authorization: `  bearer   ${k}  ` }) },
  { name: 'blank x-api-key, good Bearer', valid: true, headers: (k) => ({ 'x-api-key': '   ', authorization: `Bearer ${k}` }) },
  { name: 'no key', valid: false, headers: () => ({}) },
  { name: 'wrong x-api-key, good Bearer', valid: false, headers: (k) => ({ 'x-api-key': k.slice(0, -1) + (k.endsWith('A') ? 'B' : 'A'), authorization: `Bearer ${k}` }) },
  { name: 'key too long', valid: false, headers: (k) => ({ 'x-api-key': `${k}x` }) },
  { name: 'key too short', valid: false, headers: (k) => ({ 'x-api-key': k.slice(1) }) },
  { name: 'key lower-cased', valid: false, headers: (k) => ({ 'x-api-key': k.toLowerCase() === k ? k.toUpperCase() : k.toLowerCase() }) },
  { name: 'Basic', valid: false, headers: (k) => ({ authorization: `Basic ${Buffer.from(`user:${k}`).toString('base64')}` }) },
  { name: 'Bearer without key', valid: false, headers: () => ({ authorization: 'Bearer' }) },
  { name: 'Bearer two tokens', valid: false, headers: (k) => ({ authorization: `Bearer ${k} ${k}` }) },
  { name: 'key with a symbol', valid: false, headers: (k) => ({ 'x-api-key': `${k.slice(0, 27)}-` }) },
  { name: 'unknown well-formed key', valid: false, headers: () => ({ 'x-api-key': 'A'.repeat(28) }) },
  { name: 'percent-encoded key', valid: false, headers: (k) => ({ 'x-api-key': encodeURIComponent(`${k.slice(0, 26)}%`) }) },
];

function requestArb(live: LiveOp): fc.Arbitrary<Generated> {
  const { op } = live;
  const pair = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(nameArb(op), valueArb(op, live)) },
    { weight: 1, arbitrary: fc.tuple(fc.constant('cache_max_age'), CACHE_AGES) },
  );
  // Often start from the scenario's working query, so many requests are near the boundary of valid.
  const base = fc.oneof(fc.constant<[string, string][]>([]), fc.constant(Object.entries(live.scenario.query)));
  return fc.record({
    op: fc.constant(op),
    path: fc.oneof(
      { weight: 19, arbitrary: fc.constant(op.path) },
      { weight: 1, arbitrary: fc.constantFrom(`${op.path}/`, op.path.toUpperCase(), op.path.replace('/v1/', '/v1//'), op.path.replace(/\/([^/]*)$/, '%2F$1'), `${op.path}.json`, op.path.replace('/v1/', '/v2/'), `${op.path}/..`) },
    ),
    pairs: fc.tuple(base, fc.array(pair, { maxLength: 5 }), fc.boolean()).map(([b, extra, dropOne]) => {
      const all = [...b, ...extra];
      return dropOne && all.length > 1 ? all.slice(1) : all;
    }),
    raw: fc.boolean(),
    auth: fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...AUTH.slice(0, 5)) }, { weight: 4, arbitrary: fc.constantFrom(...AUTH.slice(5)) }),
  });
}

function encode(s: string): string {
  try {
    return encodeURIComponent(s);
  } catch {
    return s; // a lone surrogate: the URL parser writes it as U+FFFD
  }
}

function urlOf(g: Generated): string {
  const q = g.pairs.map(([k, v]) => (g.raw ? `${k}=${v}` : `${encode(k)}=${encode(v)}`)).join('&');
  return `${h.gateway.url}${g.path}${q ? `?${q}` : ''}`;
}

/** What API Gateway (and the local gateway) hand the function: the parsed query string. */
function parsedQuery(url: string) {
  const u = new URL(url);
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [k, v] of u.searchParams) {
    Object.defineProperty(single, k, { value: v, enumerable: true, writable: true, configurable: true });
    if (!Object.hasOwn(multi, k)) Object.defineProperty(multi, k, { value: [], enumerable: true, writable: true, configurable: true });
    multi[k]!.push(v);
  }
  return { single: Object.keys(single).length ? single : null, multi: Object.keys(multi).length ? multi : null };
}

// ---- the run ------------------------------------------------------------------------------------

interface Failure {
  why: string;
  url: string;
  auth: string;
  status: number;
  body: string;
}

test(`${RUNS} generated requests across the routed operations: spec-shaped answers, no 5xx but upstream 503s, nothing charged but 200s`, async () => {
  process.stdout.write(`fuzz: seed ${SEED} (FUZZ_SEED=${SEED} replays this run), ${RUNS} requests over ${OPS.map((l) => l.op.id).join(', ')}\n`);
  const perOp = Math.ceil(RUNS / OPS.length);
  const generated = OPS.flatMap((live, i) => fc.sample(requestArb(live), { seed: SEED + i, numRuns: perOp }));
  const before = await balance(team.teamId);
  const failures: Failure[] = [];
  const counts = new Map<string, number>();
  let charged = 0;
  let next = 0;
  const started = Date.now();

  async function one(g: Generated) {
    const url = urlOf(g);
    let res: Response;
    try {
      res = await fetch(url, { headers: g.auth.headers(team.key) });
    } catch (err) {
      // The client refused to send it (an invalid header or URL): not a request the service saw.
      counts.set('not sent', (counts.get('not sent') ?? 0) + 1);
      return;
    }
    const text = await res.text();
    let body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- asserted below
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const fail = (why: string) => failures.push({ why, url: url.length > 400 ? `${url.slice(0, 400)}…(${url.length} chars)` : url, auth: g.auth.name, status: res.status, body: text.slice(0, 300) });
    counts.set(String(res.status), (counts.get(String(res.status)) ?? 0) + 1);

    if (res.status === 200) {
      if (!body?.data || !body?.meta) return fail('200 without data and meta');
      if (body.meta.creditsCharged === 1 && body.meta.cached === false) charged += 1;
      else if (!(body.meta.creditsCharged === 0 && body.meta.cached === true)) fail('200 with an inconsistent charge');
      return;
    }
    if (!body?.error || typeof body.error.code !== 'string' || typeof body.error.message !== 'string' || typeof body.error.requestId !== 'string' || !body.error.requestId) {
      return fail('error not in the spec shape {error: {code, message, requestId}}');
    }
    if (res.headers.get('x-request-id') !== body.error.requestId) fail('x-request-id differs from error.requestId');
    if (body.meta !== undefined) fail('an error with meta');
    if (res.status >= 500 && res.status !== 503) return fail('a 5xx other than 503');
    if (res.status === 503 && !res.headers.get('retry-after')) fail('503 without Retry-After');

    if (g.path !== g.op.path && new URL(url).pathname !== g.op.path) {
      // No such route (the gateway answers before the key is checked).
      if (res.status !== 404 || body.error.code !== 'NOT_FOUND') fail(`an unknown path gave ${res.status} ${body.error.code}`);
      return;
    }
    if (!g.auth.valid) {
      if (res.status !== 401) fail(`a bad key gave ${res.status}, not 401`);
      return;
    }
    // With a good key, validation decides: the same query the gateway parsed, through the table's rules.
    const { single, multi } = parsedQuery(url);
    let expected: ApiError | null = null;
    try {
      validateQuery({ params: g.op.params, oneOf: g.op.oneOf }, single, multi);
    } catch (err) {
      expected = err as ApiError;
    }
    if (expected) {
      if (res.status !== expected.status || body.error.code !== expected.code) fail(`validation says ${expected.status} ${expected.code}`);
      if (res.status === 422 && !(Array.isArray(body.error.details) && body.error.details.every((d: { path?: unknown; message?: unknown }) => typeof d.path === 'string' && typeof d.message === 'string'))) {
        fail('422 without details [{path, message}]');
      }
      return;
    }
    // Valid: the upstream decides (404 unknown, 400 refused cursor, 503 from the upstream's answer).
    if (res.status === 503 && !['UPSTREAM_BLOCKED', 'EXTRACTION_FAILED', 'PLATFORM_UNAVAILABLE'].includes(body.error.code)) fail(`503 ${body.error.code} on a valid request`);
    else if (![400, 404, 503].includes(res.status)) fail(`a valid request gave ${res.status}`);
  }

  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < generated.length) await one(generated[next++]!);
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const after = await balance(team.teamId);
  const ledgerCount = (await ledger(team.teamId)).length;
  process.stdout.write(
    `fuzz: ${generated.length} requests in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...counts].sort()))}; charged ${charged}, balance drop ${before - after}, ledger ${ledgerCount}; failures ${failures.length}\n`,
  );
  if (failures.length) {
    const byWhy = new Map<string, Failure[]>();
    for (const f of failures) byWhy.set(f.why, [...(byWhy.get(f.why) ?? []), f]);
    for (const [why, fs] of byWhy) process.stdout.write(`  ${fs.length} x ${why}; first: ${JSON.stringify(fs[0])}\n`);
  }
  expect(failures.map((f) => `${f.why}: ${f.url}`).slice(0, 20)).toEqual([]);
  expect(generated.length).toBeGreaterThanOrEqual(RUNS);
  expect(before - after).toBe(charged);
  expect(ledgerCount).toBe(charged);
}, 900_000); // a hang guard: 10,000 requests take about 30 s on an idle machine, minutes on a busy one
