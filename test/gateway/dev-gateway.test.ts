import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { dashboardHandler } from '../../shared/public/dashboard-assets';
import { operation } from '../../shared/operations';
import { startHarness, type Harness } from '../support/harness';

/**
 * Issue 30.8: asset names are looked up among the assets only (never Object.prototype's names), and
 * no request can end the local gateway: an answer node refuses to write is a 503 for that request.
 */
const ASSETS = {
  'index.html': { type: 'text/html; charset=utf-8', body: '<html>%BASE%</html>' },
  'assets/app.js': { type: 'text/javascript; charset=utf-8', body: 'void 0' },
};
const event = (path: string) =>
  ({ httpMethod: 'GET', path, headers: {}, queryStringParameters: null, multiValueQueryStringParameters: null, body: null, isBase64Encoded: false, requestContext: { requestId: `req-${path}` } }) as unknown as APIGatewayProxyEvent;

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

test.each(PROTOTYPE_NAMES)('GET /dashboard/%s is 404 in the error envelope', async (name) => {
  const res = await dashboardHandler(() => ASSETS)(event(`/dashboard/${name}`));
  expect(res.statusCode).toBe(404);
  expect(JSON.parse(res.body).error.code).toBe('NOT_FOUND');
});

describe('the local gateway', () => {
  const CLIP = operation('livestream-clip');
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness({
      // An operation whose answer node cannot write: a header name with a space, no status text.
      loadHandler: async (op) => async (): Promise<APIGatewayProxyResult> =>
        op.id === CLIP.id ? { statusCode: 200, headers: { 'bad header': 'x' }, body: '{}' } : { statusCode: 1000, headers: {}, body: '' },
    });
    ({ key } = await h.team(10));
  }, 60_000);
  afterAll(async () => h?.stop());

  test('names of Object.prototype under /dashboard are 404, and the server keeps answering', async () => {
    for (const name of PROTOTYPE_NAMES) {
      const res = await fetch(`${h.gateway.url}/dashboard/${name}`);
      expect({ name, status: res.status }).toEqual({ name, status: 404 });
      expect((await res.json()).error.code).toBe('NOT_FOUND');
    }
    const page = await fetch(`${h.gateway.url}/dashboard`);
    expect(page.status).toBe(200);
    await page.text();
  }, 60_000);

  test('an answer node refuses to write is a 503 for that request; the server keeps answering', async () => {
    for (const path of [CLIP.path, operation('microblog-b-profile').path]) {
      const res = await h.call(path, {}, { key, skipOpenApiCheck: true });
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({ path, status: 503, code: 'SERVICE_UNAVAILABLE' });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
    const res = await fetch(`${h.gateway.url}/v1/openapi.json`);
    expect(res.status).toBe(200);
    await res.text();
  }, 60_000);
});
