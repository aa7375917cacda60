import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { ACCOUNT_ROUTES, KEY_READABLE } from '../../shared/api/account-routes';
import { LLMS_PATH, MCP_METHODS, MCP_PATH } from '../../shared/api/agent-routes';
import { routedOperations } from '../../shared/operations';
import { CLIENT_TABLE_PATH, OPENAPI_FILE, openApiDocument, renderClientTable, renderOpenApi } from '../../scripts/openapi';
import { startHarness, type Harness } from '../support/harness';

/**
 * docs/openapi.json is generated from the operation table (npm run docs). A real OpenAPI validator
 * accepts it, the committed file is a fresh generation, and the gateway serves it without a key.
 * (Every response of every gateway test is checked against it by the harness: openapi-check.ts.)
 */
test('an OpenAPI 3.1 validator accepts the document', async () => {
  const result = await new Validator().validate(openApiDocument() as never);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
});

test('the committed docs/openapi.json and client/operations.gen.ts are fresh generations (run `npm run docs`)', () => {
  expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(renderOpenApi());
  expect(readFileSync(CLIENT_TABLE_PATH, 'utf8')).toBe(renderClientTable());
});

test('every routed operation has its parameters, both security schemes, Retry-After on 429/503, and its data schema', () => {
  const doc = openApiDocument() as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'bearer', 'session']);
  for (const op of routedOperations()) {
    const get = doc.paths[op.path].get;
    expect(get['x-status']).toBe('live');
    expect(get.parameters.map((p: { name: string }) => p.name).sort()).toEqual([...Object.keys(op.params), 'cache_max_age'].sort());
    for (const status of op.responses) expect(get.responses[status]).toBeDefined();
    expect(get.responses[429].headers['Retry-After']).toBeDefined();
    expect(get.responses[503].headers['Retry-After']).toBeDefined();
    expect(get.responses[200].content['application/json'].schema.properties.data.allOf[0].$ref).toMatch(/Data$/);
  }
});

test('every account-API route is in the document, on the session cookie or open; only the three reads also on an API key', () => {
  const doc = openApiDocument() as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  expect([...KEY_READABLE].sort()).toEqual(['credits', 'requests', 'usage']);
  for (const route of ACCOUNT_ROUTES) {
    const op = doc.paths[route.path][route.method.toLowerCase()];
    expect(op).toBeDefined();
    const open = ['setPassword', 'signIn', 'signOut'].includes(route.name);
    const byKey = KEY_READABLE.includes(route.name);
    expect(op.security).toEqual(open ? [] : byKey ? [{ session: [] }, { apiKey: [] }, { bearer: [] }] : [{ session: [] }]);
  }
});

test('the routes for agents are in the document: POST /mcp on the API key, GET /llms.txt open', () => {
  const doc = openApiDocument() as any; // eslint-disable-line @typescript-eslint/no-explicit-any
  const mcp = doc.paths[MCP_PATH].post;
  expect(mcp.security).toBeUndefined(); // the document's default: x-api-key or Bearer
  expect(mcp.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/JsonRpcMessage');
  expect(Object.keys(mcp.responses)).toEqual(expect.arrayContaining(['200', '202', '401', '429']));
  expect(mcp.responses[429].headers['Retry-After']).toBeDefined();
  expect(Object.keys(doc.paths[MCP_PATH]).sort()).toEqual(MCP_METHODS.map((m) => m.toLowerCase()).sort());
  expect(doc.paths[LLMS_PATH].get.security).toEqual([]);
  expect(doc.paths[LLMS_PATH].get.responses[200].content['text/plain']).toBeDefined();
});

describe('served by the gateway', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.stop());

  test('GET /v1/openapi.json needs no key and answers the document, its server this deployment (what the reference\'s Try and a generated client call)', async () => {
    const res = await h.call('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toEqual({ ...JSON.parse(renderOpenApi()), servers: [{ url: h.gateway.url, description: 'This deployment' }] });
  });
});
