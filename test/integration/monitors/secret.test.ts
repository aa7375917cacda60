import { Webhook } from 'standardwebhooks';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localMonitorKey } from '../../../dev/env';
import { MONITOR_KEY_MISSING, newSecret, openSecret, sealSecret, sign } from '../../../shared/webhooks/secret';
import { LogCapture } from '../../support/logs';

/** The signing secret: stored sealed (never as itself), and signing as the Standard Webhooks reference verifies. */
test('locally: stored sealed under the monitors\' own key (v1): the stored form reveals nothing, a wrong key cannot open it, and the key pepper plays no part', async () => {
  process.env.MONITOR_KEY = 'monitor-key-one';
  process.env.KEY_PEPPER = 'pepper-one';
  const secret = newSecret();
  const sealed = await sealSecret(secret);
  expect(sealed.startsWith('v1.')).toBe(true);
  expect(sealed).not.toContain(secret.slice(6, 20));
  expect(await openSecret(sealed)).toBe(secret);
  process.env.KEY_PEPPER = 'pepper-two';
  expect(await openSecret(sealed)).toBe(secret);
  process.env.MONITOR_KEY = 'monitor-key-two';
  await expect(openSecret(sealed)).rejects.toThrow();
  delete process.env.KEY_PEPPER;
  delete process.env.MONITOR_KEY;
});

test('without the key nothing is sealed or opened, and an error line says so (no fixed fallback)', async () => {
  const before = process.env.MONITOR_KEY;
  process.env.MONITOR_KEY = 'some-key';
  const sealed = await sealSecret(newSecret());
  delete process.env.MONITOR_KEY;
  const logs = new LogCapture().start();
  try {
    await expect(sealSecret(newSecret())).rejects.toThrow(MONITOR_KEY_MISSING);
    await expect(openSecret(sealed)).rejects.toThrow(MONITOR_KEY_MISSING);
  } finally {
    logs.stop();
    if (before !== undefined) process.env.MONITOR_KEY = before;
  }
  expect(logs.lines.filter((l) => l.includes('"level":"ERROR"') && l.includes('monitor key missing'))).toHaveLength(2);
});

test('local runs: a key made once under .local/, mode 0600, the same on the next start', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'monitor-key-'));
  const key = localMonitorKey(dir);
  expect(key.length).toBeGreaterThanOrEqual(40);
  expect(statSync(path.join(dir, 'monitor-key')).mode & 0o777).toBe(0o600);
  expect(localMonitorKey(dir)).toBe(key);
});

test('signature: v1,base64(HMAC-SHA256(id.timestamp.body)), verified by the standardwebhooks package', () => {
  const secret = newSecret();
  const ts = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ type: 'monitor.test', timestamp: new Date().toISOString(), data: {} });
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': sign(secret, 'msg_1', ts, body) };
  expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
});

test("the local receiver's few-line verification (scripts/webhook-receiver.ts) accepts our signature and refuses a changed body", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { verify } = require('../../../scripts/webhook-receiver') as typeof import('../../../scripts/webhook-receiver');
  const secret = newSecret();
  const ts = Math.floor(Date.now() / 1000);
  const body = '{"type":"items.new","timestamp":"2026-11-29T00:00:00.000Z","data":{}}';
  const headers = { 'webhook-id': 'msg_2', 'webhook-timestamp': String(ts), 'webhook-signature': sign(secret, 'msg_2', ts, body) };
  expect(verify(secret, headers, body)).toBe(true);
  expect(verify(secret, headers, body.replace('items', 'itemz'))).toBe(false);
  expect(verify(secret, { ...headers, 'webhook-timestamp': String(ts - 3600) }, body)).toBe(false);
});
