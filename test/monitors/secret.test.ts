import { Webhook } from 'standardwebhooks';
import { newSecret, openSecret, sealSecret, sign } from '../../shared/monitors/secret';

/** The signing secret: stored sealed (never as itself), and signing as the Standard Webhooks reference verifies. */
test('stored sealed under the pepper-derived key: the stored form reveals nothing, and a wrong pepper cannot open it', () => {
  process.env.KEY_PEPPER = 'pepper-one';
  const secret = newSecret();
  const sealed = sealSecret(secret);
  expect(sealed).not.toContain(secret.slice(6, 20));
  expect(openSecret(sealed)).toBe(secret);
  process.env.KEY_PEPPER = 'pepper-two';
  expect(() => openSecret(sealed)).toThrow();
  delete process.env.KEY_PEPPER;
});

test('signature: v1,base64(HMAC-SHA256(id.timestamp.body)), verified by the standardwebhooks package', () => {
  const secret = newSecret();
  const ts = Math.floor(Date.now() / 1000);
  const body = JSON.stringify({ type: 'monitor.test', timestamp: new Date().toISOString(), data: {} });
  const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': sign(secret, 'msg_1', ts, body) };
  expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
});
