import type { APIGatewayProxyEvent } from 'aws-lambda';
import { REFERENCE_HEADERS, referenceHandler } from '../../shared/public/reference-page';
import { openApiHandler } from '../../shared/public/openapi-document';
import { renderLlmsTxt } from '../../shared/public/llms-txt';

/**
 * GET /docs (shared/public/reference-page.ts) on assets given in memory, as Lambda calls it under a
 * stage: the page with the stage filled in, its assets, nothing else; and the served OpenAPI document
 * whose servers the page's "Try" calls.
 */
const ASSETS = {
  'index.html': { type: 'text/html; charset=utf-8', body: '<script src="%BASE%/docs/assets/reference.js"></script><body data-base="%BASE%">' },
  'assets/reference.js': { type: 'text/javascript; charset=utf-8', body: 'customElements;' },
  'assets/reference.css': { type: 'text/css; charset=utf-8', body: 'rapi-doc{}' },
};
const event = (p: string, stage = '/prod') => ({ path: p, httpMethod: 'GET', headers: {}, requestContext: { requestId: 'ref', path: `${stage}${p}` } }) as unknown as APIGatewayProxyEvent;

test('GET /docs: the page with the stage before it, a CSP that keeps everything on this origin, cacheable', async () => {
  let loads = 0;
  const handler = referenceHandler(() => (loads++, ASSETS));
  for (const p of ['/docs', '/docs/']) {
    const page = await handler(event(p));
    expect(page.statusCode).toBe(200);
    expect(page.body).toBe('<script src="/prod/docs/assets/reference.js"></script><body data-base="/prod">');
    expect(page.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'public, max-age=60', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' });
    const csp = String(page.headers?.['content-security-policy']).split('; ');
    expect(csp).toEqual(expect.arrayContaining(["default-src 'none'", "script-src 'self'", "connect-src 'self'", "font-src 'self'", "img-src 'self' data:", "frame-ancestors 'none'"]));
  }
  // Behind a custom domain (no stage): the page's links start at the root.
  expect((await handler(event('/docs', ''))).body).toContain('src="/docs/assets/reference.js"');
  expect(loads).toBe(1);
});

test('its assets, by name, with their types and the same headers', async () => {
  const handler = referenceHandler(() => ASSETS);
  const js = await handler(event('/docs/assets/reference.js'));
  expect(js).toMatchObject({ statusCode: 200, body: 'customElements;', headers: { 'content-type': 'text/javascript; charset=utf-8', ...REFERENCE_HEADERS } });
  expect((await handler(event('/docs/assets/reference.css'))).headers?.['content-type']).toBe('text/css; charset=utf-8');
});

test('anything else under /docs is 404 in the error envelope, Object.prototype names too', async () => {
  const handler = referenceHandler(() => ASSETS);
  for (const p of ['/docs/nope', '/docs/assets/nope.js', '/docs/assets/__proto__', '/docs/assets/constructor', '/docs/index.html', '/docs/assets/toString']) {
    const res = await handler(event(p));
    expect({ p, status: res.statusCode }).toEqual({ p, status: 404 });
    expect(JSON.parse(res.body).error).toMatchObject({ code: 'NOT_FOUND', message: 'No such page of the API reference', requestId: 'ref' });
  }
});

test("the served OpenAPI document's servers: the configured public address, else the stage before it (never the file's npm start server)", async () => {
  const doc = { openapi: '3.1.0', servers: [{ url: 'http://localhost:3000' }], paths: {} };
  const servers = async (base: string | undefined, stage: string) => JSON.parse((await openApiHandler(doc, () => base)(event('/v1/openapi.json', stage))).body).servers;
  expect(await servers('https://api.example.com/social/', '/prod')).toEqual([{ url: 'https://api.example.com/social', description: 'This deployment' }]);
  expect(await servers(undefined, '/prod')).toEqual([{ url: '/prod', description: 'This deployment' }]);
  expect(await servers(undefined, '')).toEqual([{ url: '/', description: 'This deployment' }]);
  // Nothing a caller sends changes it: a bad configured address is ignored, as llms.txt's links.
  expect(await servers('javascript:alert(1)', '/prod')).toEqual([{ url: '/prod', description: 'This deployment' }]);
  expect(doc.servers).toEqual([{ url: 'http://localhost:3000' }]);
});

test('llms.txt names the reference page', () => {
  expect(renderLlmsTxt('https://api.example.com/prod')).toContain('[API reference](https://api.example.com/prod/docs)');
});
