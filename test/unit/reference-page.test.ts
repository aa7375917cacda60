import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as esbuild from 'esbuild';
import { writeReference } from '../../reference/build';

/**
 * GET /docs as Lambda would run it: the page built next to the bundled function (what the stack's
 * bundling hook is to run: `tsx reference/build.ts <out>/reference`), called with REST proxy events
 * under a stage. Every asset is under API Gateway's cache entry limit (1 MB), so the gateway can cache
 * each, and nothing in the page names another origin to load from.
 */
const ROOT = path.join(__dirname, '..', '..');
const dir = mkdtempSync(path.join(os.tmpdir(), 'bundle-reference-'));
let handler: (e: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
const call = (p: string) => handler({ path: p, httpMethod: 'GET', headers: {}, requestContext: { requestId: 'reference', path: `/prod${p}` } } as unknown as APIGatewayProxyEvent);

beforeAll(async () => {
  await writeReference(path.join(dir, 'reference'));
  await esbuild.build({ entryPoints: [path.join(ROOT, 'functions/api-reference.ts')], bundle: true, platform: 'node', target: 'node22', format: 'cjs', minify: true, outfile: path.join(dir, 'index.js'), logLevel: 'warning' });
  ({ handler } = require(path.join(dir, 'index.js')) as { handler: typeof handler });
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('GET /docs: the page under the stage, its assets from this origin, a CSP that keeps it so, cacheable', async () => {
  const page = await call('/docs');
  expect(page.statusCode).toBe(200);
  expect(page.headers?.['content-type']).toMatch(/^text\/html/);
  expect(page.headers?.['cache-control']).toBe('public, max-age=300');
  expect(String(page.headers?.['content-security-policy'])).toMatch(/default-src 'none'; script-src 'self'; .*connect-src 'self'/);
  expect(page.body).toContain('src="/prod/docs/assets/reference.js"');
  expect(page.body).toContain('data-base="/prod"');
  expect(page.body).not.toMatch(/(src|href)="https?:/);
  expect((await call('/docs/')).statusCode).toBe(200);

  const js = await call('/docs/assets/reference.js');
  expect(js.statusCode).toBe(200);
  expect(js.headers?.['content-type']).toMatch(/^text\/javascript/);
  expect(js.body).toContain('/v1/openapi.json');
  // Chunks it imports are siblings on this origin.
  const chunks = [...js.body.matchAll(/from"\.\/(chunk-[\w-]+\.js)"/g)].map((m) => m[1]!);
  expect(chunks.length).toBeGreaterThan(0);
  for (const c of chunks) expect((await call(`/docs/assets/${c}`)).statusCode).toBe(200);
  expect((await call('/docs/assets/reference.css')).headers?.['content-type']).toMatch(/^text\/css/);
});

test('every asset fits one API Gateway cache entry (1 MB)', async () => {
  const { buildReference } = await import('../../reference/build');
  const sizes = Object.entries(await buildReference()).map(([name, a]) => [name, Buffer.byteLength(a.body)] as const);
  expect(sizes.length).toBeGreaterThan(3);
  expect(sizes.filter(([, bytes]) => bytes >= 1_048_576)).toEqual([]);
}, 120_000);

test('anything else under /docs is 404 in the error envelope, Object.prototype names too', async () => {
  for (const p of ['/docs/nope', '/docs/assets/nope.js', '/docs/assets/__proto__', '/docs/assets/constructor', '/docs/index.html']) {
    const res = await call(p);
    expect({ p, status: res.statusCode }).toEqual({ p, status: 404 });
    expect(JSON.parse(res.body).error.code).toBe('NOT_FOUND');
  }
});
