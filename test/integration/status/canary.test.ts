import { fixture, FakeUpstream } from '../../../dev/upstream/fake';
import { operationScraper as load } from '../../../functions/canary';
import { ensureTables } from '../../../dev/tables';
import { MICROBLOG_A, RECORDED, replayAll } from '../../../dev/upstream/replay';
import { envName } from '../../../shared/runtime/config';
import { logger } from '../../../shared/runtime/log';
import { operation, routedOperations } from '../../../shared/operations';
import { readCanaryRecord } from '../../../shared/status/canary-record';
import { canaryInputs, missingFields, presentPaths, runCanaries, runCanary } from '../../../shared/status/canary';
import { CANARY_INPUTS } from '../../../shared/status/canary-inputs';
import { buildStatus } from '../../../shared/status/page';
import { scenarios } from '../../contract/scenarios';

/**
 * Item 3 of issue 20: the canaries against the fake upstream (the replay of the recorded fixtures,
 * with the contract scenarios' inputs): green, then a drifted answer reported as drift, then a failure.
 */
const fake = new FakeUpstream();
const OP = operation('microblog-a-user-posts');
const inputs = Object.fromEntries(routedOperations().map((op) => [op.id, scenarios[op.id as keyof typeof scenarios]?.query ?? RECORDED[op.id as keyof typeof RECORDED]!]));

beforeAll(async () => {
  await ensureTables();
  await fake.start();
  for (const op of routedOperations()) process.env[`UPSTREAM_${envName(op.platform)}_URL`] = fake.url;
});
afterAll(async () => fake.stop());
beforeEach(() => {
  fake.reset();
  replayAll(fake);
  // citygame's source is the deployment's: the contract scenario names one, served by the fake.
  scenarios['citygame-daily']!.routes(fake);
});
afterAll(() => {
  delete process.env.CITYGAME_SOURCE_URL;
  delete process.env.CITYGAME_FIELDS;
});

test('every routed operation: green on the recorded answers, recorded for the status page', async () => {
  const runs = await runCanaries(logger, { inputs, load });
  expect(runs.map((r) => [r.operation, r.result, r.code])).toEqual(routedOperations().map((op) => [op.id, 'ok', undefined]));
  for (const r of runs) expect(r.upstreamCalls).toBeGreaterThan(0);
  const record = await readCanaryRecord(OP.id);
  expect(record).toMatchObject({ ok: true, consecutiveFailures: 0, missing: [], newlyNull: [] });
  expect(record!.presentPaths).toEqual(expect.arrayContaining(['user.website', 'user.pronouns', 'posts[]', 'posts[].text']));
  const status = await buildStatus();
  expect(status.operations.find((o) => o.operation === OP.id)!.canary).toMatchObject({ ok: true, consecutiveFailures: 0 });
});

test('then a drifted answer: optional fields the last good answer had come back null, reported as drift', async () => {
  await runCanary(OP, inputs[OP.id], logger, { load });
  const profile = fixture('microblog-a/profile.json') as Record<string, unknown>;
  delete profile.website;
  delete profile.pronouns;
  fake.on(MICROBLOG_A.profile, { body: profile });
  const run = await runCanary(OP, inputs[OP.id], logger, { load });
  expect(run).toMatchObject({ result: 'drift', missing: [], newlyNull: ['user.pronouns', 'user.website'] });
  const record = await readCanaryRecord(OP.id);
  expect(record).toMatchObject({ ok: true, newlyNull: ['user.pronouns', 'user.website'] });
  // The baseline stays the last good answer: the drift is reported again until it goes away.
  expect((await runCanary(OP, inputs[OP.id], logger, { load })).newlyNull).toEqual(['user.pronouns', 'user.website']);
  const status = (await buildStatus()).operations.find((o) => o.operation === OP.id)!;
  expect(status.canary!.newlyNull).toEqual(['user.pronouns', 'user.website']);
});

test('then failures: counted in a row, with the error code, on the status page', async () => {
  fake.on(MICROBLOG_A.feed, { status: 502, body: { error: 'InternalServerError' } });
  const first = await runCanary(OP, inputs[OP.id], logger, { load });
  expect(first).toMatchObject({ result: 'failed', code: 'PLATFORM_UNAVAILABLE' });
  await runCanary(OP, inputs[OP.id], logger, { load });
  const record = await readCanaryRecord(OP.id);
  expect(record).toMatchObject({ ok: false, code: 'PLATFORM_UNAVAILABLE', consecutiveFailures: 2 });
  const status = (await buildStatus()).operations.find((o) => o.operation === OP.id)!;
  // No traffic here: the canary alone decides, and two failures in a row are "down".
  expect(status.state).toBe('down');
  expect(status.canary).toMatchObject({ ok: false, code: 'PLATFORM_UNAVAILABLE', consecutiveFailures: 2 });
  // A good run again clears the count.
  fake.reset();
  replayAll(fake);
  expect((await runCanary(OP, inputs[OP.id], logger, { load })).result).toBe('ok');
  expect(await readCanaryRecord(OP.id)).toMatchObject({ ok: true, consecutiveFailures: 0 });
});

test('an operation without an input is reported as such, and nothing is scraped', async () => {
  const run = await runCanary(OP, null, logger, { load });
  expect(run).toMatchObject({ result: 'no input', upstreamCalls: 0 });
  expect(fake.requests).toHaveLength(0);
});

test('required fields that came back missing are named by their path', () => {
  const data = { user: { handle: 'x' }, posts: [{}], count: 1 };
  const missing = missingFields(OP.data, data);
  expect(missing).toEqual(expect.arrayContaining(['user.did', 'user.displayName', 'cursor']));
  expect(missing.some((m) => m.startsWith('posts[].'))).toBe(true);
  expect(presentPaths({ a: { b: null, c: [{ d: 1 }, { d: null }] }, e: [] })).toEqual(new Set(['a', 'a.c', 'a.c[]', 'a.c[].d', 'e']));
});

test('inputs: one config file of defaults, overridden by CANARY_INPUTS', () => {
  expect(Object.keys(CANARY_INPUTS).sort()).toEqual(routedOperations().map((o) => o.id).sort());
  const merged = canaryInputs(JSON.stringify({ 'livestream-clip': { url: 'https://example.test/x' } }));
  expect(merged['livestream-clip']).toEqual({ url: 'https://example.test/x' });
  expect(merged['microblog-a-user-posts']).toEqual(CANARY_INPUTS['microblog-a-user-posts']);
});
