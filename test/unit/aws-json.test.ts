import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AwsCallError, SECRETS_MANAGER, SSM, awsJsonCall, endpointOf } from '../../shared/aws-json';
import { loadSecrets, loaded, resetSecrets } from '../../shared/runtime/secrets';

/**
 * The signed AWS JSON call that replaced the Secrets Manager and SSM SDK clients (shared/aws-json.ts),
 * against a local stand-in for the service (the SDK's own AWS_ENDPOINT_URL_<SERVICE> override). The
 * stand-in checks each signature with its own SigV4 computation (written here from the published
 * algorithm, not with the signer under test), so a request AWS would refuse fails this test.
 */
const AKID = 'AKIDEXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const TOKEN = 'session-token-example';

interface Seen {
  target: string;
  body: unknown;
  scope: string;
  signatureValid: boolean;
  token?: string;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s).digest();

/** Checks the Authorization header of a received request the way AWS does (SigV4, header-signed). */
function verify(req: http.IncomingMessage, body: string): { valid: boolean; scope: string } {
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(req.headers.authorization ?? '');
  if (!m) return { valid: false, scope: '' };
  const [, akid, date, region, service, signedHeaders, signature] = m as unknown as string[];
  const amzDate = String(req.headers['x-amz-date']);
  const canonicalHeaders = signedHeaders!
    .split(';')
    .map((h) => `${h}:${String(req.headers[h] ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
  const canonicalRequest = [req.method, req.url?.split('?')[0] || '/', '', canonicalHeaders, signedHeaders, sha256(body)].join('\n');
  const scope = `${date}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${SECRET}`, date!), region!), service!), 'aws4_request');
  const expected = createHmac('sha256', key).update(toSign).digest('hex');
  return { valid: akid === AKID && expected === signature && amzDate.startsWith(date!), scope };
}

let server: http.Server;
let url: string;
const seen: Seen[] = [];
/** What the stand-in answers next (status, body), in order; then 200 with the default answer. */
const script: [number, string][] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { valid, scope } = verify(req, body);
      const target = String(req.headers['x-amz-target']);
      seen.push({ target, body: JSON.parse(body), scope, signatureValid: valid, token: req.headers['x-amz-security-token'] as string | undefined });
      const [status, answer] = script.shift() ?? [
        200,
        target === 'AmazonSSM.GetParameter' ? JSON.stringify({ Parameter: { Name: 'p', Value: 'http://u:pw@proxy.internal:3128' } }) : JSON.stringify({ SecretString: 'the-secret-value' }),
      ];
      res.writeHead(valid ? status : 403, { 'content-type': 'application/x-amz-json-1.1' });
      res.end(valid ? answer : JSON.stringify({ __type: 'InvalidSignatureException' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections(); // fetch keeps its connections alive: close them, or close() waits for them
  return new Promise<void>((r) => server.close(() => r()));
});

const saved = { ...process.env };
beforeEach(() => {
  seen.length = 0;
  script.length = 0;
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: AKID, AWS_SECRET_ACCESS_KEY: SECRET, AWS_SESSION_TOKEN: TOKEN, AWS_ENDPOINT_URL_SECRETS_MANAGER: url, AWS_ENDPOINT_URL_SSM: url });
});
afterEach(() => {
  resetSecrets();
  for (const k of ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_ENDPOINT_URL_SECRETS_MANAGER', 'AWS_ENDPOINT_URL_SSM', 'AWS_ENDPOINT_URL', 'CURSOR_SECRET_ARN', 'SCRAPER_PROXY_PARAMETER', 'SCRAPER_PROXY_URL']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

test('a signed GetSecretValue and GetParameter, as AWS checks them (scope, target, session token, body)', async () => {
  const secret = await awsJsonCall<{ SecretString: string }>(SECRETS_MANAGER, 'GetSecretValue', { SecretId: 'arn:aws:secretsmanager:eu-west-1:1:secret:c' }, 'eu-west-1');
  const parameter = await awsJsonCall<{ Parameter: { Value: string } }>(SSM, 'GetParameter', { Name: '/p', WithDecryption: true }, 'eu-west-1');
  expect(secret.SecretString).toBe('the-secret-value');
  expect(parameter.Parameter.Value).toBe('http://u:pw@proxy.internal:3128');
  expect(seen).toEqual([
    { target: 'secretsmanager.GetSecretValue', body: { SecretId: 'arn:aws:secretsmanager:eu-west-1:1:secret:c' }, scope: expect.stringMatching(/^\d{8}\/eu-west-1\/secretsmanager\/aws4_request$/), signatureValid: true, token: TOKEN },
    { target: 'AmazonSSM.GetParameter', body: { Name: '/p', WithDecryption: true }, scope: expect.stringMatching(/^\d{8}\/eu-west-1\/ssm\/aws4_request$/), signatureValid: true, token: TOKEN },
  ]);
});

test('the cold-start loader reads through it: the secret from its ARN region, the parameter decrypted', async () => {
  process.env.CURSOR_SECRET_ARN = 'arn:aws:secretsmanager:ap-southeast-2:1:secret:cursor';
  process.env.SCRAPER_PROXY_PARAMETER = '/social-data/proxy-url';
  delete process.env.SCRAPER_PROXY_URL;
  await loadSecrets();
  expect(loaded).toEqual({ cursorSecret: 'the-secret-value', proxyUrl: 'http://u:pw@proxy.internal:3128' });
  expect(seen.map((s) => [s.target, s.scope.split('/')[1], s.signatureValid]).sort()).toEqual([
    ['AmazonSSM.GetParameter', process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'us-east-1', true],
    ['secretsmanager.GetSecretValue', 'ap-southeast-2', true],
  ]);
});

test('an error answer is named by its type, never by its body; throttling and 5xx are tried again, up to 3 attempts', async () => {
  script.push([400, JSON.stringify({ __type: 'com.amazonaws.secretsmanager#ResourceNotFoundException', message: 'the-secret-value must not leak' })]);
  const err = await awsJsonCall(SECRETS_MANAGER, 'GetSecretValue', { SecretId: 'x' }, 'eu-west-1').then(
    () => null,
    (e: AwsCallError) => e,
  );
  expect(err).toBeInstanceOf(AwsCallError);
  expect(err).toMatchObject({ name: 'ResourceNotFoundException', status: 400 });
  expect(err?.message).not.toContain('the-secret-value');
  expect(seen).toHaveLength(1); // a client error is not repeated

  seen.length = 0;
  script.push([400, JSON.stringify({ __type: 'ThrottlingException' })], [503, 'upstream down']);
  await expect(awsJsonCall(SECRETS_MANAGER, 'GetSecretValue', { SecretId: 'x' }, 'eu-west-1')).resolves.toEqual({ SecretString: 'the-secret-value' });
  expect(seen).toHaveLength(3);

  seen.length = 0;
  script.push([500, ''], [500, ''], [500, '']);
  await expect(awsJsonCall(SSM, 'GetParameter', { Name: 'x' }, 'eu-west-1')).rejects.toMatchObject({ name: 'ServiceUnavailable', status: 500 });
  expect(seen).toHaveLength(3);
});

test('endpoints as the SDK resolves them, and its override variables', () => {
  delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
  delete process.env.AWS_ENDPOINT_URL_SSM;
  expect(endpointOf(SECRETS_MANAGER, 'eu-west-1').href).toBe('https://secretsmanager.eu-west-1.amazonaws.com/');
  expect(endpointOf(SSM, 'cn-north-1').href).toBe('https://ssm.cn-north-1.amazonaws.com.cn/');
  process.env.AWS_ENDPOINT_URL = 'http://127.0.0.1:4566';
  expect(endpointOf(SSM, 'eu-west-1').href).toBe('http://127.0.0.1:4566/');
  process.env.AWS_ENDPOINT_URL_SSM = 'http://127.0.0.1:9999';
  expect(endpointOf(SSM, 'eu-west-1').href).toBe('http://127.0.0.1:9999/');
});
