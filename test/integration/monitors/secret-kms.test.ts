import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { Webhook } from 'standardwebhooks';
import { MONITOR_KEY_MISSING, MONITOR_KEY_UNAVAILABLE, newSecret, openSecret, resetMonitorKeys, sealSecret, sign } from '../../../shared/webhooks/secret';
import { LogCapture } from '../../support/logs';

/**
 * The signing secrets on AWS (issue 39 part 3): envelope encryption under a KMS key, tested against
 * moto_server's KMS (Python's moto, on this machine; started here on a free loopback port): one
 * GenerateDataKey per container, the encrypted data key beside the sealed value, another container
 * opening it with one Decrypt; and a deployed function that cannot reach its key refuses to seal or
 * open, with an error line.
 */
jest.setTimeout(60_000);

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

let moto: ChildProcess;
let endpoint = '';
let keyId = '';
let keyUuid = '';
const saved = { ...process.env };

beforeAll(async () => {
  const port = await freePort();
  moto = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`${endpoint}/moto-api/`).then(() => true, () => false);
    if (up) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_ENDPOINT_URL_KMS: endpoint });
  const kms = new KMSClient({ region: 'us-east-1', endpoint });
  const created = (await kms.send(new CreateKeyCommand({ Description: 'monitors test key' }))).KeyMetadata!;
  keyId = created.Arn!;
  keyUuid = created.KeyId!;
});
afterAll(() => {
  moto?.kill();
  process.env = saved;
  resetMonitorKeys();
});
beforeEach(() => {
  resetMonitorKeys();
  process.env.MONITOR_KMS_KEY_ID = keyId;
  process.env.AWS_ENDPOINT_URL_KMS = endpoint;
  process.env.AWS_LAMBDA_FUNCTION_NAME = 'social-data-monitors-test';
});

const parts = (sealed: string) => sealed.split('.');

test('sealed as v2.<encrypted data key>.<iv>.<tag>.<ciphertext>: one data key per container, the plain secret nowhere, opened again', async () => {
  const secrets = [newSecret(), newSecret(), newSecret()];
  const sealed = await Promise.all(secrets.map((s) => sealSecret(s)));
  for (const [i, s] of sealed.entries()) {
    expect(parts(s)).toHaveLength(5);
    expect(parts(s)[0]).toBe('v2');
    expect(s).not.toContain(secrets[i]!.slice(6, 20));
    expect(await openSecret(s)).toBe(secrets[i]);
  }
  // GenerateDataKey once: every value carries the same encrypted data key.
  expect(new Set(sealed.map((s) => parts(s)[1])).size).toBe(1);
  expect(Buffer.from(parts(sealed[0]!)[1]!, 'base64url').length).toBeGreaterThan(32);
});

test('another container (a new data key) opens what the first sealed, by one Decrypt of its encrypted data key; signatures verify with the standardwebhooks package', async () => {
  const secret = newSecret();
  const first = await sealSecret(secret);
  resetMonitorKeys();
  const second = await sealSecret(newSecret());
  expect(parts(second)[1]).not.toBe(parts(first)[1]);
  const opened = await openSecret(first);
  expect(opened).toBe(secret);
  const body = JSON.stringify({ type: 'monitor.test', timestamp: new Date().toISOString(), data: {} });
  const ts = Math.floor(Date.now() / 1000);
  expect(new Webhook(secret).verify(body, { 'webhook-id': 'msg_kms', 'webhook-timestamp': String(ts), 'webhook-signature': sign(opened, 'msg_kms', ts, body) })).toEqual(JSON.parse(body));
});

test('a deployed function without its KMS key refuses (a local MONITOR_KEY is no fallback on Lambda), with an error line', async () => {
  const sealed = await sealSecret(newSecret());
  delete process.env.MONITOR_KMS_KEY_ID;
  process.env.MONITOR_KEY = 'a-local-key-must-not-be-used-on-lambda';
  const logs = new LogCapture().start();
  try {
    await expect(sealSecret(newSecret())).rejects.toThrow(MONITOR_KEY_MISSING);
    await expect(openSecret(sealed)).rejects.toThrow(MONITOR_KEY_MISSING);
  } finally {
    logs.stop();
  }
  expect(logs.lines.filter((l) => l.includes('"level":"ERROR"') && l.includes('monitor key missing'))).toHaveLength(2);
});

test('KMS out of reach (nothing listening), or refusing (an unknown key, a forged encrypted data key): nothing sealed or opened, an error line with the error\'s name, never a value', async () => {
  const secret = newSecret();
  const sealed = await sealSecret(secret);
  resetMonitorKeys();
  process.env.AWS_ENDPOINT_URL_KMS = 'http://127.0.0.1:9';
  const logs = new LogCapture().start();
  try {
    await expect(sealSecret(newSecret())).rejects.toThrow(MONITOR_KEY_UNAVAILABLE);
    await expect(openSecret(sealed)).rejects.toThrow(MONITOR_KEY_UNAVAILABLE);
  } finally {
    logs.stop();
  }
  const errors = logs.lines.filter((l) => l.includes('"level":"ERROR"') && l.includes('monitor key unavailable'));
  expect(errors).toHaveLength(2);
  for (const line of errors) expect(line).not.toContain(secret.slice(6));

  // KMS answers, but refuses: a key it does not know (as a key of another account, or without the grant,
  // looks to the function), and an encrypted data key that is not one of its own.
  resetMonitorKeys();
  process.env.AWS_ENDPOINT_URL_KMS = endpoint;
  process.env.MONITOR_KMS_KEY_ID = keyId.replace(keyUuid, '00000000-0000-0000-0000-000000000000');
  await expect(sealSecret(newSecret())).rejects.toThrow(MONITOR_KEY_UNAVAILABLE);
  process.env.MONITOR_KMS_KEY_ID = keyId;
  const [v, edk, ...rest] = parts(sealed);
  const forged = [v, Buffer.from(Buffer.from(edk!, 'base64url').map((b, i) => (i === 40 ? b ^ 1 : b))).toString('base64url'), ...rest].join('.');
  await expect(openSecret(forged)).rejects.toThrow(MONITOR_KEY_UNAVAILABLE);
  expect(await openSecret(sealed)).toBe(secret);
});
