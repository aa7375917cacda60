import type { APIGatewayProxyResult } from 'aws-lambda';
import { BAD_ORIGIN } from '../../shared/api/caller';
import { jsonApi, type RouteContext } from '../../shared/api/router';
import { GATEWAY_MESSAGES } from '../../shared/http/errors';
import { proxyEvent } from '../../shared/http/proxy-event';

/**
 * The one router of the JSON APIs (shared/api/router.ts) on a route table of its own: what every
 * route gets without its handler doing anything, and what no handler is ever called for. No
 * database: the routes here are public, or refused before a key is looked up.
 */
const ROUTES = [
  { method: 'POST', path: '/v1/things/{thingId}', name: 'open', caller: 'public' },
  { method: 'POST', path: '/v1/things/{thingId}/notes', name: 'note', caller: 'public', maxBodyBytes: 64 },
  { method: 'GET', path: '/v1/things/{thingId}', name: 'read', caller: 'key' },
  { method: 'DELETE', path: '/v1/things/{thingId}', name: 'remove', caller: 'session' },
] as const;

const seen: RouteContext[] = [];
const handler = jsonApi(
  'things',
  ROUTES,
  {
    open: async (ctx) => (seen.push(ctx), { status: 201, data: { id: ctx.params.thingId, body: ctx.body, q: ctx.query.q ?? null }, cookies: ['a=1; Path=/v1'] }),
    note: async (ctx) => (seen.push(ctx), { data: { note: true } }),
    read: async (ctx) => (seen.push(ctx), { data: { teamId: ctx.teamId } }),
    remove: async (ctx) => (seen.push(ctx), { data: { teamId: ctx.teamId } }),
  },
  { notFound: 'No such things route', maxBodyBytes: 1024 },
);

const OWN = { Host: 'api.example', Origin: 'https://api.example', 'Content-Type': 'application/json' };
const call = (method: string, path: string, headers: Record<string, string> = {}, body: unknown = undefined, query?: Record<string, string>): Promise<APIGatewayProxyResult> =>
  handler(proxyEvent({ method, path, headers, body: body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body), query }, { requestId: `req-${seen.length}-${Math.random()}` }));
const errorOf = (res: APIGatewayProxyResult) => (JSON.parse(res.body) as { error: { code: string; message: string } }).error;

beforeEach(() => {
  seen.length = 0;
  delete process.env.DASHBOARD_ORIGIN;
});

test('a route gets its path parameters (behind a stage prefix too), the JSON body, the query and lower-cased headers; its reply is {data} with its status and cookies', async () => {
  const res = await call('POST', '/prod/v1/things/t1', OWN, { a: 1 }, { q: 'x' });
  expect(res.statusCode).toBe(201);
  expect(JSON.parse(res.body)).toEqual({ data: { id: 't1', body: { a: 1 }, q: 'x' } });
  expect(res.multiValueHeaders?.['set-cookie']).toEqual(['a=1; Path=/v1']);
  expect(seen[0]!.headers).toMatchObject({ host: 'api.example', origin: 'https://api.example' });
  expect(seen[0]!.cookiePath).toBe('/prod/v1');
  expect('teamId' in seen[0]!).toBe(false);
});

test('no route for the path or the method: 404 with the API\'s own message, no handler called', async () => {
  for (const [method, path] of [['GET', '/v1/others'], ['PUT', '/v1/things/t1'], ['GET', '/v1/things/t1/notes/x']] as const) {
    const res = await call(method, path, OWN);
    expect({ method, path, status: res.statusCode, error: errorOf(res) }).toEqual({ method, path, status: 404, error: expect.objectContaining({ code: 'NOT_FOUND', message: 'No such things route' }) });
  }
  expect(seen).toEqual([]);
});

test('a state-changing request without an API key must carry this site\'s Origin (DASHBOARD_ORIGIN when set): else 400, no handler called', async () => {
  for (const origin of [undefined, 'https://evil.example', 'http://api.example']) {
    const res = await call('POST', '/v1/things/t1', { ...OWN, Origin: origin as string }, {});
    expect({ origin, status: res.statusCode, error: errorOf(res) }).toEqual({ origin, status: 400, error: expect.objectContaining({ code: 'BAD_REQUEST', message: BAD_ORIGIN }) });
  }
  process.env.DASHBOARD_ORIGIN = 'https://dash.example/';
  expect((await call('POST', '/v1/things/t1', OWN, {})).statusCode).toBe(400);
  expect((await call('POST', '/v1/things/t1', { ...OWN, Origin: 'https://dash.example' }, {})).statusCode).toBe(201);
  expect(seen).toHaveLength(1);
});

test('who may call is the route\'s: a key route without a valid key is 401 with the gateway\'s message; a session route without a session is 401 (before its Origin is even needed for a read)', async () => {
  for (const headers of [{}, { 'X-Api-Key': 'not-a-key' }, { authorization: 'Bearer short' }] as Record<string, string>[]) {
    const res = await call('GET', '/v1/things/t1', headers);
    expect({ headers, status: res.statusCode, error: errorOf(res) }).toEqual({ headers, status: 401, error: expect.objectContaining({ code: 'UNAUTHORIZED', message: GATEWAY_MESSAGES.UNAUTHORIZED }) });
  }
  const noSession = await call('DELETE', '/v1/things/t1', { ...OWN, 'x-api-key': 'ignored-by-a-session-route' });
  expect(noSession.statusCode).toBe(401);
  expect(errorOf(noSession).code).toBe('UNAUTHORIZED');
  expect(seen).toEqual([]);
});

test('the body: over the route\'s own limit, or not a JSON object, is 400 before the handler', async () => {
  const big = await call('POST', '/v1/things/t1/notes', OWN, { text: 'x'.repeat(100) });
  expect([big.statusCode, errorOf(big).message]).toEqual([400, 'The request body is too large']);
  const ok = await call('POST', '/v1/things/t1', OWN, { text: 'x'.repeat(100) });
  expect(ok.statusCode).toBe(201);
  for (const body of ['[1, 2]', 'not json', '"text"']) {
    const res = await call('POST', '/v1/things/t1', OWN, body);
    expect([body, res.statusCode, errorOf(res).message]).toEqual([body, 400, 'The request body must be a JSON object']);
  }
  expect(seen).toHaveLength(1);
});
