import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { balance } from '../../../shared/accounting/teams';
import { routedOperations } from '../../../shared/operations';
import { scenarios } from '../../contract/scenarios';
import { startHarness, type Harness } from '../../support/harness';
import { stageProxy, startServer, type TestServer } from './servers';

/**
 * `npm run mcp` driven by the SDK's own client over stdio, against the local gateway and the fake
 * upstream, reached as in AWS: under a stage path (`/prod`, the stack's ApiUrl output); the same
 * tools and answers as POST /mcp.
 */
const ROOT = path.join(__dirname, '..', '..', '..');
const SERVER = [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(ROOT, 'mcp', 'server.ts')];
let h: Harness;
let stage: TestServer;
let client: Client;
let key: string;
let teamId: string;
beforeAll(async () => {
  h = await startHarness();
  stage = await stageProxy(h.gateway.url);
  ({ key, teamId } = await h.team(100));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: SERVER,
    env: { ...(process.env as Record<string, string>), SOCIAL_DATA_API_URL: `${stage.url}/prod`, SOCIAL_DATA_API_KEY: key },
    stderr: 'pipe',
  });
  client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await stage?.close();
  await h?.stop();
});

type ToolAnswer = { isError?: boolean; content: { text: string }[]; structuredContent?: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolAnswer;

test('one tool per live operation, the account tools and the monitor tools, with input schemas from the table: the same list as POST /mcp', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual([...routedOperations().map((o) => o.id), 'account-credits', 'account-usage', 'account-requests', 'monitors-create', 'monitors-list', 'monitors-delete', 'webhooks-list', 'webhooks-deliveries', 'webhooks-delivery', 'jobs-submit', 'jobs-get', 'jobs-deliver'].sort());
  const clip = tools.find((t) => t.name === 'livestream-clip')!;
  expect(clip.inputSchema).toMatchObject({ type: 'object', required: ['url'], properties: { url: { type: 'string' }, cache_max_age: { enum: ['1d', '3d', '7d', '14d', '30d'] } } });

  const overHttp = new Client({ name: 'test', version: '1.0.0' });
  await overHttp.connect(new StreamableHTTPClientTransport(new URL(`${h.gateway.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
  expect((await overHttp.listTools()).tools).toEqual(tools);
  await overHttp.close();
});

test('a call returns the envelope as structured content and a compact text; it is charged 1 credit, 0 from the cache', async () => {
  const s = scenarios['livestream-clip']!;
  h.fake.reset();
  s.routes(h.fake);
  const before = await balance(teamId);
  const result = await call('livestream-clip', s.query);
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent.data.clip.id).toMatch(/^clip_/);
  expect(result.structuredContent.meta).toMatchObject({ creditsCharged: 1, cached: false });
  expect(result.content[0]!.text).toMatch(/^livestream-clip: live result; 1 credit charged/);
  expect(result.content[0]!.text).toContain(`id: ${result.structuredContent.data.clip.id}`);
  expect(await balance(teamId)).toBe(before - 1);

  const hit = await call('livestream-clip', { ...s.query, cache_max_age: '1d' });
  expect(hit.structuredContent.meta).toMatchObject({ creditsCharged: 0, cached: true });
  expect(hit.structuredContent.data).toEqual(result.structuredContent.data);
  expect(await balance(teamId)).toBe(before - 1);
});

test("an API error is a tool error with the spec's code", async () => {
  const result = await call('livestream-clip', { url: 'https://evil.example/clip' });
  expect(result.isError).toBe(true);
  expect(result.content[0]!.text).toMatch(/^VALIDATION_ERROR: /);
  expect(result.structuredContent.error).toMatchObject({ code: 'VALIDATION_ERROR', requestId: expect.any(String), details: [{ path: 'url', message: expect.any(String) }] });
});

test("the account tools answer through the API's /mcp endpoint, with the same key", async () => {
  const result = await call('account-credits', {});
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent.data.balance).toBe(await balance(teamId));
  expect(result.structuredContent.data.charges[0]).toMatchObject({ operation: 'livestream-clip', credits: 1 });
  expect(result.content[0]!.text).toMatch(/^account-credits: result; 0 credits charged/);
});

test('the stdio server\'s account-requests: the history of the same team, the tool calls above included', async () => {
  const result = await call('account-requests', { status: '200' });
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent.data.requests.length).toBeGreaterThan(0);
  expect(result.structuredContent.data.requests.every((r: { status: number; operation: string }) => r.status === 200 && r.operation === 'livestream-clip')).toBe(true);
});

test("the monitor tools answer through the API's /mcp endpoint, with the same key and JSON arguments: create (the secret once), list, delete", async () => {
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  const receiver = await startServer((_req, res) => void res.writeHead(204).end());
  try {
    const created = await call('monitors-create', { operation: 'citygame-daily', params: {}, intervalSeconds: 3600, webhookUrl: `${receiver.url}/hook` });
    expect(created.isError).toBeFalsy();
    const { id, secret } = created.structuredContent.data.monitor;
    expect(secret).toMatch(/^whsec_/);
    expect(created.content[0]!.text).toContain(`SIGNING SECRET (shown this once; it cannot be read again): ${secret}`);
    expect((await call('monitors-list', {})).structuredContent.data.monitors.map((m: { id: string }) => m.id)).toEqual([id]);
    const invalid = await call('monitors-create', { operation: 'citygame-daily', intervalSeconds: 5, webhookUrl: `${receiver.url}/hook` });
    expect(invalid.structuredContent.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'intervalSeconds' }] });
    expect((await call('monitors-delete', { id })).structuredContent.data).toEqual({ deleted: true, id });
    expect((await call('monitors-delete', { id })).structuredContent.error.code).toBe('NOT_FOUND');
  } finally {
    delete process.env.WEBHOOK_ALLOW_LOOPBACK;
    await receiver.close();
  }
});

test('no API URL, or a plain-http one off this machine: the server refuses to start (no http default for the key)', async () => {
  const { spawnSync } = await import('node:child_process');
  const env: Record<string, string> = { ...(process.env as Record<string, string>), SOCIAL_DATA_API_KEY: 'A'.repeat(28) };
  delete env.SOCIAL_DATA_API_URL;
  for (const [extra, message] of [
    [{}, /Set SOCIAL_DATA_API_KEY and SOCIAL_DATA_API_URL/],
    [{ SOCIAL_DATA_API_URL: 'http://api.example.com/prod' }, /use https:\/\/api\.example\.com\/prod/],
  ] as const) {
    const run = spawnSync(process.execPath, SERVER, { env: { ...env, ...extra }, input: '', encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
  }
}, 60_000);
