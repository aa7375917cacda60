import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult } from 'aws-lambda';
import * as esbuild from 'esbuild';
import { createKey } from '../../shared/auth/keys';
import { envName } from '../../shared/runtime/config';
import { createTeam } from '../../shared/accounting/teams';
import { ensureTables } from '../../dev/tables';
import { type Operation, type OperationId, handlerFile, operation, routedOperations } from '../../shared/operations';
import { FakeUpstream } from '../../dev/upstream/fake';
import { scenarios } from '../contract/scenarios';

/**
 * The bundles Lambda runs, built with the stack's esbuild settings (CommonJS, minified, everything
 * bundled, the scraper behind a dynamic import) and called the way Lambda calls them: the
 * authorizer with a REQUEST event, then the function with a REST proxy event.
 */
const ROOT = path.join(__dirname, '..', '..');
const outDir = mkdtempSync(path.join(os.tmpdir(), 'bundles-'));
const fake = new FakeUpstream();

/** Every entry in one esbuild run (each bundle is the same as alone: no code splitting); entry -> its index.js, and the project's modules with code in it. */
async function bundleAll(entries: string[]): Promise<Map<string, { file: string; modules: string[] }>> {
  const out = (entry: string) => path.join(entry.replace(/[/.]/g, '_'), 'index');
  const { metafile } = await esbuild.build({ entryPoints: entries.map((entry) => ({ in: path.join(ROOT, entry), out: out(entry) })), outdir: outDir, bundle: true, platform: 'node', target: 'node22', format: 'cjs', minify: true, logLevel: 'warning', metafile: true });
  // The metafile's paths are relative to the working directory.
  const modulesOf = (file: string) => {
    const output = Object.entries(metafile.outputs).find(([o]) => path.resolve(o) === file)?.[1];
    return Object.entries(output?.inputs ?? {})
      .filter(([input, { bytesInOutput }]) => bytesInOutput > 0 && !input.includes('node_modules/'))
      .map(([input]) => path.relative(ROOT, path.resolve(input)));
  };
  return new Map(entries.map((entry) => {
    const file = path.join(outDir, `${out(entry)}.js`);
    return [entry, { file, modules: modulesOf(file) }];
  }));
}
let bundles: Map<string, { file: string; modules: string[] }>;
const bundle = (entry: string) => bundles.get(entry)!.file;

let key: string;
let teamId: string;
beforeAll(async () => {
  bundles = await bundleAll(['functions/authorizer.ts', 'functions/account.ts', 'functions/monitors.ts', 'functions/monitors/deliver.ts', 'functions/jobs.ts', 'functions/jobs/worker.ts', ...routedOperations().map(handlerFile)]);
  await ensureTables();
  await fake.start();
  for (const op of routedOperations()) process.env[`UPSTREAM_${envName(op.platform)}_URL`] = fake.url;
  const team = await createTeam('bundle-test', 100, { usageKey: 'usage-bundle-test' });
  key = (await createKey(team.teamId, 'bundle', team.usageKey)).secret;
  teamId = team.teamId;
});
afterAll(async () => {
  await fake.stop();
  rmSync(outDir, { recursive: true, force: true });
});

test.each(routedOperations().map((op) => [op.id, op] as const))('%s: the bundled authorizer and function answer 200', async (_id, op) => {
  const authorizer = require(bundle('functions/authorizer.ts')) as { handler: (e: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult> };
  const fn = require(bundle(handlerFile(op))) as { handler: (e: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult> };
  const scenario = scenarios[op.id as keyof typeof scenarios];
  if (!scenario) throw new Error(`no contract scenario for ${op.id}`);
  fake.reset();
  scenario.routes(fake);

  const headers = { 'X-Api-Key': key };
  const auth = await authorizer.handler({
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:us-east-1:123456789012:abc123/prod/GET${op.path}`,
    headers,
    requestContext: { requestId: 'bundle-auth' },
  } as unknown as APIGatewayRequestAuthorizerEvent);
  expect(auth.usageIdentifierKey).toBe('usage-bundle-test');
  expect(auth.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow', Resource: 'arn:aws:execute-api:us-east-1:123456789012:abc123/prod/*' });

  const res = await fn.handler({
    resource: op.path,
    path: op.path,
    httpMethod: 'GET',
    headers,
    multiValueHeaders: {},
    queryStringParameters: scenario.query,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: `bundle-${op.id}`, authorizer: auth.context },
  } as unknown as APIGatewayProxyEvent);
  expect(res.statusCode).toBe(200);
  const body = JSON.parse(res.body);
  expect(body.meta).toMatchObject({ requestId: `bundle-${op.id}`, creditsCharged: 1, cached: false });
  expect(res.headers?.['x-request-id']).toBe(`bundle-${op.id}`);
});

test("an operation's function bundles its own entry of the table and schemas of its own platform only; a shortvideo function, no other shortvideo operation's either (one module each: shared/platforms/shortvideo/resources.ts)", () => {
  const ids = new Set<string>(routedOperations().map((o) => o.id));
  const isEntry = (x: unknown): x is Operation => typeof x === 'object' && x !== null && ids.has((x as Operation).id);
  for (const op of routedOperations()) {
    const { modules } = bundles.get(handlerFile(op))!;
    // The entries its bundle evaluates: what the modules of shared/operations/ in it export.
    const entries = modules
      .filter((m) => m.startsWith('shared/operations/'))
      .flatMap((m) => Object.values(require(path.join(ROOT, m)) as Record<string, unknown>).filter(isEntry))
      .map((e) => e.id);
    expect({ id: op.id, hasOwn: entries.includes(op.id) }).toEqual({ id: op.id, hasOwn: true });
    expect({ id: op.id, otherPlatforms: entries.filter((e) => operation(e as OperationId).platform !== op.platform) }).toEqual({ id: op.id, otherPlatforms: [] });
    expect({ id: op.id, otherPlatformModules: modules.filter((m) => m.startsWith('shared/platforms/') && !m.startsWith(`shared/platforms/${op.platform}/`)) }).toEqual({ id: op.id, otherPlatformModules: [] });
    if (op.platform !== 'shortvideo') continue;
    expect({ id: op.id, entries }).toEqual({ id: op.id, entries: [op.id] });
    // Its own resource module (resources/<operation>.ts) and what they share (resources/common.ts), no other operation's.
    const resources = modules.filter((m) => m.startsWith('shared/platforms/shortvideo/resources/') && m !== 'shared/platforms/shortvideo/resources/common.ts');
    expect({ id: op.id, resources: resources.length }).toEqual({ id: op.id, resources: 1 });
  }
  // Each of the four its own.
  const own = routedOperations()
    .filter((o) => o.platform === 'shortvideo')
    .map((o) => bundles.get(handlerFile(o))!.modules.find((m) => m.startsWith('shared/platforms/shortvideo/resources/') && !m.endsWith('/common.ts')));
  expect(new Set(own).size).toBe(4);
});

test('a 422 through the bundled authorizer and function: the authorizer only reads (key and balance), the function answers and records it once', async () => {
  const op = routedOperations().find((o) => Object.keys(o.params).length > 0)!;
  const authorizer = require(bundle('functions/authorizer.ts')) as { handler: (e: APIGatewayRequestAuthorizerEvent) => Promise<APIGatewayAuthorizerResult> };
  const fn = require(bundle(handlerFile(op))) as { handler: (e: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult> };
  const headers = { 'X-Api-Key': key };
  const query = { unknown: 'x' };
  const request = { resource: op.path, path: op.path, httpMethod: 'GET', headers, queryStringParameters: query, multiValueQueryStringParameters: { unknown: ['x'] } };
  const authorize = (requestId: string) =>
    authorizer.handler({ ...request, type: 'REQUEST', methodArn: `arn:aws:execute-api:us-east-1:123456789012:abc123/prod/GET${op.path}`, requestContext: { requestId } } as unknown as APIGatewayRequestAuthorizerEvent);
  await authorize('bundle-422-known'); // the key is known to this authorizer from now on
  const { usage } = await import('../../shared/accounting/usage');
  const invalid = async () => (await usage(teamId, 1)).byOperation[op.id]?.byCode.VALIDATION_ERROR ?? 0;
  const before = await invalid();
  const auth = await authorize('bundle-422');
  expect(auth.context).toEqual({ teamId, keyId: expect.any(String), creditsHint: expect.any(Number) });
  const res = await fn.handler({ ...request, multiValueHeaders: {}, pathParameters: null, stageVariables: null, body: null, isBase64Encoded: false, requestContext: { requestId: 'bundle-422', authorizer: auth.context } } as unknown as APIGatewayProxyEvent);
  expect(res.statusCode).toBe(422);
  expect(JSON.parse(res.body).error).toMatchObject({ code: 'VALIDATION_ERROR', requestId: 'bundle-422' });
  expect((await invalid()) - before).toBe(1);
  const { requestHistory } = await import('../../shared/accounting/request-history');
  expect((await requestHistory(teamId, { limit: 100 })).requests.filter((r) => r.requestId === 'bundle-422')).toEqual([expect.objectContaining({ status: 422, code: 'VALIDATION_ERROR', operation: op.id })]);
});

test('dashboard: the bundled function serves the pages and the assets built next to it (as the stack bundles it)', async () => {
  const dir = path.join(outDir, 'dashboard-fn');
  const { writeDashboard } = await import('../../dashboard/build');
  await writeDashboard(path.join(dir, 'dashboard')); // what the stack's afterBundling hook runs
  await esbuild.build({ entryPoints: [path.join(ROOT, 'functions/dashboard.ts')], bundle: true, platform: 'node', target: 'node22', format: 'cjs', minify: true, outfile: path.join(dir, 'index.js'), logLevel: 'warning' });
  const fn = require(path.join(dir, 'index.js')) as { handler: (e: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult> };
  const call = (p: string) => fn.handler({ path: p, httpMethod: 'GET', headers: {}, requestContext: { requestId: 'bundle-dash', path: `/prod${p}` } } as unknown as APIGatewayProxyEvent);

  const page = await call('/dashboard/keys');
  expect(page.statusCode).toBe(200);
  expect(page.headers?.['content-type']).toMatch(/^text\/html/);
  expect(page.headers?.['content-security-policy']).toContain("script-src 'self'");
  expect(page.body).toContain('src="/prod/dashboard/assets/app.js"');
  const js = await call('/dashboard/assets/app.js');
  expect(js.statusCode).toBe(200);
  expect(js.body).toContain('/v1/account'); // the app, chart.js bundled in: nothing from a CDN
  expect(js.body).not.toMatch(/https?:\/\/(cdn|unpkg|cdnjs)\./);
  expect((await call('/dashboard/assets/app.css')).headers?.['content-type']).toMatch(/^text\/css/);
  expect((await call('/dashboard/nope')).statusCode).toBe(404);
});

test('API reference: the bundled function serves GET /docs and the page built next to it (as the stack bundles it), every asset under 1 MB', async () => {
  const dir = path.join(outDir, 'reference-fn');
  const { writeReference } = await import('../../reference/build');
  await writeReference(path.join(dir, 'reference')); // what the stack's afterBundling hook runs
  await esbuild.build({ entryPoints: [path.join(ROOT, 'functions/reference.ts')], bundle: true, platform: 'node', target: 'node22', format: 'cjs', minify: true, outfile: path.join(dir, 'index.js'), logLevel: 'warning' });
  const fn = require(path.join(dir, 'index.js')) as { handler: (e: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult> };
  const call = (p: string) => fn.handler({ path: p, httpMethod: 'GET', headers: {}, requestContext: { requestId: 'bundle-docs', path: `/prod${p}` } } as unknown as APIGatewayProxyEvent);

  const page = await call('/docs');
  expect(page.statusCode).toBe(200);
  expect(page.headers?.['content-type']).toMatch(/^text\/html/);
  expect(page.headers?.['content-security-policy']).toMatch(/default-src 'none'; script-src 'self';.*connect-src 'self'/);
  expect(page.body).toContain('src="/prod/docs/assets/reference.js"');
  expect((await call('/docs/assets/reference.js')).body).toContain('/v1/openapi.json');
  expect(page.body).not.toMatch(/(src|href)="https?:/);
  for (const [asset, type] of [['assets/reference.js', /^text\/javascript/], ['assets/reference.css', /^text\/css/]] as const) {
    const res = await call(`/docs/${asset}`);
    expect({ asset, status: res.statusCode }).toEqual({ asset, status: 200 });
    expect(res.headers?.['content-type']).toMatch(type);
    // One API Gateway cache entry each (and far under Lambda's 6 MB answer).
    expect(Buffer.byteLength(res.body)).toBeLessThan(1_048_576);
  }
  expect((await call('/docs/assets/reference.js')).body).toContain('rapi-doc');
  expect((await call('/docs/nope')).statusCode).toBe(404);
});

test('account: the bundled function answers the account API (not signed in -> 401 in the error envelope)', async () => {
  const fn = require(bundle('functions/account.ts')) as { handler: (e: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult> };
  const res = await fn.handler({ path: '/v1/account/me', httpMethod: 'GET', headers: { 'x-api-key': key }, requestContext: { requestId: 'bundle-account', path: '/prod/v1/account/me' } } as unknown as APIGatewayProxyEvent);
  expect(res.statusCode).toBe(401);
  expect(JSON.parse(res.body).error).toMatchObject({ code: 'UNAUTHORIZED', requestId: 'bundle-account' });
});

test("the KMS client (the monitors' sealing: shared/webhooks/secret.ts) is bundled only where secrets are sealed or opened: never in an operation's function, the authorizer or the account API", () => {
  // TrentService: the KMS API's target prefix, a string every KMS command of the client carries (minifying keeps it).
  const hasKms = (entry: string) => readFileSync(bundle(entry), 'utf8').includes('TrentService');
  expect(hasKms('functions/monitors.ts')).toBe(true);
  expect(hasKms('functions/monitors/deliver.ts')).toBe(true);
  // A job's own webhook: its secret sealed by the jobs API.
  expect(hasKms('functions/jobs.ts')).toBe(true);
  for (const entry of ['functions/authorizer.ts', 'functions/account.ts', ...routedOperations().map(handlerFile)]) expect({ entry, kms: hasKms(entry) }).toEqual({ entry, kms: false });
});

test("the STS client (a job's delivery to the customer's bucket: shared/jobs/destination.ts, imported lazily) is bundled in the job worker, never in an operation's function, the authorizer or the account API", () => {
  // DecodeAuthorizationMessage: a command of @aws-sdk/client-sts only (the SDK's credential chain carries a nested STS client with AssumeRole* alone).
  const hasSts = (entry: string) => readFileSync(bundle(entry), 'utf8').includes('DecodeAuthorizationMessage');
  expect(hasSts('functions/jobs/worker.ts')).toBe(true);
  for (const entry of ['functions/authorizer.ts', 'functions/account.ts', ...routedOperations().map(handlerFile)]) expect({ entry, sts: hasSts(entry) }).toEqual({ entry, sts: false });
});
