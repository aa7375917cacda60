import { existsSync } from 'node:fs';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as v from 'valibot';
import { ApiError } from '../../shared/http/errors';
import { handlerFile, operations, routedOperations, type Operation, type Status } from '../../shared/operations';
import { validateQuery } from '../../shared/http/validation';
import { startHarness, type CallResult, type Harness } from '../support/harness';
import { dataSchema, describeIssues, errorSchema, successSchema } from './schemas';
import { scenarios, type Query, type Scenario, type Variation } from './scenarios';

/**
 * Contract tests driven by the operation table (shared/operations.ts) and the spec
 * (/work/shared/spec/service-spec.md). What the spec says is encoded here once, as data copied from
 * it; the table is compared to it, and every routed operation is called through the local gateway
 * and its responses are validated against the spec's schemas (./schemas.ts).
 */

// ---- the spec, as data --------------------------------------------------------------------------

interface SpecEndpoint {
  path: string;
  /** Query parameters besides cache_max_age; null where the spec says the names are "not shown". */
  params: string[] | null;
  required?: string[];
  oneOf?: [string, string][];
  /** The Limits table's page size. */
  pageSize?: number;
}

/** "Endpoints" table, the operation sections, and the Limits table. */
const SPEC_ENDPOINTS: Record<number, SpecEndpoint> = {
  1: { path: '/v1/microblog-a/user/posts', params: ['handle', 'userId', 'cursor'], oneOf: [['handle', 'userId']], pageSize: 30 },
  2: { path: '/v1/livestream/clip', params: ['url'], required: ['url'] },
  3: { path: '/v1/microblog-b/profile', params: ['handle'], required: ['handle'] },
  4: { path: '/v1/citygame/daily', params: [] },
  5: { path: '/v1/shortvideo/user/following', params: ['handle', 'userId', 'cursor'], oneOf: [['handle', 'userId']], pageSize: 30 },
  6: { path: '/v1/linkpage/page', params: ['url'], required: ['url'] },
  7: { path: '/v1/shortvideo/video/comments', params: ['url', 'cursor'], required: ['url'], pageSize: 40 },
  8: { path: '/v1/professional/post', params: ['url'], required: ['url'] },
  // "a username or a user id, and a cursor"; names not shown. One of the first two must be given.
  9: { path: '/v1/microblog-c/user/posts', params: null, pageSize: 20 },
  10: { path: '/v1/microblog-b/user-notes', params: ['handle', 'trim'], required: ['handle'] },
  11: { path: '/v1/shortvideo/user/live', params: ['handle'], required: ['handle'] },
  12: { path: '/v1/microblog-b/note', params: ['url', 'trim'], required: ['url'] },
  // "a hashtag, a region, and a cursor"; names not shown.
  13: { path: '/v1/shortvideo/search/hashtag', params: null, pageSize: 30 },
};

/**
 * "Per-operation lists of responses", copied from the spec:
 *   - Operations 1, 5, 7, 9 and 13 list 400.
 *   - Operations 1, 2, 3, 5, 6, 7, 8, 9, 10, 11 and 13 list 404.
 *   - Operation 4 lists 401, 402, 429, 503 only.
 *   - Operation 12 lists 401, 402, 422, 429, 503 (no 404).
 *   - Operations 2, 3, 6, 8, 10 and 11 list 401, 402, 404, 422, 429, 503.
 * The spec gives no complete list for 1, 5, 7, 9 and 13: they get 400 and 404 from the first two
 * sentences plus the statuses every other parameterized operation lists (401, 402, 422, 429, 503).
 * 200 (the success envelope) applies to every operation.
 */
const SPEC_LISTS_400 = [1, 5, 7, 9, 13];
const SPEC_LISTS_404 = [1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 13];
const SPEC_EXACT: Record<number, Status[]> = {
  4: [401, 402, 429, 503],
  12: [401, 402, 422, 429, 503],
  2: [401, 402, 404, 422, 429, 503],
  3: [401, 402, 404, 422, 429, 503],
  6: [401, 402, 404, 422, 429, 503],
  8: [401, 402, 404, 422, 429, 503],
  10: [401, 402, 404, 422, 429, 503],
  11: [401, 402, 404, 422, 429, 503],
};
const COMMON: Status[] = [401, 402, 422, 429, 503];

function specResponses(n: number): Status[] {
  const listed = SPEC_EXACT[n] ?? [...COMMON, ...(SPEC_LISTS_400.includes(n) ? [400 as const] : []), ...(SPEC_LISTS_404.includes(n) ? [404 as const] : [])];
  return [200 as Status, ...listed].sort((a, b) => a - b);
}

// ---- helpers ------------------------------------------------------------------------------------

function expectValid(schema: v.GenericSchema, value: unknown, label: string) {
  const r = v.safeParse(schema, value);
  if (!r.success) {
    throw new Error(`${label} does not match the spec:\n${describeIssues(r.issues)}\nbody: ${JSON.stringify(value).slice(0, 2000)}`);
  }
}

/**
 * Real mismatches between an implementation and the spec, found by these tests and reported. The
 * schema stays as the spec says; each entry fails its own clearly named test ("SPEC MISMATCH") until
 * the implementation (or the spec) changes, and the other checks of the same response go on.
 */
interface KnownMismatch {
  op: string;
  /** Where it shows: 'default' (the scenario's query) and/or names of the scenario's `moreSuccesses`. */
  cases: string[];
  /** Dot paths of the issues this mismatch explains. */
  path: RegExp;
  report: string;
}
// Mismatches between an implementation and the spec that are not settled yet, each with its report.
// Settled deviations live in schemas.ts with their reasons (and in the README); this stays empty.
const KNOWN_MISMATCHES: KnownMismatch[] = [];

const issueLines = (issues: readonly v.BaseIssue<unknown>[]) => issues.map((i) => ({ path: v.getDotPath(i) ?? '(root)', issue: i }));

/** The response matches the success envelope and the data schema, apart from declared known mismatches. */
function expectSuccess(op: Operation, caseName: string, body: unknown, label: string) {
  const r = v.safeParse(successSchema(dataSchema(op)), body);
  if (r.success) return;
  const known = KNOWN_MISMATCHES.filter((k) => k.op === op.id && k.cases.includes(caseName));
  const unexpected = issueLines(r.issues).filter((l) => !known.some((k) => k.path.test(l.path)));
  if (unexpected.length) {
    throw new Error(`${label} does not match the spec:\n${describeIssues(unexpected.map((l) => l.issue))}\nbody: ${JSON.stringify(body).slice(0, 2000)}`);
  }
}

function scenarioOf(op: Operation): Scenario {
  const s = scenarios[op.id as keyof typeof scenarios];
  if (!s) throw new Error(`operation ${op.id} is routed but has no contract scenario: add one to test/contract/scenarios.ts`);
  return s;
}

function variationOf(op: Operation, which: 'notFound' | 'badCursor' | 'unavailable', status: number): Variation {
  const vr = scenarioOf(op)[which];
  if (!vr) throw new Error(`operation ${op.id} lists ${status} but its contract scenario has no \`${which}\` fake set-up`);
  return vr;
}

const ROOT = path.join(__dirname, '..', '..');

// ---- the table against the spec (every operation, planned ones too) ----------------------------

describe('the operation table matches the spec', () => {
  test('13 operations, numbered 1..13 in order, unique ids and paths', () => {
    expect(operations.map((o) => o.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    expect(new Set(operations.map((o) => o.id)).size).toBe(13);
    expect(new Set(operations.map((o) => o.path)).size).toBe(13);
  });

  describe.each(operations.map((o) => [`${o.number} ${o.id}`, o as Operation] as const))('%s', (_name, op) => {
    const spec = SPEC_ENDPOINTS[op.number]!;
    const names = Object.keys(op.params);

    test('path', () => {
      expect(op.path).toBe(spec.path);
      expect(op.path.split('/')[2]).toBe(op.platform);
    });

    test('parameter names, required flags and either-or pairs', () => {
      if (spec.params) {
        expect([...names].sort()).toEqual([...spec.params].sort());
        expect(names.filter((n) => op.params[n]!.required).sort()).toEqual([...(spec.required ?? [])].sort());
        expect((op.oneOf ?? []).map((p) => [...p])).toEqual(spec.oneOf ?? []);
      } else {
        // Names "not shown": accept the table's names, but the described shape must hold.
        expect(names).toHaveLength(3);
        expect(names.filter((n) => op.params[n]!.cursor)).toHaveLength(1);
        if (op.number === 9) {
          expect(op.oneOf).toHaveLength(1);
          expect(names.filter((n) => op.params[n]!.required)).toEqual([]);
        }
      }
      expect(names).not.toContain('cache_max_age');
      for (const [name, def] of Object.entries(op.params)) {
        expect({ name, cursor: !!def.cursor }).toEqual({ name, cursor: name === 'cursor' || (spec.params === null && def.cursor === true) });
        expect(def.description.length).toBeGreaterThan(0);
      }
    });

    test('page size', () => {
      expect(op.pageSize).toBe(spec.pageSize);
    });

    test("listed responses are the spec's per-operation list", () => {
      expect([...op.responses].sort((a, b) => a - b)).toEqual(specResponses(op.number));
    });

    test('validateQuery with nothing: 422 exactly when there are required parameters or either-or pairs', () => {
      const needsSomething = names.some((n) => op.params[n]!.required) || (op.oneOf ?? []).length > 0;
      for (const empty of [{}, null]) {
        let thrown: unknown;
        try {
          validateQuery(op, empty);
        } catch (e) {
          thrown = e;
        }
        if (!needsSomething) {
          expect(thrown).toBeUndefined();
          continue;
        }
        expect(thrown).toBeInstanceOf(ApiError);
        const err = thrown as ApiError;
        expect(err.status).toBe(422);
        expect(err.code).toBe('VALIDATION_ERROR');
        const paths = err.details!.map((d) => d.path);
        for (const n of names.filter((x) => op.params[x]!.required)) expect(paths).toContain(n);
        for (const [a] of op.oneOf ?? []) expect(paths).toContain(a);
      }
    });

    test('a parameter never given is never treated as an empty string', () => {
      // Absent: never "Must not be empty", never a bad cursor, never a value but its declared default.
      const defaults = Object.fromEntries(Object.entries(op.params).filter(([, d]) => d.default !== undefined).map(([n, d]) => [n, v.parse(d.schema, d.default)]));
      try {
        const { values } = validateQuery(op, {});
        expect(values).toEqual(defaults);
      } catch (e) {
        expect(e).toBeInstanceOf(ApiError);
        expect((e as ApiError).code).toBe('VALIDATION_ERROR');
        for (const d of (e as ApiError).details!) expect(d.message).not.toMatch(/empty/i);
      }
      // Given as an empty string: refused (a 400 for a cursor, a 422 otherwise), unlike absent.
      for (const [name, def] of Object.entries(op.params)) {
        let thrown: unknown;
        try {
          validateQuery(op, { [name]: '' });
        } catch (e) {
          thrown = e;
        }
        expect(thrown).toBeInstanceOf(ApiError);
        const err = thrown as ApiError;
        if (def.cursor && err.code === 'BAD_REQUEST') continue;
        expect(err.code).toBe('VALIDATION_ERROR');
        if (!def.cursor) expect(err.details).toContainEqual({ path: name, message: expect.stringMatching(/empty/i) });
      }
      // With a scenario's valid query: exactly the given parameters (and the defaults of absent ones) have values.
      const s = scenarios[op.id as keyof typeof scenarios];
      if (s) {
        const { values } = validateQuery(op, s.query);
        expect(Object.keys(values).sort()).toEqual([...new Set([...Object.keys(s.query), ...Object.keys(defaults)])].sort());
        for (const val of Object.values(values)) expect(val).not.toBe('');
      }
    });

    test('a data schema exists', () => {
      expect(() => dataSchema(op)).not.toThrow();
    });
  });
});

// ---- routed operations through the gateway ------------------------------------------------------

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.stop());

async function run(op: Operation, vr: Variation | undefined, key: string | undefined, extra: Query = {}): Promise<CallResult> {
  const s = scenarioOf(op);
  h.fake.reset();
  s.routes(h.fake);
  vr?.routes?.(h.fake);
  return h.call(op.path, { ...(vr?.query ?? s.query), ...extra }, { key });
}

function expectError(res: CallResult, status: number, code?: string) {
  expectValid(errorSchema, res.body, `${status} body`);
  expect({ status: res.status, code: res.body.error.code }).toEqual({ status, code: code ?? expect.any(String) });
  expect(res.body.error.requestId).toBe(res.headers['x-request-id']);
}

const routed = routedOperations();

test('at least one operation is routed', () => {
  expect(routed.length).toBeGreaterThan(0);
});

for (const op of routed) describe(`routed ${op.number} ${op.id}`, () => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await h.team(1000));
  });

  test('has a data schema and a contract scenario', () => {
    expect(() => dataSchema(op)).not.toThrow();
    scenarioOf(op);
    // A scenario supplies the fake set-up of each error status the operation lists, and only those.
    const s = scenarioOf(op);
    expect({ notFound: !!s.notFound, badCursor: !!s.badCursor }).toEqual({ notFound: op.responses.includes(404), badCursor: op.responses.includes(400) });
  });

  test('200: the full response matches the envelope and the data schema', async () => {
    const res = await run(op, undefined, key);
    expect(res.status).toBe(200);
    expectSuccess(op, 'default', res.body, `${op.id} 200`);
    expect(res.body.meta).toMatchObject({ cached: false, creditsCharged: 1 });
    expect(res.body.meta).not.toHaveProperty('cachedAt');
    expect(res.body.meta.requestId).toBe(res.headers['x-request-id']);
  });

  test('200 from the cache (cache_max_age=1d): cached, cachedAt, 0 credits, same schema', async () => {
    const live = await run(op, undefined, key);
    expect(live.status).toBe(200);
    const hit = await run(op, undefined, key, { cache_max_age: '1d' });
    expect(hit.status).toBe(200);
    expectSuccess(op, 'default', hit.body, `${op.id} cache hit`);
    expect(hit.body.meta).toMatchObject({ cached: true, creditsCharged: 0, creditsRemaining: live.body.meta.creditsRemaining });
    expect(Date.parse(hit.body.meta.cachedAt)).toBeLessThanOrEqual(Date.now());
    expect(hit.body.data.fetchedAt).toBe(hit.body.meta.cachedAt);
  });

  const more = scenarios[op.id as keyof typeof scenarios]?.moreSuccesses ?? [];
  for (const m of more) {
    test(`200 (${m.name}): the full response matches the envelope and the data schema`, async () => {
      const res = await run(op, m, key);
      expect({ status: res.status, error: res.body.error }).toEqual({ status: 200, error: undefined });
      expectSuccess(op, m.name, res.body, `${op.id} 200 (${m.name})`);
    });
  }

  for (const k of KNOWN_MISMATCHES.filter((x) => x.op === op.id)) {
    test(`SPEC MISMATCH [${k.cases.join(', ')}] ${k.path.source}`, async () => {
      const hits: string[] = [];
      for (const c of k.cases) {
        const vr = c === 'default' ? undefined : scenarioOf(op).moreSuccesses?.find((m) => m.name === c);
        if (c !== 'default' && !vr) throw new Error(`no scenario case named ${c}`);
        const res = await run(op, vr, key);
        expect(res.status).toBe(200);
        const r = v.safeParse(successSchema(dataSchema(op)), res.body);
        if (!r.success) hits.push(...issueLines(r.issues).filter((l) => k.path.test(l.path)).map((l) => `  [${c}] ${l.path}: ${l.issue.message}`));
      }
      if (hits.length) {
        throw new Error(`SPEC MISMATCH (reported; fix the implementation or the spec, not the schema): ${k.report}\n${hits.join('\n')}`);
      }
    });
  }

  // Each status the operation lists is produced by some request. 429 is not produced here: it takes
  // 100 requests of one team within a minute, and test/gateway/pipeline.test.ts ('rate limit') covers it
  // for the gateway every operation shares.
  const statuses = op.responses.filter((s) => s !== 200 && s !== 429);
  for (const status of statuses) test(`${status}`, async () => {
    switch (status) {
      case 400: {
        const res = await run(op, variationOf(op, 'badCursor', 400), key);
        expectError(res, 400, 'BAD_REQUEST');
        break;
      }
      case 401: {
        // Refused by the authorizer: nothing is asked upstream.
        expectError(await run(op, undefined, undefined), 401, 'UNAUTHORIZED');
        expect(h.fake.requests).toEqual([]);
        expectError(await run(op, undefined, 'A'.repeat(28)), 401, 'UNAUTHORIZED');
        expect(h.fake.requests).toEqual([]);
        break;
      }
      case 402: {
        const broke = await h.team(0);
        expectError(await run(op, undefined, broke.key), 402, 'INSUFFICIENT_CREDITS');
        break;
      }
      case 404: {
        expectError(await run(op, variationOf(op, 'notFound', 404), key), 404, 'NOT_FOUND');
        break;
      }
      case 422: {
        const unknown = await run(op, undefined, key, { not_a_parameter: 'x' });
        expectError(unknown, 422, 'VALIDATION_ERROR');
        expect(unknown.body.error.details).toContainEqual({ path: 'not_a_parameter', message: expect.any(String) });
        const malformed = await run(op, undefined, key, { cache_max_age: '2d' });
        expectError(malformed, 422, 'VALIDATION_ERROR');
        expect(malformed.body.error.details).toContainEqual({ path: 'cache_max_age', message: expect.any(String) });
        break;
      }
      case 503: {
        const res = await run(op, variationOf(op, 'unavailable', 503), key);
        expectError(res, 503);
        expect(['UPSTREAM_BLOCKED', 'EXTRACTION_FAILED', 'PLATFORM_UNAVAILABLE', 'SERVICE_UNAVAILABLE']).toContain(res.body.error.code);
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        break;
      }
      default:
        throw new Error(`no contract check for status ${status}`);
    }
  });
});

// ---- planned operations whose handler already exists --------------------------------------------

/**
 * Not routed yet, so the gateway does not serve them; their handler (functions/<id>.ts) is invoked
 * directly with the proxy event the gateway would build, to catch spec mismatches before routing.
 */
const plannedWithHandler = (operations as readonly Operation[]).filter(
  (o) => o.status === 'planned' && scenarios[o.id as keyof typeof scenarios] && existsSync(path.join(ROOT, handlerFile(o))),
);

for (const op of plannedWithHandler) {
  test(`planned ${op.number} ${op.id} (handler invoked directly): 200: the full response matches the envelope and the data schema`, async () => {
    const { teamId } = await h.team(10);
    const s = scenarioOf(op);
    h.fake.reset();
    s.routes(h.fake);
    const mod = (await import(`../../functions/${op.id}`)) as { handler: (e: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult> };
    const requestId = `contract-${Math.random().toString(36).slice(2)}`;
    const event = {
      resource: op.path,
      path: op.path,
      httpMethod: 'GET',
      headers: {},
      multiValueHeaders: {},
      queryStringParameters: s.query,
      multiValueQueryStringParameters: Object.fromEntries(Object.entries(s.query).map(([k, val]) => [k, [val]])),
      pathParameters: null,
      stageVariables: null,
      body: null,
      isBase64Encoded: false,
      requestContext: { requestId, authorizer: { teamId } },
    } as unknown as APIGatewayProxyEvent;
    const res = await mod.handler(event);
    const body = JSON.parse(res.body);
    expect({ status: res.statusCode, error: body.error }).toEqual({ status: 200, error: undefined });
    expectSuccess(op, 'default', body, `${op.id} 200`);
  });
}
