import { proxyUrl } from '../../shared/runtime/config';
import { createHash, createHmac } from 'node:crypto';
import { pepper, storedHash } from '../../shared/auth/hashing';
import { loadSecrets, loaded, resetSecrets, type SecretClients } from '../../shared/runtime/secrets';

/** Issue 18.8: the cold-start loader of the secrets kept out of the function configuration, with a fake client (no AWS). */
const PROXY = 'http://user:pa55word@proxy.internal:3128';
const CURSOR = 'cursor-secret-from-secrets-manager';

function fake(fail = false) {
  const calls: string[] = [];
  const clients: SecretClients = {
    async secret(arnOrName) {
      calls.push(`secret ${arnOrName}`);
      if (fail) throw Object.assign(new Error(`AccessDenied for ${CURSOR}`), { name: 'AccessDeniedException' });
      return arnOrName.includes('proxy') ? PROXY : CURSOR;
    },
  };
  return { calls, make: async () => clients };
}

const saved = { ...process.env };
afterEach(() => {
  resetSecrets();
  for (const k of ['CURSOR_SECRET_ARN', 'SCRAPER_PROXY_SECRET_ARN', 'SCRAPER_PROXY_URL', 'CURSOR_SECRET', 'KEY_PEPPER_SECRET_ARN', 'KEY_PEPPER']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});

test('nothing configured: no client is made, nothing is loaded', async () => {
  delete process.env.CURSOR_SECRET_ARN;
  delete process.env.SCRAPER_PROXY_SECRET_ARN;
  const f = fake();
  let made = 0;
  await loadSecrets(async () => (made++, f.make()));
  expect(made).toBe(0);
  expect(loaded).toEqual({});
});

test('reads each secret once per cold start, however many requests arrive at once, and keeps it in memory', async () => {
  process.env.CURSOR_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:1:secret:cursor';
  process.env.SCRAPER_PROXY_SECRET_ARN = 'social-data/proxy-url';
  delete process.env.SCRAPER_PROXY_URL;
  const f = fake();
  await Promise.all([loadSecrets(f.make), loadSecrets(f.make), loadSecrets(f.make)]);
  await loadSecrets(f.make);
  expect(f.calls.sort()).toEqual(['secret arn:aws:secretsmanager:eu-west-1:1:secret:cursor', 'secret social-data/proxy-url']);
  expect(loaded).toEqual({ cursorSecret: CURSOR, proxyUrl: PROXY });
  expect(proxyUrl('microblog-a')).toBe(PROXY);
  // Never copied into the environment (which a crash dump or a child process would show).
  expect(JSON.stringify(process.env)).not.toContain('pa55word');
  expect(JSON.stringify(process.env)).not.toContain(CURSOR);
});

test('a plain variable (local, tests) still wins over the loaded value', async () => {
  process.env.SCRAPER_PROXY_SECRET_ARN = 'social-data/proxy-url';
  process.env.SCRAPER_PROXY_URL = 'http://127.0.0.1:9';
  await loadSecrets(fake().make);
  expect(proxyUrl('microblog-a')).toBe('http://127.0.0.1:9');
});

test('a failed read says which kind of error, never a value, and the next request tries again', async () => {
  process.env.CURSOR_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:1:secret:cursor';
  const failing = fake(true);
  const err = await loadSecrets(failing.make).then(() => null, (e: Error) => e);
  expect(err?.message).toBe('secrets could not be read at cold start: AccessDeniedException');
  expect(err?.message).not.toContain(CURSOR);
  const ok = fake();
  await loadSecrets(ok.make);
  expect(ok.calls).toEqual(['secret arn:aws:secretsmanager:eu-west-1:1:secret:cursor']);
  expect(loaded.cursorSecret).toBe(CURSOR);
});

test('the key pepper (18.7): read from KEY_PEPPER_SECRET_ARN at cold start, then keys and session ids are HMAC-SHA256 with it', async () => {
  delete process.env.KEY_PEPPER;
  const secret = 'Abcdefghijklmnopqrstuvwxyz12';
  const plain = createHash('sha256').update(secret).digest('hex');
  expect(pepper()).toBeUndefined();
  expect(storedHash(secret)).toBe(plain);

  process.env.KEY_PEPPER_SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:1:secret:pepper';
  const f = fake();
  await loadSecrets(f.make);
  expect(f.calls).toEqual(['secret arn:aws:secretsmanager:eu-west-1:1:secret:pepper']);
  expect(pepper()).toBe(CURSOR); // the fake answers every secret with the same value
  const peppered = createHmac('sha256', CURSOR).update(secret).digest('hex');
  expect(storedHash(secret)).toBe(peppered);
  expect(JSON.stringify(process.env)).not.toContain(CURSOR);
});
