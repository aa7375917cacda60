import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { MONITOR_ROUTES } from '../../shared/api/monitor-routes';
import { openApiDocument } from '../../scripts/openapi';
import { type Harness, startHarness } from '../support/harness';
import { openApiMismatch } from '../support/openapi-check';

/**
 * The /v1/monitors routes in the OpenAPI document: every route of MONITOR_ROUTES is there, on the
 * API key or the dashboard session, and real answers of the local API, success and errors, match
 * the documented schema of their route and status (docs/openapi.json, as the harness checks the
 * operations' answers).
 */
type Route = (typeof MONITOR_ROUTES)[number];
const doc = openApiDocument() as any; // eslint-disable-line @typescript-eslint/no-explicit-any

test('every MONITOR_ROUTES route is in the document, on the API key or the session, with its errors in the spec shape', () => {
  const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .filter(([path]) => path.startsWith('/v1/monitors'))
    .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
  expect(documented.sort()).toEqual(MONITOR_ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  for (const route of MONITOR_ROUTES) {
    const op = doc.paths[route.path][route.method.toLowerCase()];
    expect(op.security).toEqual([{ apiKey: [] }, { bearer: [] }, { session: [] }]);
    expect(op.tags).toEqual(['monitors']);
    for (const status of ['400', '401', '429', '503']) expect(op.responses[status].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
    if (route.path.includes('{monitorId}')) expect(op.responses['404']).toBeDefined();
    expect(op.responses['429'].headers['Retry-After']).toBeDefined();
    expect((op.parameters ?? []).map((p: { name: string }) => p.name)).toEqual([...route.path.matchAll(/\{(\w+)\}/g)].map(([, n]) => n));
  }
  const create = doc.paths['/v1/monitors'].post.requestBody.content['application/json'].schema;
  expect(create.properties.operation.enum).toContain('microblog-a-user-posts');
  expect(create.properties.intervalSeconds).toMatchObject({ type: 'integer', minimum: 60, maximum: 86_400 });
  expect(create.properties.webhookUrl.format).toBe('uri');
  expect(Object.keys(doc.paths['/v1/monitors/{monitorId}'].patch.requestBody.content['application/json'].schema.properties).sort()).toEqual(['intervalSeconds', 'status', 'webhookUrl']);
});

describe('real answers of the local API match the document', () => {
  let h: Harness;
  let key: string;
  const receiver = http.createServer((req, res) => void req.resume().on('end', () => res.writeHead(204).end()));
  let hook = '';
  /** Route name -> the statuses whose answers were checked. */
  const seen = new Map<string, Set<number>>();

  beforeAll(async () => {
    process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
    h = await startHarness();
    ({ key } = await h.team(10));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    delete process.env.WEBHOOK_ALLOW_LOOPBACK;
    await new Promise((r) => receiver.close(r));
    await h?.stop();
  });

  /** One request of `route` (its path parameters from `ids`), its answer checked against the document. */
  async function call(name: Route['name'], ids: string[] = [], body?: unknown, headers: Record<string, string> = { 'x-api-key': key }) {
    const route = MONITOR_ROUTES.find((r) => r.name === name)!;
    let i = 0;
    const path = route.path.replace(/\{\w+\}/g, () => encodeURIComponent(ids[i++]!));
    const res = await fetch(h.gateway.url + path, {
      method: route.method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    const json = JSON.parse(text);
    const out: Record<string, string> = {};
    res.headers.forEach((value, n) => (out[n] = value));
    expect(openApiMismatch(route.path, res.status, out, json, route.method.toLowerCase())).toBeNull();
    (seen.get(name) ?? seen.set(name, new Set()).get(name)!).add(res.status);
    return { status: res.status, body: json };
  }

  test('every route, its success and its errors', async () => {
    const created = await call('create', [], { operation: 'microblog-a-user-posts', params: { handle: 'someone.bsky.social' }, intervalSeconds: 300, webhookUrl: hook });
    expect(created.status).toBe(201);
    const { id, secret } = created.body.data.monitor;
    expect(secret).toMatch(/^whsec_/);
    expect((await call('list')).body.data.monitors.map((m: { id: string }) => m.id)).toContain(id);
    expect((await call('get', [id])).body.data.monitor).not.toHaveProperty('secret');
    expect((await call('update', [id], { status: 'paused' })).body.data.monitor).toMatchObject({ status: 'paused', pausedReason: 'by_request', nextPollAt: null });
    expect((await call('update', [id], { status: 'active', intervalSeconds: 600 })).body.data.monitor).toMatchObject({ status: 'active', intervalSeconds: 600 });
    expect((await call('rotateSecret', [id])).body.data.monitor.secret).not.toBe(secret);
    const tested = await call('test', [id]);
    expect(tested.status).toBe(202);
    // Queued: the delivery worker sends it.
    expect(tested.body.data.delivery).toMatchObject({ type: 'monitor.test', state: 'pending', lastStatus: null });
    const deliveries = (await call('deliveries', [id])).body.data.deliveries;
    expect(deliveries.map((d: { type: string }) => d.type)).toEqual(['monitor.test']);
    expect((await call('delivery', [id, deliveries[0].eventId])).body.data.delivery).toMatchObject({ eventId: deliveries[0].eventId, recentAttempts: [] });
    expect((await call('redeliver', [id, deliveries[0].eventId])).status).toBe(202);
    // A second test within 5 s: 429 with Retry-After.
    expect((await call('test', [id])).status).toBe(429);

    // Errors, in the spec's shape and as documented.
    const other = await h.team(1);
    expect((await call('get', [id], undefined, { 'x-api-key': other.key })).status).toBe(404);
    expect((await call('redeliver', [id, 'evt_nope'])).status).toBe(404);
    expect((await call('delivery', [id, 'evt_nope'])).status).toBe(404);
    expect((await call('list', [], undefined, {})).status).toBe(401);
    const invalid = await call('create', [], { operation: 'microblog-a-user-posts', params: {}, intervalSeconds: 300, webhookUrl: hook });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.details.map((d: { path: string }) => d.path)).toEqual(['params.handle']);
    expect((await call('update', [id], { intervalSeconds: 5 })).status).toBe(422);
    expect((await call('create', [], '[1, 2]')).status).toBe(400);

    expect((await call('transfer', [id])).body.data.monitor).toMatchObject({ id });
    expect((await call('remove', [id])).body.data).toEqual({ deleted: true, id });
    expect((await call('remove', [id])).status).toBe(404);
    expect([...seen.keys()].sort()).toEqual(MONITOR_ROUTES.map((r) => r.name).sort());
  });
});
