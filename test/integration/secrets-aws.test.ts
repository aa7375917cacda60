import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadSecrets, loaded, resetSecrets } from '../../shared/runtime/secrets';

/**
 * The cold-start loader reads through Powertools Parameters and the AWS SDK's Secrets Manager
 * client (the only one: the proxy URL is a secret too), against a local stand-in for the service (the SDK's own AWS_ENDPOINT_URL_<SERVICE>
 * override): the operation each call names, its input, the region the request is signed for (a
 * secret's ARN names its region), and the value handed back. No AWS call leaves this machine.
 */
interface Seen {
  target: string;
  body: Record<string, unknown>;
  region: string | undefined;
}
const seen: Seen[] = [];
const script: [status: number, body: string][] = [];
let server: http.Server;
let url = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const target = String(req.headers['x-amz-target'] ?? '');
      const region = /Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(req.headers.authorization ?? '')?.[1];
      const input = JSON.parse(body || '{}') as Record<string, unknown>;
      seen.push({ target, body: input, region });
      const [status, answer] = script.shift() ?? [200, JSON.stringify({ ARN: input.SecretId, Name: 'n', SecretString: `value of ${String(input.SecretId).split(':').pop()}` })];
      res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(answer);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

const VARS = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_REGION', 'AWS_ENDPOINT_URL_SECRETS_MANAGER', 'CURSOR_SECRET_ARN', 'SCRAPER_PROXY_SECRET_ARN', 'SCRAPER_PROXY_URL', 'KEY_PEPPER_SECRET_ARN', 'AWS_MAX_ATTEMPTS'];
const saved = Object.fromEntries(VARS.map((k) => [k, process.env[k]]));
beforeEach(() => {
  seen.length = 0;
  script.length = 0;
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token', AWS_REGION: 'eu-west-1', AWS_ENDPOINT_URL_SECRETS_MANAGER: url, AWS_MAX_ATTEMPTS: '1' });
});
afterEach(() => {
  resetSecrets();
  for (const k of VARS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

test('each secret from its ARN, in its region (one named without an ARN in the function\'s); read once', async () => {
  process.env.CURSOR_SECRET_ARN = 'arn:aws:secretsmanager:ap-southeast-2:1:secret:cursor';
  process.env.KEY_PEPPER_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:1:secret:pepper';
  process.env.SCRAPER_PROXY_SECRET_ARN = 'social-data/proxy-url';
  delete process.env.SCRAPER_PROXY_URL;
  await Promise.all([loadSecrets(), loadSecrets()]);
  await loadSecrets();
  expect(loaded).toEqual({ cursorSecret: 'value of cursor', keyPepper: 'value of pepper', proxyUrl: 'value of social-data/proxy-url' });
  expect(seen.map((s) => [s.target, s.region, s.body]).sort()).toEqual([
    ['secretsmanager.GetSecretValue', 'ap-southeast-2', { SecretId: 'arn:aws:secretsmanager:ap-southeast-2:1:secret:cursor' }],
    ['secretsmanager.GetSecretValue', 'eu-west-1', { SecretId: 'arn:aws:secretsmanager:eu-west-1:1:secret:pepper' }],
    ['secretsmanager.GetSecretValue', 'eu-west-1', { SecretId: 'social-data/proxy-url' }],
  ]);
});

test('a refused read fails the load with the error kind only, never a value; the next load tries again', async () => {
  process.env.CURSOR_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:1:secret:cursor';
  script.push([400, JSON.stringify({ __type: 'com.amazonaws.secretsmanager#ResourceNotFoundException', message: 'value of cursor must not leak' })]);
  const err = await loadSecrets().then(
    () => null,
    (e: Error) => e,
  );
  expect(err?.message).toMatch(/^secrets could not be read at cold start: /);
  expect(err?.message).not.toContain('value of cursor');
  expect(loaded.cursorSecret).toBeUndefined();
  await loadSecrets();
  expect(loaded.cursorSecret).toBe('value of cursor');
});
