import type { APIGatewayProxyEvent } from 'aws-lambda';
import { accountHandler } from '../../shared/account/api';
import { dashboardHandler } from '../../shared/public/dashboard-assets';
import { openApiHandler } from '../../shared/public/openapi-document';

/**
 * Issue 18.10: every answer of every entry point says nosniff, and the dashboard's answers (its pages,
 * its assets, its account API, their errors) carry HSTS. The gateway's own answers are in
 * test/infra/stack.test.ts.
 */
const HSTS = 'max-age=31536000; includeSubDomains';
const ASSETS = {
  'index.html': { type: 'text/html; charset=utf-8', body: '<html>%BASE%</html>' },
  'app.js': { type: 'text/javascript; charset=utf-8', body: 'void 0' },
};
const event = (path: string, method = 'GET') =>
  ({ httpMethod: method, path, headers: {}, queryStringParameters: null, multiValueQueryStringParameters: null, body: null, isBase64Encoded: false, requestContext: { requestId: `req-${path}` } }) as unknown as APIGatewayProxyEvent;

const dashboard = dashboardHandler(() => ASSETS);

test.each([
  ['the dashboard page', () => dashboard(event('/dashboard')), 200],
  ['a dashboard asset', () => dashboard(event('/dashboard/app.js')), 200],
  ['a missing dashboard page', () => dashboard(event('/dashboard/nope.js')), 404],
  ['the account API without a session', () => accountHandler(event('/v1/account/me')), 401],
  ['the OpenAPI document', () => openApiHandler({ openapi: '3.1.0' })(event('/v1/openapi.json')), 200],
])('%s: nosniff and HSTS', async (_name, call, status) => {
  const res = await call();
  expect(res.statusCode).toBe(status);
  expect(res.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'strict-transport-security': HSTS });
});
