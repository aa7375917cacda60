import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { addCredits, balance } from '../../shared/accounting/teams';
import { ledger } from '../../shared/accounting/ledger';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { GATEWAY_MESSAGES } from '../../shared/http/errors';
import { MAX_BATCH, ONE_TOOL_CALL_PER_POST, createMcpHandler } from '../../shared/mcp/http';
import { routedOperations } from '../../shared/operations';
import { parameters } from '../../shared/api/parameter-schema';
import { fixture } from '../../dev/upstream/fake';
import { scenarios } from '../contract/scenarios';
import { type Harness, startHarness, withGateway } from '../support/harness';
import { LogCapture } from '../support/logs';
import { openApiMismatch } from '../support/openapi-check';

const MONITOR_TOOLS = ['monitors-create', 'monitors-list', 'monitors-delete'];
const WEBHOOK_TOOLS = ['webhooks-list', 'webhooks-deliveries', 'webhooks-delivery'];
const JOB_TOOLS = ['jobs-submit', 'jobs-get', 'jobs-deliver'];

/**
 * POST /mcp through the local gateway, driven by the MCP SDK's own client over Streamable HTTP:
 * the key is checked before any MCP work, every routed operation is a tool whose call is charged
 * exactly as the plain HTTP call, errors are tool results with the spec's code, and GET /llms.txt
 * describes it all without a key.
 */
type ToolAnswer = { isError?: boolean; content: { type: string; text: string }[]; structuredContent?: any }; // eslint-disable-line @typescript-eslint/no-explicit-any

let h: Harness;
let key: string;
let teamId: string;
withGateway(100, (g) => void ({ h, key, teamId } = g));

const mcpUrl = () => new URL(`${h.gateway.url}/mcp`);
const clients: Client[] = [];
async function connect(headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl(), { requestInit: { headers } }));
  clients.push(client);
  return client;
}
afterAll(async () => Promise.all(clients.map((c) => c.close())));

const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as ToolAnswer;

/** A raw answer of /mcp, checked against docs/openapi.json like every answer of the gateway tests. */
async function documented(res: Response, method = 'post'): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const body = await res.json();
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => (headers[name] = value));
  expect(openApiMismatch('/mcp', res.status, headers, body, method)).toBeNull();
  return body;
}
const text = (r: ToolAnswer) => r.content.map((c) => c.text).join('\n');

const clip = scenarios['livestream-clip']!;
let client: Client;
beforeAll(async () => {
  client = await connect({ 'x-api-key': key });
});
beforeEach(() => h.fake.reset());

describe('the API key, before any MCP work', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '0' } } };
  const post = (headers: Record<string, string>, body: unknown = initialize) =>
    fetch(mcpUrl(), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });

  test.each([
    ['no key', {}],
    ['a malformed key', { 'x-api-key': 'nope' }],
    ['an unknown key', { authorization: `Bearer ${'A'.repeat(28)}` }],
  ])('%s: 401 in the error envelope', async (_what, headers) => {
    const res = await post(headers);
    expect(res.status).toBe(401);
    expect(await documented(res)).toEqual({ error: { code: 'UNAUTHORIZED', message: GATEWAY_MESSAGES.UNAUTHORIZED, requestId: expect.any(String) } });
  });

  test("the SDK's client fails to connect without a key, with the 401", async () => {
    const anonymous = new Client({ name: 'test', version: '1.0.0' });
    const err = await anonymous.connect(new StreamableHTTPClientTransport(mcpUrl())).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(401);
    await anonymous.close();
  });

  test('with a key (x-api-key or Bearer): a stateless JSON answer, no session id', async () => {
    for (const headers of [{ 'x-api-key': key }, { authorization: `Bearer ${key}` }] as Record<string, string>[]) {
      const res = await post(headers);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('mcp-session-id')).toBeNull();
      const body = await documented(res);
      expect(body.result.serverInfo.name).toBe('social-data-api');
      expect(body.result.capabilities.tools).toBeDefined();
      expect(body.result.instructions).toMatch(/cache_max_age/);
    }
  });

  test('a tools/list without initialize on this container works too (stateless)', async () => {
    const res = await post({ 'x-api-key': key, 'mcp-protocol-version': '2025-06-18' }, { jsonrpc: '2.0', id: 7, method: 'tools/list' });
    expect(res.status).toBe(200);
    expect((await documented(res)).result.tools.length).toBe(routedOperations().length + 3 + MONITOR_TOOLS.length + WEBHOOK_TOOLS.length + JOB_TOOLS.length);
  });

  test('GET and DELETE: 405 with a key, 401 without', async () => {
    for (const method of ['GET', 'DELETE']) {
      const refused = await fetch(mcpUrl(), { method, headers: { 'x-api-key': key, accept: 'text/event-stream' } });
      expect(refused.status).toBe(405);
      expect(refused.headers.get('allow')).toBe('POST');
      await documented(refused, method.toLowerCase());
      const anonymous = await fetch(mcpUrl(), { method });
      expect(anonymous.status).toBe(401);
      await documented(anonymous, method.toLowerCase());
    }
  });
});

describe('tools from the operation table', () => {
  test('one tool per routed operation, plus the account tools, the monitor tools and the job tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...routedOperations().map((o) => o.id), 'account-credits', 'account-usage', 'account-requests', ...MONITOR_TOOLS, ...WEBHOOK_TOOLS, ...JOB_TOOLS].sort());
    for (const t of tools.filter((x) => !x.name.startsWith('monitors-') && x.name !== 'jobs-submit' && x.name !== 'jobs-deliver')) expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    // Submitting a job changes state (and costs credits as its pages run); nothing of it is destroyed.
    expect(tools.find((x) => x.name === 'jobs-submit')!.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true });
    // Delivering again writes the same keys in the customer's bucket: a change, repeatable.
    expect(tools.find((x) => x.name === 'jobs-deliver')!.annotations).toEqual({ readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true });
    const annotations = Object.fromEntries(tools.filter((x) => x.name.startsWith('monitors-')).map((t) => [t.name, t.annotations]));
    expect(annotations).toEqual({
      'monitors-create': { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      'monitors-list': { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      'monitors-delete': { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    });
  });

  test("each operation tool's input schema is the operation's parameters, as the API validates them", async () => {
    const { tools } = await client.listTools();
    for (const op of routedOperations()) {
      const tool = tools.find((t) => t.name === op.id)!;
      const params = parameters(op);
      expect(Object.keys(tool.inputSchema.properties!).sort()).toEqual([...params.map((p) => p.name), 'response_format'].sort());
      for (const p of params) expect(tool.inputSchema.properties![p.name]).toEqual({ ...p.schema, description: p.description });
      expect((tool.inputSchema.required ?? []).sort()).toEqual(params.filter((p) => p.required).map((p) => p.name).sort());
    }
  });
});

describe('a tool call is charged as the HTTP call', () => {
  test('live: 1 credit, a ledger entry under the tool call\'s request id, the full data as structured content', async () => {
    clip.routes(h.fake);
    const before = await balance(teamId);
    const live = await call(client, 'livestream-clip', clip.query);
    expect(live.isError).toBeFalsy();
    const { data, meta } = live.structuredContent;
    expect(meta).toMatchObject({ creditsCharged: 1, cached: false, creditsRemaining: before - 1 });
    expect(data.clip.id).toMatch(/^clip_/);
    expect(await balance(teamId)).toBe(before - 1);
    expect((await ledger(teamId)).find((e) => e.requestId === meta.requestId)).toMatchObject({ operation: 'livestream-clip', credits: 1 });
    expect(text(live)).toMatch(/^livestream-clip: live result; 1 credit charged, \d+ left/);
    expect(text(live)).toContain(`id: ${data.clip.id}`);

    // The same answer as the plain HTTP call of the operation (its own cache hit, so free).
    const http = await h.call('/v1/livestream/clip', { ...clip.query, cache_max_age: '1d' }, { key });
    expect(http.body.data).toEqual(data);
  });

  test('again with cache_max_age: the cached result, 0 credits, no upstream request', async () => {
    clip.routes(h.fake);
    await call(client, 'livestream-clip', clip.query);
    h.fake.reset();
    const before = await balance(teamId);
    const hit = await call(client, 'livestream-clip', { ...clip.query, cache_max_age: '7d' });
    expect(hit.isError).toBeFalsy();
    expect(hit.structuredContent.meta).toMatchObject({ creditsCharged: 0, cached: true, cachedAt: expect.any(String) });
    expect(await balance(teamId)).toBe(before);
    expect(h.fake.requests).toHaveLength(0);
    expect(text(hit)).toMatch(/^livestream-clip: cached result of .*; 0 credits charged/);
  });

  test('an invalid argument: a VALIDATION_ERROR tool error with its details, free', async () => {
    const before = await balance(teamId);
    const bad = await call(client, 'livestream-clip', { url: 'https://evil.example/clip', cache_max_age: '2d', extra: 1 });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'Invalid query parameters', requestId: expect.any(String) });
    expect(bad.structuredContent.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['cache_max_age', 'extra', 'url']);
    expect(text(bad)).toMatch(/^VALIDATION_ERROR: Invalid query parameters\n- /);
    expect(text(bad)).toContain('- url: ');
    expect(await balance(teamId)).toBe(before);
    expect(h.fake.requests).toHaveLength(0);
  });

  test('a missing required argument and an either-or pair: the API\'s own messages', async () => {
    expect((await call(client, 'livestream-clip', {})).structuredContent.error.details).toEqual([{ path: 'url', message: 'Required' }]);
    const both = await call(client, 'microblog-a-user-posts', { handle: 'a.bsky.social', userId: 'did:plc:abcdefghijklmnopqrstuvwx' });
    expect(both.structuredContent.error.details).toEqual([{ path: 'handle', message: 'Give either handle or userId, not both' }]);
  });

  test('numbers and booleans are read as their text, as in a query string', async () => {
    const r = await call(client, 'microblog-b-user-notes', { handle: 'nasa', trim: 7 });
    expect(r.structuredContent.error.details).toEqual([{ path: 'trim', message: 'Must be true or false' }]);
  });

  test('an upstream failure: a tool error with its code and retryAfter, free', async () => {
    clip.routes(h.fake);
    clip.unavailable!.routes!(h.fake);
    const before = await balance(teamId);
    const r = await call(client, 'livestream-clip', clip.query);
    expect(r.isError).toBe(true);
    expect(r.structuredContent.error).toMatchObject({ code: 'PLATFORM_UNAVAILABLE', retryAfter: expect.any(Number) });
    expect(text(r)).toMatch(/^PLATFORM_UNAVAILABLE: .*\nRetry after \d+ s\./);
    expect(await balance(teamId)).toBe(before);
  });

  test('not found: a NOT_FOUND tool error', async () => {
    clip.notFound!.routes!(h.fake);
    const r = await call(client, 'livestream-clip', clip.query);
    expect(r.structuredContent.error.code).toBe('NOT_FOUND');
  });

  test('an empty balance: INSUFFICIENT_CREDITS, free; with a credit, the call is charged it', async () => {
    const poor = await h.team(0);
    const c = await connect({ 'x-api-key': poor.key });
    clip.routes(h.fake);
    const r = await call(c, 'livestream-clip', clip.query);
    expect(r.structuredContent.error.code).toBe('INSUFFICIENT_CREDITS');
    expect(await balance(poor.teamId)).toBe(0);
    await addCredits(poor.teamId, 1);
    expect((await call(c, 'livestream-clip', clip.query)).structuredContent.meta.creditsCharged).toBe(1);
    expect(await balance(poor.teamId)).toBe(0);
  });

  test('an unknown tool and a bad response_format are tool errors, not protocol errors', async () => {
    const unknown = await call(client, 'no-such-tool', {});
    expect(unknown).toMatchObject({ isError: true, structuredContent: { error: { code: 'NOT_FOUND' } } });
    const format = await call(client, 'livestream-clip', { ...clip.query, response_format: 'xml' });
    expect(format.structuredContent.error.details).toEqual([{ path: 'response_format', message: 'Must be one of compact, full' }]);
  });
});

test('logs: each tool call under its own request id, tied to the MCP request; never the key', async () => {
  const logs = new LogCapture().start('DEBUG');
  try {
    clip.routes(h.fake);
    const r = await call(client, 'livestream-clip', { ...clip.query, cache_max_age: '1d' });
    const toolRequestId = r.structuredContent.meta.requestId;
    const records = logs.records();
    const toolCall = records.find((l) => l.message === 'tool call' && l.toolRequestId === toolRequestId);
    expect(toolCall).toMatchObject({ operation: 'mcp', tool: 'livestream-clip', teamId });
    expect(records.some((l) => l.requestId === toolRequestId && l.operation === 'livestream-clip' && l.message === 'request done')).toBe(true);
  } finally {
    logs.stop();
  }
  expect(logs.lines.length).toBeGreaterThan(0);
  for (const line of logs.lines) expect(line).not.toContain(key);
});

describe('answers an agent can read', () => {
  const COMMENTS = '/api/comment/list/';
  const page = () => {
    const raw = fixture('shortvideo/comments-page1.json') as { comments: { cid: string }[]; has_more: number; cursor: number };
    // A page of 40, as the source gives: the fixture's comments over and over, each its own id.
    const comments = Array.from({ length: 40 }, (_, i) => ({ ...raw.comments[i % raw.comments.length]!, cid: `${7300000000000000000 + i}` }));
    return { ...raw, comments, has_more: 1, cursor: 40 };
  };

  test('a page of 40 comments: 10 in the text with the count left out and the next cursor; all 40 in the structured content', async () => {
    const s = scenarios['shortvideo-video-comments']!;
    s.routes(h.fake);
    h.fake.on(COMMENTS, { body: page() });
    const r = await call(client, 'shortvideo-video-comments', s.query);
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.data.comments).toHaveLength(40);
    const t = text(r);
    expect(t).toContain('comments: (40)');
    expect(t).toContain('… 30 more comments not shown');
    expect(t).toContain('Next page: call shortvideo-video-comments again with the same arguments and cursor "40".');
    expect(t).toMatch(/Trimmed for reading \(30 more comments/);
    expect(t.length).toBeLessThan(JSON.stringify(r.structuredContent.data).length / 3);

    // response_format full: the whole envelope as text (here from the cache, for 0 credits).
    const full = await call(client, 'shortvideo-video-comments', { ...s.query, cache_max_age: '1d', response_format: 'full' });
    expect(JSON.parse(text(full))).toEqual(full.structuredContent);
    expect(full.structuredContent.data.comments).toHaveLength(40);
  });
});

describe('account tools (free, the caller\'s own team)', () => {
  test('account-credits: the balance and the latest charges, tool calls included', async () => {
    clip.routes(h.fake);
    const live = await call(client, 'livestream-clip', clip.query);
    const before = await balance(teamId);
    const r = await call(client, 'account-credits', {});
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.data.balance).toBe(before);
    expect(r.structuredContent.data.charges[0]).toMatchObject({ requestId: live.structuredContent.meta.requestId, operation: 'livestream-clip', credits: 1 });
    expect(r.structuredContent.meta.creditsCharged).toBe(0);
    expect(await balance(teamId)).toBe(before);
    expect(text(r)).toContain(`balance: ${before}`);
  });

  test('account-usage: per day, live calls and cache hits', async () => {
    const r = await call(client, 'account-usage', { days: 3 });
    expect(r.structuredContent.data.days).toHaveLength(3);
    expect(r.structuredContent.data.byOperation['livestream-clip']).toMatchObject({ requests: expect.any(Number), hits: expect.any(Number) });
    expect(r.structuredContent.data.totals.live).toBeGreaterThan(0);
  });

  test('account-requests: the tool calls of the last 7 days, newest first, errors included; filtered by status; paged', async () => {
    const team = await h.team(5);
    const c = await connect({ 'x-api-key': team.key });
    clip.routes(h.fake);
    const live = await call(c, 'livestream-clip', clip.query);
    const invalid = await call(c, 'livestream-clip', { url: 'not a clip' });
    expect(invalid.structuredContent.error.code).toBe('VALIDATION_ERROR');
    const r = await call(c, 'account-requests', {});
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent.meta.creditsCharged).toBe(0);
    expect(r.structuredContent.data.requests).toEqual([
      expect.objectContaining({ operation: 'livestream-clip', status: 422, code: 'VALIDATION_ERROR', credits: 0, requestId: invalid.structuredContent.error.requestId, keyId: team.keyId, keyName: 'test' }),
      expect.objectContaining({ operation: 'livestream-clip', status: 200, code: null, credits: 1, cached: false, requestId: live.structuredContent.meta.requestId }),
    ]);
    const errors = await call(c, 'account-requests', { status: 'error' });
    expect(errors.structuredContent.data.requests.map((x: { status: number }) => x.status)).toEqual([422]);
    const first = await call(c, 'account-requests', { limit: 1 });
    expect(first.structuredContent.data.requests).toHaveLength(1);
    const next = await call(c, 'account-requests', { limit: 1, cursor: first.structuredContent.data.cursor });
    expect(next.structuredContent.data.requests[0].requestId).toBe(live.structuredContent.meta.requestId);
    expect(next.structuredContent.data.cursor).toBeNull();
    const usage = await call(c, 'account-usage', { days: 1 });
    expect(usage.structuredContent.data.totals).toMatchObject({ requests: 2, live: 1, errorCount: 1, byCode: { VALIDATION_ERROR: 1 } });
    expect(await balance(team.teamId)).toBe(4);
  });

  test('bad arguments: VALIDATION_ERROR with details', async () => {
    expect((await call(client, 'account-usage', { days: 0 })).structuredContent.error.details).toEqual([{ path: 'days', message: 'A whole number from 1 to 90' }]);
    expect((await call(client, 'account-requests', { status: 'bad' })).structuredContent.error.code).toBe('VALIDATION_ERROR');
    expect((await call(client, 'account-requests', { operation: 'nope' })).structuredContent.error.details).toEqual([{ path: 'operation', message: 'Not an operation id of this API' }]);
    expect((await call(client, 'account-requests', { days: 3 })).structuredContent.error.details).toEqual([{ path: 'days', message: 'Unknown argument; this tool takes operation, status, limit, cursor' }]);
    expect((await call(client, 'account-credits', { days: 3 })).structuredContent.error.details).toEqual([{ path: 'days', message: 'Unknown argument; this tool takes none' }]);
  });

  test("another team's tools see another balance", async () => {
    const other = await h.team(7);
    const c = await connect({ authorization: `Bearer ${other.key}` });
    expect((await call(c, 'account-credits', {})).structuredContent.data).toEqual({ balance: 7, charges: [] });
  });
});

describe('monitor tools (free, the caller\'s own team, through the monitors API)', () => {
  const receiver = http.createServer((req, res) => void req.resume().on('end', () => res.writeHead(204).end()));
  let hook = '';
  beforeAll(async () => {
    process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    delete process.env.WEBHOOK_ALLOW_LOOPBACK;
    await new Promise((r) => receiver.close(r));
  });
  const api = async (method: string, path: string, k: string) => (await fetch(`${h.gateway.url}${path}`, { method, headers: { 'x-api-key': k } })).json();

  test('monitors-create shows the signing secret once, labelled; monitors-list shows the monitor without it; monitors-delete removes it; 0 credits', async () => {
    const team = await h.team(3);
    const c = await connect({ authorization: `Bearer ${team.key}` });
    const created = await call(c, 'monitors-create', { operation: 'microblog-a-user-posts', params: { handle: 'someone.bsky.social' }, intervalSeconds: 300, webhookUrl: hook });
    expect(created.isError).toBeFalsy();
    const { monitor } = created.structuredContent.data;
    expect(monitor).toMatchObject({ id: expect.stringMatching(/^mon_/), operation: 'microblog-a-user-posts', params: { handle: 'someone.bsky.social' }, intervalSeconds: 300, status: 'active', secret: expect.stringMatching(/^whsec_/) });
    expect(created.structuredContent.meta).toEqual({ requestId: expect.any(String), creditsCharged: 0 });
    const t = text(created);
    expect(t).toMatch(/^monitors-create: result; 0 credits charged \(request [^)]+\)\.\nSIGNING SECRET \(shown this once; it cannot be read again\): whsec_\S+\n/);
    expect(t.split(monitor.secret)).toHaveLength(2); // written once, whole
    expect(t).toContain(`id: ${monitor.id}`);

    // The caller's team, as over HTTP with the same key.
    expect((await api('GET', `/v1/monitors/${monitor.id}`, team.key)).data.monitor).toMatchObject({ id: monitor.id, status: 'active' });
    const listed = await call(c, 'monitors-list', {});
    expect(listed.structuredContent.data.monitors.map((m: { id: string }) => m.id)).toEqual([monitor.id]);
    expect(listed.structuredContent.data.monitors[0]).not.toHaveProperty('secret');
    expect(text(listed)).not.toContain('whsec_');
    expect(text(listed)).not.toContain('SIGNING SECRET');

    const deleted = await call(c, 'monitors-delete', { id: monitor.id });
    expect(deleted.isError).toBeFalsy();
    expect(deleted.structuredContent.data).toEqual({ deleted: true, id: monitor.id });
    expect((await call(c, 'monitors-list', {})).structuredContent.data.monitors).toEqual([]);
    expect(await balance(team.teamId)).toBe(3);
  });

  test("another team's monitor is NOT_FOUND; bad arguments are VALIDATION_ERROR with details", async () => {
    const [a, b] = [await h.team(1), await h.team(1)];
    const ours = await connect({ 'x-api-key': a.key });
    const theirs = await connect({ 'x-api-key': b.key });
    const { id } = (await call(ours, 'monitors-create', { operation: 'shortvideo-user-live', params: { handle: 'someone' }, intervalSeconds: 60, webhookUrl: hook })).structuredContent.data.monitor;
    const refused = await call(theirs, 'monitors-delete', { id });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent.error).toMatchObject({ code: 'NOT_FOUND' });
    expect(text(refused)).toMatch(/^NOT_FOUND: /);
    expect((await call(theirs, 'monitors-list', {})).structuredContent.data.monitors).toEqual([]);
    expect((await call(ours, 'monitors-list', {})).structuredContent.data.monitors.map((m: { id: string }) => m.id)).toEqual([id]);

    const invalid = await call(ours, 'monitors-create', { operation: 'microblog-a-user-posts', params: {}, intervalSeconds: 300, webhookUrl: hook });
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'params.handle', message: expect.any(String) }] });
    expect(text(invalid)).toContain('- params.handle: ');
    const badUrl = await call(ours, 'monitors-create', { operation: 'shortvideo-user-live', params: { handle: 'someone' }, intervalSeconds: 300, webhookUrl: 'http://10.0.0.1/hook' });
    expect(badUrl.structuredContent.error.details).toEqual([{ path: 'webhookUrl', message: expect.any(String) }]);
    expect((await call(ours, 'monitors-create', { operation: 'nope', intervalSeconds: 300, webhookUrl: hook })).structuredContent.error.details).toEqual([{ path: 'operation', message: expect.stringContaining('microblog-a-user-posts') }]);
    expect((await call(ours, 'monitors-delete', {})).structuredContent.error.details).toEqual([{ path: 'id', message: 'Required: the monitor id (mon_…)' }]);
    expect((await call(ours, 'monitors-list', { id })).structuredContent.error.details).toEqual([{ path: 'id', message: 'Unknown argument; this tool takes none' }]);
    expect((await call(ours, 'monitors-create', { status: 'paused' })).structuredContent.error.details).toEqual([{ path: 'status', message: 'Unknown argument; this tool takes operation, params, intervalSeconds, webhookUrl' }]);
    expect((await call(ours, 'monitors-delete', { id: '../../v1/monitors' })).structuredContent.error.code).toBe('NOT_FOUND');
    expect((await call(ours, 'monitors-delete', { id })).isError).toBeFalsy();
  });

  test('the monitors handler gets the MCP request\'s key header and nothing else of it; a deployment without monitors answers NOT_FOUND', async () => {
    const seen: APIGatewayProxyEvent[] = [];
    const post = (body: unknown) =>
      ({
        httpMethod: 'POST',
        path: '/mcp',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', 'X-Api-Key': key, cookie: 'sdapi_session=abc', 'x-forwarded-for': '203.0.113.9' },
        body: JSON.stringify(body),
        isBase64Encoded: false,
        stageVariables: null,
        requestContext: { requestId: 'mcp-request', path: '/prod/mcp', authorizer: { teamId: 'forged', keyId: 'k', principalId: 'p', balanceHint: '5' } },
      }) as unknown as APIGatewayProxyEvent;
    const toolCall = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'monitors-delete', arguments: { id: 'mon_1' } } };
    const withMonitors = createMcpHandler(async () => { throw new Error('no operation here'); }, async (event) => {
      seen.push(event);
      return { statusCode: 404, headers: {}, body: JSON.stringify({ error: { code: 'NOT_FOUND', message: 'Your team has no monitor with this id', requestId: event.requestContext.requestId } }) };
    });
    const answer = JSON.parse((await withMonitors(post(toolCall))).body);
    expect(answer.result.structuredContent.error).toMatchObject({ code: 'NOT_FOUND' });
    expect(seen).toHaveLength(1);
    const [event] = seen;
    expect({ method: event!.httpMethod, path: event!.path, resource: event!.resource, pathParameters: event!.pathParameters, headers: event!.headers, body: event!.body }).toEqual({
      method: 'DELETE',
      path: '/v1/monitors/mon_1',
      resource: '/v1/monitors/{monitorId}',
      pathParameters: { monitorId: 'mon_1' },
      headers: { 'X-Api-Key': key },
      body: null,
    });
    expect(event!.requestContext).toMatchObject({ path: '/prod/v1/monitors/mon_1', httpMethod: 'DELETE', resourcePath: '/v1/monitors/{monitorId}' });
    expect(event!.requestContext.authorizer).toBeUndefined();
    expect(event!.requestContext.requestId).not.toBe('mcp-request');

    const without = createMcpHandler(async () => { throw new Error('no operation here'); });
    const none = JSON.parse((await without(post(toolCall))).body);
    expect(none.result.isError).toBe(true);
    expect(none.result.structuredContent.error).toMatchObject({ code: 'NOT_FOUND', message: 'This deployment runs no monitors' });
  });

  test("jobs-submit with webhook: the job's signing secret on lines of its own, once; jobs-get shows the webhook without it", async () => {
    const team = await h.team(3);
    const c = await connect({ authorization: `Bearer ${team.key}` });
    const made = await call(c, 'jobs-submit', { operation: 'microblog-a-user-posts', inputs: ['someone.bsky.social'], webhook: hook });
    expect(made.isError).toBeFalsy();
    const { job } = made.structuredContent.data;
    expect(job.webhook).toMatchObject({ url: hook, events: ['job.succeeded', 'job.failed', 'job.paused'], secret: expect.stringMatching(/^whsec_/) });
    const t = text(made);
    expect(t).toMatch(/\nSIGNING SECRET \(shown this once; it cannot be read again\): whsec_\S+\n.*submit a new job\./);
    expect(t.split(job.webhook.secret)).toHaveLength(2); // written once, whole
    const got = await call(c, 'jobs-get', { id: job.id });
    expect(got.structuredContent.data.job.webhook).toMatchObject({ url: hook });
    expect(JSON.stringify(got)).not.toContain(job.webhook.secret);
    // Not public https (loopback allowed here for the tests only): the spec's 422, as over HTTP.
    const refused = await call(c, 'jobs-submit', { operation: 'microblog-a-user-posts', inputs: ['someone.bsky.social'], webhook: 'https://10.0.0.1/hook' });
    expect(refused.structuredContent.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'webhook' }] });
    // The job runs on in the background: let it end here, so that its upstream requests are not
    // counted by a later test of this file (those that prove a refusal made none).
    for (let state = job.state; ['queued', 'running'].includes(state); ) {
      await new Promise((r) => setTimeout(r, 50));
      state = (await call(c, 'jobs-get', { id: job.id })).structuredContent.data.job.state;
    }
  });
});

describe('GET /llms.txt, without a key', () => {
  test('lists every routed operation with its parameters, and the MCP URL', async () => {
    const res = await fetch(`${h.gateway.url}/llms.txt`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const body = await res.text();
    expect(body).toMatch(/^# Social data API\n\n> /);
    expect(body).toContain(`[MCP server](${h.gateway.url}/mcp)`);
    expect(body).toContain(`(${h.gateway.url}/v1/openapi.json)`);
    for (const op of routedOperations()) {
      expect(body).toContain(`[GET ${op.path}](${h.gateway.url}${op.path}) (tool \`${op.id}\`): ${op.summary}`);
      for (const p of parameters(op)) expect(body).toContain(`  - \`${p.name}\`${p.required ? ' (required)' : ''}: ${p.description}`);
    }
  });
});

describe('one tool call per POST, and no balance hint a tool call did not read (issue 30.2)', () => {
  const toolCall = (id: number, name = 'livestream-clip', args: Record<string, unknown> = clip.query) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  const post = (body: unknown) =>
    fetch(mcpUrl(), {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' },
      body: JSON.stringify(body),
    });

  test('a batch of several tool calls is refused before any runs: no scrape, no credit, no account read', async () => {
    clip.routes(h.fake);
    const before = await balance(teamId);
    for (const batch of [
      [toolCall(1), toolCall(2), toolCall(3)],
      [toolCall(1, 'account-credits', {}), toolCall(2, 'account-usage', {})],
      Array.from({ length: MAX_BATCH + 1 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' })),
    ]) {
      const res = await post(batch);
      expect(res.status).toBe(400);
      expect(await documented(res)).toEqual({ jsonrpc: '2.0', error: { code: -32600, message: ONE_TOOL_CALL_PER_POST }, id: null });
    }
    expect(h.fake.requests).toHaveLength(0);
    expect(await balance(teamId)).toBe(before);
  });

  test('a batch with one tool call runs it, charged once', async () => {
    clip.routes(h.fake);
    const before = await balance(teamId);
    const res = await post([toolCall(1), { jsonrpc: '2.0', id: 2, method: 'tools/list' }]);
    expect(res.status).toBe(200);
    const answers = (await res.json()) as { id: number; result: ToolAnswer }[];
    expect(answers.find((a) => a.id === 1)!.result.structuredContent.meta).toMatchObject({ creditsCharged: 1 });
    expect(await balance(teamId)).toBe(before - 1);
  });

  test("a tool call keeps only the caller's team and key of the authorizer's context: a team without credit causes no upstream request, whatever hint the POST carried", async () => {
    const broke = await h.team(0);
    clip.routes(h.fake);
    const seen: APIGatewayProxyEvent[] = [];
    const handler = createMcpHandler(async (op, event) => {
      seen.push(event);
      return ((await import(`../../functions/${op.id}`)) as { handler: (e: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult> }).handler(event);
    });
    const res = await handler({
      httpMethod: 'POST',
      path: '/mcp',
      resource: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      body: JSON.stringify(toolCall(1)),
      isBase64Encoded: false,
      // What the authorizer said of the POST: a balance hint high enough to scrape ahead, a 422 recorded ahead.
      requestContext: { requestId: 'post-1', path: '/prod/mcp', identity: { sourceIp: '198.51.100.1' }, authorizer: { teamId: broke.teamId, keyId: broke.keyId, principalId: broke.teamId, creditsHint: 1000, recorded: 'VALIDATION_ERROR', recordedAt: 1, outcomeAt: 1 } },
    } as unknown as APIGatewayProxyEvent);
    expect(seen.map((e) => e.requestContext.authorizer)).toEqual([{ teamId: broke.teamId, keyId: broke.keyId, principalId: broke.teamId }]);
    const answer = JSON.parse(res.body) as { result: ToolAnswer };
    expect(answer.result.structuredContent.error.code).toBe('INSUFFICIENT_CREDITS');
    expect(h.fake.requests).toHaveLength(0);
    expect(await balance(broke.teamId)).toBe(0);
  });
});

describe('GET /llms.txt links from the configured address, never the request (issue 30.9)', () => {
  /** A GET with the Host and X-Forwarded-* headers a caller (or a poisoning attempt) chooses. */
  const get = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; body: string; cacheControl?: string }>((resolve, reject) => {
      const u = new URL(h.gateway.url);
      const req = http.request({ host: u.hostname, port: u.port, path, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body, cacheControl: res.headers['cache-control'] }));
      });
      req.on('error', reject);
      req.end();
    });

  test('through the gateway: a forged Host and X-Forwarded-Proto change no link', async () => {
    const res = await get('/llms.txt', { host: 'attacker.example', 'x-forwarded-proto': 'http', 'x-forwarded-host': 'attacker.example' });
    expect(res.status).toBe(200);
    expect(res.cacheControl).toMatch(/public/);
    expect(res.body).not.toContain('attacker');
    expect(res.body).toContain(`[MCP server](${h.gateway.url}/mcp)`);
  });

  test('deployed: PUBLIC_BASE_URL (the stage URL, or context publicUrl), else relative links', async () => {
    const { llmsHandler } = await import('../../shared/public/llms-txt');
    const event = (headers: Record<string, string>) =>
      ({ httpMethod: 'GET', path: '/llms.txt', resource: '/llms.txt', headers, multiValueHeaders: {}, queryStringParameters: null, body: null, isBase64Encoded: false, requestContext: { requestId: 'r', path: '/prod/llms.txt' } }) as never;
    const saved = process.env.PUBLIC_BASE_URL;
    try {
      process.env.PUBLIC_BASE_URL = 'https://api.example.com/prod/';
      const forged = await llmsHandler(event({ Host: 'attacker.example', 'X-Forwarded-Proto': 'http' }));
      expect(forged.body).not.toContain('attacker');
      expect(forged.body).toContain('[MCP server](https://api.example.com/prod/mcp)');
      delete process.env.PUBLIC_BASE_URL;
      const unset = await llmsHandler(event({ Host: 'attacker.example' }));
      expect(unset.body).not.toContain('attacker');
      expect(unset.body).toContain('[MCP server](/mcp)');
    } finally {
      if (saved === undefined) delete process.env.PUBLIC_BASE_URL;
      else process.env.PUBLIC_BASE_URL = saved;
    }
  });
});

describe('the same rate limit as the operations', () => {
  let limited: Harness;
  beforeAll(async () => {
    limited = await startHarness({ burst: 3, ratePerMinute: 1 });
  });
  afterAll(async () => limited?.stop());

  test('over the team\'s budget, POST /mcp is 429 RATE_LIMITED with Retry-After, as a GET would be', async () => {
    const { key: k } = await limited.team(10);
    const post = () =>
      fetch(`${limited.gateway.url}/mcp`, {
        method: 'POST',
        headers: { 'x-api-key': k, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    for (let i = 0; i < 3; i++) {
      const ok = await post();
      expect(ok.status).toBe(200);
      // Read to the end: an unread body holds fetch's connection open after the file ends, which kept
      // the jest worker alive ("A worker process has failed to exit gracefully").
      await ok.text();
    }
    const res = await post();
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await documented(res)).error.code).toBe('RATE_LIMITED');
    // The operations share the bucket.
    expect((await limited.call('/v1/livestream/clip', clip.query, { key: k })).status).toBe(429);
  });
});
