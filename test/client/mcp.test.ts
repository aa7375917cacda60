import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { routedOperations } from '../../shared/operations';
import { scenarios } from '../contract/scenarios';
import { startHarness, type Harness } from '../support/harness';
import { stageProxy, type TestServer } from './servers';

/**
 * `npm run mcp` driven by the SDK's own client over stdio, against the local gateway and the fake
 * upstream, reached as in AWS: under a stage path (`/prod`, the stack's ApiUrl output).
 */
const ROOT = path.join(__dirname, '..', '..');
const SERVER = [path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(ROOT, 'mcp', 'server.ts')];
let h: Harness;
let stage: TestServer;
let client: Client;
beforeAll(async () => {
  h = await startHarness();
  stage = await stageProxy(h.gateway.url);
  const { key } = await h.team(100);
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

test('one tool per live operation, with input schemas from the table', async () => {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(routedOperations().map((o) => o.id).sort());
  const clip = tools.find((t) => t.name === 'livestream-clip')!;
  expect(clip.inputSchema).toMatchObject({ type: 'object', required: ['url'], properties: { url: { type: 'string' }, cache_max_age: { enum: ['1d', '3d', '7d', '14d', '30d'] } } });
});

test('a call returns the data object', async () => {
  const s = scenarios['livestream-clip']!;
  h.fake.reset();
  s.routes(h.fake);
  const result = await client.callTool({ name: 'livestream-clip', arguments: s.query });
  expect(result.isError).toBeFalsy();
  const data = JSON.parse((result.content as { text: string }[])[0]!.text);
  expect(data.clip.id).toMatch(/^clip_/);
  expect(result.structuredContent).toEqual(data);
});

test("an API error is a tool error with the spec's code", async () => {
  const result = await client.callTool({ name: 'livestream-clip', arguments: { url: 'https://evil.example/clip' } });
  expect(result.isError).toBe(true);
  expect((result.content as { text: string }[])[0]!.text).toMatch(/^VALIDATION_ERROR: /);
  expect(result.structuredContent).toMatchObject({ code: 'VALIDATION_ERROR', requestId: expect.any(String) });
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
