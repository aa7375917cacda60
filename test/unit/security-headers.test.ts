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

test("on AWS the dashboard's Content-Security-Policy lets the Jobs page reach the results bucket's pre-signed URLs (the input file's PUT, errors.jsonl), that origin alone; off AWS 'self' only", async () => {
  const saved = { ...process.env };
  const csp = async () => String((await dashboard(event('/dashboard/jobs'))).headers!['content-security-policy']);
  const connectSrc = async () => (await csp()).split('; ').find((d) => d.startsWith('connect-src '));
  try {
    delete process.env.JOBS_BUCKET;
    expect(await connectSrc()).toBe("connect-src 'self'");
    Object.assign(process.env, { JOBS_BUCKET: 'sda-jobs-results-abc123', AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' });
    expect(await connectSrc()).toBe("connect-src 'self' https://sda-jobs-results-abc123.s3.eu-west-1.amazonaws.com");
    // The very origin of the URLs the jobs API hands out (signed here, offline).
    const { files } = await import('../../shared/jobs/files');
    const put = new URL(await files().signedPut('uploads/t/upl_x', 'text/csv', 60));
    const get = new URL(await files().signedGet('jobs/t/j/results/errors.jsonl', 'errors.jsonl', 60));
    expect(put.origin).toBe('https://sda-jobs-results-abc123.s3.eu-west-1.amazonaws.com');
    expect(get.origin).toBe(put.origin);
  } finally {
    process.env = saved;
  }
});
