import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import * as esbuild from 'esbuild';
import { balance, createTeam } from '../../shared/accounting/teams';
import { envName } from '../../shared/runtime/config';
import { ensureTables } from '../../dev/tables';
import { handlerFile, routedOperations } from '../../shared/operations';
import { scenarios } from '../contract/scenarios';
import { FakeUpstream } from '../../dev/upstream/fake';

/**
 * functions/mcp.ts and functions/llms.ts as Lambda runs them: bundled with the stack's esbuild
 * settings, called with REST proxy events. The MCP bundle must hold every operation's entry and no
 * other function (its template import names them), and a tool call must run one, charged as usual.
 */
const ROOT = path.join(__dirname, '..', '..');
const outDir = mkdtempSync(path.join(os.tmpdir(), 'mcp-bundle-'));
const fake = new FakeUpstream();
type Fn = { handler: (e: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult> };

async function bundle(entry: string): Promise<{ fn: Fn; inputs: string[] }> {
  const outfile = path.join(outDir, entry.replace(/[/.]/g, '_'), 'index.js');
  const result = await esbuild.build({ entryPoints: [path.join(ROOT, entry)], bundle: true, platform: 'node', target: 'node22', format: 'cjs', minify: true, outfile, metafile: true, logLevel: 'warning' });
  return { fn: require(outfile) as Fn, inputs: Object.keys(result.metafile.inputs) };
}

let teamId: string;
beforeAll(async () => {
  await ensureTables();
  await fake.start();
  for (const op of routedOperations()) process.env[`UPSTREAM_${envName(op.platform)}_URL`] = fake.url;
  teamId = (await createTeam('mcp-bundle', 10, { usageKey: 'usage-mcp-bundle' })).teamId;
});
afterAll(async () => {
  await fake.stop();
  rmSync(outDir, { recursive: true, force: true });
});

const post = (body: unknown, requestId: string, authorizer: Record<string, string> | null = { teamId, keyId: 'k', principalId: teamId }) =>
  ({
    resource: '/mcp',
    path: '/mcp',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: { requestId, path: '/prod/mcp', ...(authorizer ? { authorizer } : {}) },
  }) as unknown as APIGatewayProxyEvent;

test('the MCP bundle holds every operation entry, answers tools/list, runs a tool through its operation (1 credit), and no monitor tool without the monitors function', async () => {
  const { fn, inputs } = await bundle('functions/mcp.ts');
  expect(inputs.filter((i) => i.startsWith('functions/')).sort()).toEqual([...routedOperations().map(handlerFile), 'functions/mcp.ts'].sort());
  expect(inputs).not.toContain('docs/openapi.json');

  const list = await fn.handler(post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, 'bundle-list'));
  expect(list.statusCode).toBe(200);
  expect(list.headers?.['x-request-id']).toBe('bundle-list');
  expect(JSON.parse(list.body).result.tools).toHaveLength(routedOperations().length + 3 + 3 + 3 + 3); // the account, monitor, webhook and job tools

  // Without MONITORS_FUNCTION (the stack always sets it), the monitor tools say so.
  const monitors = await fn.handler(post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'monitors-list', arguments: {} } }, 'bundle-monitors'));
  expect(JSON.parse(monitors.body).result).toMatchObject({ isError: true, structuredContent: { error: { code: 'NOT_FOUND', message: 'This deployment runs no monitors' } } });

  const s = scenarios['livestream-clip']!;
  s.routes(fake);
  const called = await fn.handler(post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'livestream-clip', arguments: s.query } }, 'bundle-call'));
  expect(called.statusCode).toBe(200);
  const result = JSON.parse(called.body).result;
  expect(result.content[0].text).toMatch(/^livestream-clip: live result/);
  expect(result.structuredContent.meta).toMatchObject({ creditsCharged: 1, cached: false });
  expect(await balance(teamId)).toBe(9);
});

test('the MCP bundle refuses a request without the authorizer context (401), and GET (405)', async () => {
  const { fn } = await bundle('functions/mcp.ts');
  const anonymous = await fn.handler(post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, 'bundle-anon', null));
  expect(anonymous.statusCode).toBe(401);
  expect(JSON.parse(anonymous.body).error).toMatchObject({ code: 'UNAUTHORIZED', requestId: 'bundle-anon' });
  const get = await fn.handler({ ...post(null, 'bundle-get'), httpMethod: 'GET', body: null });
  expect(get.statusCode).toBe(405);
  expect(get.headers?.allow).toBe('POST');
});

test('the llms.txt bundle writes its links with the configured public address, whatever the Host (issue 30.9)', async () => {
  const { fn } = await bundle('functions/llms.ts');
  const event = (headers: Record<string, string>, requestId: string) =>
    ({ path: '/llms.txt', httpMethod: 'GET', headers, requestContext: { requestId, path: '/prod/llms.txt' } }) as unknown as APIGatewayProxyEvent;
  const saved = process.env.PUBLIC_BASE_URL;
  process.env.PUBLIC_BASE_URL = 'https://abc123.execute-api.us-east-1.amazonaws.com/prod';
  try {
    const forms: Record<string, string>[] = [{ Host: 'abc123.execute-api.us-east-1.amazonaws.com', 'X-Forwarded-Proto': 'https' }, { Host: 'evil.example', 'X-Forwarded-Proto': 'http' }, { Host: 'evil.example/"><script>' }];
    for (const headers of forms) {
      const res = await fn.handler(event(headers, 'bundle-llms'));
      expect(res.statusCode).toBe(200);
      expect(res.body).toContain('[MCP server](https://abc123.execute-api.us-east-1.amazonaws.com/prod/mcp)');
      expect(res.body).toContain('(https://abc123.execute-api.us-east-1.amazonaws.com/prod/v1/livestream/clip)');
      expect(res.body).not.toContain('evil');
    }
  } finally {
    if (saved === undefined) delete process.env.PUBLIC_BASE_URL;
    else process.env.PUBLIC_BASE_URL = saved;
  }
});
