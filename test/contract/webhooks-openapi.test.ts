import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WEBHOOK_ROUTES } from '../../shared/api/webhook-routes';
import { CATALOGUE } from '../../shared/webhooks/catalogue';
import { openApiDocument } from '../../scripts/openapi';
import { type Harness, startHarness } from '../support/harness';
import { openApiMismatch } from '../support/openapi-check';

/**
 * The /v1/webhooks routes and the team events in the OpenAPI document: every route of
 * WEBHOOK_ROUTES is there on the key or the session; every catalogue type is a `webhooks` entry with
 * its data schema; and real answers of the local API, success and errors, match the documented
 * schema of their route and status.
 */
type Route = (typeof WEBHOOK_ROUTES)[number];
const doc = openApiDocument() as any; // eslint-disable-line @typescript-eslint/no-explicit-any

test('every WEBHOOK_ROUTES route is in the document on the key or the session; every catalogue type in `webhooks`', () => {
  const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>)
    .filter(([path]) => path.startsWith('/v1/webhooks'))
    .flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`));
  expect(documented.sort()).toEqual(WEBHOOK_ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  for (const route of WEBHOOK_ROUTES) {
    const op = doc.paths[route.path][route.method.toLowerCase()];
    expect(op.security).toEqual([{ apiKey: [] }, { bearer: [] }, { session: [] }]);
    expect(op.tags).toEqual(['webhooks']);
    for (const status of ['400', '401', '429', '503']) expect(op.responses[status].content['application/json'].schema.$ref).toBe('#/components/schemas/Error');
  }
  for (const e of CATALOGUE) {
    const hook = doc.webhooks[e.type].post;
    const body = hook.requestBody.content['application/json'].schema;
    expect(body.properties.type).toEqual({ const: e.type });
    expect(body.properties.data.type).toBe('object');
    expect(hook['x-provided-by']).toBe(e.providedBy);
  }
  expect(doc.webhooks['credits.low'].post.requestBody.content['application/json'].schema.properties.data.required.sort()).toEqual(['credits', 'teamId', 'threshold']);
});

describe('real answers of the local API match the document', () => {
  let h: Harness;
  let key: string;
  const receiver = http.createServer((req, res) => void req.resume().on('end', () => res.writeHead(204).end()));
  let hook = '';
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

  async function call(name: Route['name'], ids: string[] = [], body?: unknown, headers: Record<string, string> = { 'x-api-key': key }) {
    const route = WEBHOOK_ROUTES.find((r) => r.name === name)!;
    let i = 0;
    const path = route.path.replace(/\{\w+\}/g, () => encodeURIComponent(ids[i++]!));
    const res = await fetch(h.gateway.url + path, {
      method: route.method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const json = JSON.parse(await res.text());
    const out: Record<string, string> = {};
    res.headers.forEach((value, n) => (out[n] = value));
    expect(openApiMismatch(route.path, res.status, out, json, route.method.toLowerCase())).toBeNull();
    (seen.get(name) ?? seen.set(name, new Set()).get(name)!).add(res.status);
    return { status: res.status, body: json };
  }

  test('every route, its success and its errors', async () => {
    const created = await call('create', [], { url: hook, types: ['key.revoked', 'credits.low'], description: 'ops' });
    expect(created.status).toBe(201);
    const { id, secret } = created.body.data.endpoint;
    expect(secret).toMatch(/^whsec_/);
    expect((await call('list')).body.data.endpoints.map((e: { id: string }) => e.id)).toEqual([id]);
    expect((await call('get', [id])).body.data.endpoint).not.toHaveProperty('secret');
    expect((await call('update', [id], { status: 'disabled' })).body.data.endpoint).toMatchObject({ status: 'disabled' });
    expect((await call('update', [id], { status: 'active', types: ['key.revoked'] })).body.data.endpoint).toMatchObject({ status: 'active', types: ['key.revoked'] });
    const rotated = (await call('rotateSecret', [id])).body.data.endpoint;
    expect(rotated.secret).not.toBe(secret);
    expect(rotated.previousSecretExpiresAt).not.toBeNull();
    const tested = await call('test', [id]);
    expect(tested.status).toBe(202);
    expect(tested.body.data.delivery).toMatchObject({ type: 'webhook.test', state: 'pending' });
    const deliveries = (await call('deliveries', [id])).body.data.deliveries;
    expect(deliveries.map((d: { type: string }) => d.type)).toEqual(['webhook.test']);
    expect((await call('delivery', [id, deliveries[0].eventId])).body.data.delivery).toMatchObject({ eventId: deliveries[0].eventId, recentAttempts: [] });
    expect((await call('redeliver', [id, deliveries[0].eventId])).status).toBe(202);
    expect((await call('test', [id])).status).toBe(429);
    expect((await call('settings')).body.data.settings).toEqual({ creditsLowThreshold: null, creditAlert: null });
    expect((await call('updateSettings', [], { creditsLowThreshold: 5 })).body.data.settings).toEqual({ creditsLowThreshold: 5, creditAlert: null });

    const other = await h.team(1);
    expect((await call('get', [id], undefined, { 'x-api-key': other.key })).status).toBe(404);
    expect((await call('delivery', [id, 'evt_nope'])).status).toBe(404);
    expect((await call('redeliver', [id, 'evt_nope'])).status).toBe(404);
    expect((await call('list', [], undefined, {})).status).toBe(401);
    expect((await call('create', [], { url: hook, types: ['nope'] })).status).toBe(422);
    expect((await call('update', [id], { url: 'https://10.0.0.1/x' })).status).toBe(422);
    expect((await call('updateSettings', [], { creditsLowThreshold: 0 })).status).toBe(422);
    expect((await call('create', [], '[1, 2]')).status).toBe(400);
    expect((await call('remove', [id])).body.data).toEqual({ deleted: true, id });
    expect((await call('remove', [id])).status).toBe(404);
    expect([...seen.keys()].sort()).toEqual(WEBHOOK_ROUTES.map((r) => r.name).sort());
  });
});
