import type { APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ensureTables } from '../../dev/tables';
import { accountHandler } from '../../shared/account/api';
import { dashboardHandler } from '../../shared/public/dashboard-assets';
import { Unauthorized, authorizerHandler } from '../../shared/auth/authorizer';
import { balance, createTeam } from '../../shared/accounting/teams';
import { openApiHandler } from '../../shared/public/openapi-document';
import { clip } from '../../shared/operations/livestream';
import { createHandler } from '../../shared/pipeline';
import { scenarios } from '../contract/scenarios';
import { LogCapture } from '../support/logs';

/**
 * The entry-point wrapper (shared/http/entry.ts), through the real entry points: an operation
 * (shared/pipeline.ts), the account API, the dashboard and the OpenAPI document. One error mapping,
 * one request-id rule, one set of headers, one log context.
 */
type Call = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ASSETS = { 'index.html': { type: 'text/html; charset=utf-8', body: '<html>%BASE%</html>' } };
const CLIP = scenarios['livestream-clip']!;

const event = (e: Omit<Partial<APIGatewayProxyEvent>, 'requestContext'> & { requestContext?: Record<string, unknown> }) =>
  ({ httpMethod: 'GET', headers: {}, queryStringParameters: null, multiValueQueryStringParameters: null, body: null, isBase64Encoded: false, ...e }) as unknown as APIGatewayProxyEvent;

let teamId: string;
beforeAll(async () => {
  await ensureTables();
  teamId = (await createTeam('entry-test', 5, { usageKey: 'usage-entry-test' })).teamId;
});

/** Each entry point with a dependency that fails in a way no code of ours classifies. */
const failing: [string, Call, () => APIGatewayProxyEvent][] = [
  [
    'operation (its scraper bundle fails to load)',
    createHandler(clip, () => Promise.reject(new Error('Cannot find module ./scrape'))),
    () => event({ path: '/v1/livestream/clip', queryStringParameters: CLIP.query, requestContext: { requestId: 'req-op', authorizer: { teamId } } }),
  ],
  ['account API (an event without a path)', accountHandler, () => event({ requestContext: { requestId: 'req-account' } })],
  ['dashboard (its assets cannot be read)', dashboardHandler(() => Promise.reject(new Error('ENOENT: dashboard/index.html'))), () => event({ path: '/dashboard', requestContext: { requestId: 'req-dashboard' } })],
  ['OpenAPI document (it cannot be serialised)', openApiHandler({ version: 1n }), () => event({ path: '/v1/openapi.json', requestContext: { requestId: 'req-openapi' } })],
];

describe('an unknown error is the same answer at every entry point', () => {
  test.each(failing)('%s -> 503 SERVICE_UNAVAILABLE, Retry-After 5, the request id, the cause only in the logs', async (_name, handler, make) => {
    const logs = new LogCapture().start('INFO');
    let res: APIGatewayProxyResult;
    const e = make();
    try {
      res = await handler(e);
    } finally {
      logs.stop();
    }
    const requestId = e.requestContext.requestId;
    expect(res.statusCode).toBe(503);
    expect(res.headers).toMatchObject({ 'retry-after': '5', 'x-request-id': requestId, 'x-content-type-options': 'nosniff', 'content-type': 'application/json; charset=utf-8' });
    expect(JSON.parse(res.body)).toEqual({ error: { code: 'SERVICE_UNAVAILABLE', message: 'The service is at capacity; try again shortly', requestId } });
    const failed = logs.of(requestId).find((r) => r.message === 'request failed');
    expect(failed).toMatchObject({ level: 'ERROR', code: 'SERVICE_UNAVAILABLE', status: 503, cause: expect.any(String) });
    expect(res.body).not.toContain(String(failed!.cause).slice(0, 20));
  });

  test('the operation gave the reserved credit back', async () => {
    expect(await balance(teamId)).toBe(5);
  });
});

/** Each entry point answering normally (a success or its own error). */
const answering: [string, Call, APIGatewayProxyEvent][] = [
  ['operation, 401 without a team', createHandler(clip, () => Promise.reject(new Error('never loaded'))), event({ path: '/v1/livestream/clip', queryStringParameters: CLIP.query })],
  ['account API, 404', accountHandler, event({ path: '/v1/account/nope' })],
  ['dashboard page, 200', dashboardHandler(() => ASSETS), event({ path: '/dashboard' })],
  ['dashboard, 404', dashboardHandler(() => ASSETS), event({ path: '/dashboard/nope' })],
  ['OpenAPI document, 200', openApiHandler({ openapi: '3.1.0' }), event({ path: '/v1/openapi.json' })],
];

describe('request id and headers', () => {
  test.each(answering)('%s: API Gateway\'s request id is the answer\'s, and the same headers', async (_name, handler, e) => {
    const res = await handler({ ...e, requestContext: { requestId: 'gateway-request-id' } as APIGatewayProxyEvent['requestContext'] });
    expect(res.headers).toMatchObject({ 'x-request-id': 'gateway-request-id', 'x-content-type-options': 'nosniff' });
    if (res.statusCode >= 400) expect(JSON.parse(res.body).error.requestId).toBe('gateway-request-id');
  });

  test.each(answering)('%s: without one, a fresh random UUID per request (never a fixed id)', async (_name, handler, e) => {
    const [a, b] = [await handler(e), await handler(e)];
    for (const res of [a, b]) {
      expect(res.headers?.['x-request-id']).toMatch(UUID);
      if (res.statusCode >= 400) expect(JSON.parse(res.body).error.requestId).toBe(res.headers?.['x-request-id']);
    }
    expect(a.headers?.['x-request-id']).not.toBe(b.headers?.['x-request-id']);
  });

  test('an answer keeps its own headers: the document stays cacheable, the dashboard keeps its policy', async () => {
    const doc = await openApiHandler({ openapi: '3.1.0' })(event({ path: '/v1/openapi.json' }));
    expect(doc.headers).toMatchObject({ 'cache-control': 'public, max-age=300', 'content-type': 'application/json; charset=utf-8' });
    const page = await dashboardHandler(() => ASSETS)(event({ path: '/dashboard', requestContext: { requestId: 'r', path: '/prod/dashboard' } }));
    expect(page.headers?.['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toBe('<html>/prod</html>');
  });
});

test('the account API clears a stale session cookie on its 401, without comparing messages', async () => {
  const res = await accountHandler(event({ path: '/v1/account/me', headers: { cookie: 'sda_session=gone' }, requestContext: { requestId: 'stale', path: '/prod/v1/account/me' } }));
  expect(res.statusCode).toBe(401);
  expect(res.multiValueHeaders?.['set-cookie']).toEqual([expect.stringMatching(/^sda_session=; Path=\/prod\/v1; Max-Age=0/), expect.stringMatching(/^sda_session=; Path=\/prod\/v1\/account; Max-Age=0/)]);
  expect(res.headers?.['x-request-id']).toBe('stale');
});

test('the authorizer logs with the same context (requestId, operation) and refuses with Unauthorized', async () => {
  const logs = new LogCapture().start('INFO');
  let thrown: unknown;
  try {
    await authorizerHandler({ type: 'REQUEST', methodArn: 'arn:aws:execute-api:r:1:api/prod/GET/v1/x', headers: {}, requestContext: { requestId: 'auth-req' } } as unknown as APIGatewayRequestAuthorizerEvent);
  } catch (err) {
    thrown = err;
  } finally {
    logs.stop();
  }
  expect(thrown).toBeInstanceOf(Unauthorized);
  expect((thrown as Error).message).toBe('Unauthorized'); // what API Gateway expects
  expect(logs.of('auth-req')).toEqual([expect.objectContaining({ message: 'unauthorized', operation: 'authorizer' })]);
});
