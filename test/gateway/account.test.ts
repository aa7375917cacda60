import crypto, { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { BAD_ORIGIN, BAD_TOKEN, NOT_SIGNED_IN, NOT_YOUR_KEY, SIGN_IN_FAILED, SIGN_IN_THROTTLED, accountHandler } from '../../shared/account/api';
import { OWNERS_ONLY } from '../../shared/account/team';
import { invite } from '../../shared/auth/members';
import { currentParams, hashPassword } from '../../shared/auth/passwords';
import { findKey, listKeys } from '../../shared/auth/keys';
import { config } from '../../shared/runtime/config';
import { db } from '../../shared/db/client';
import { operation } from '../../shared/operations';
import { scenarios } from '../contract/scenarios';
import { AccountClient, signedInMember } from '../support/account';
import { startHarness, type Harness } from '../support/harness';

/** The dashboard's account API through the local gateway (sessions, isolation, Origin, throttling, member lifecycle). */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  // Every test here signs in from 127.0.0.1; the per-address cap has tests of its own.
  process.env.SIGN_IN_ATTEMPTS_PER_ADDRESS = '100000';
});
afterAll(async () => h.stop());

const CLIP = operation('livestream-clip');
const clip = scenarios['livestream-clip']!;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const memberItem = async (email: string) => (await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: `MEMBER#${email}`, sk: 'MEMBER' }, ConsistentRead: true }))).Item!;

/** The account function called as API Gateway would, from a given client address (the local gateway's is always 127.0.0.1). */
async function from(address: string, method: string, path: string, body?: unknown, cookie?: string) {
  const host = 'abc.execute-api.eu-west-1.amazonaws.com';
  const res = await accountHandler({
    httpMethod: method,
    path,
    resource: path,
    headers: { Host: host, 'X-Forwarded-Proto': 'https', Origin: `https://${host}`, ...(cookie ? { Cookie: cookie } : {}) },
    body: body === undefined ? null : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: { requestId: `direct-${Math.random()}`, path: `/prod${path}`, identity: { sourceIp: address } },
  } as never);
  return { status: res.statusCode, headers: res.headers ?? {}, cookies: (res.multiValueHeaders?.['set-cookie'] ?? []).map(String), body: JSON.parse(res.body) };
}

describe('invitation, password, sign-in', () => {
  test('the invite link sets a password once; it is stored only as a salted scrypt hash', async () => {
    const team = await h.team(10);
    const { token } = await invite(team.teamId, 'Ada@Example.com');
    const c = new AccountClient(h);
    expect((await c.post('/v1/account/password', { token, password: 'short' })).status).toBe(422);
    const set = await c.post('/v1/account/password', { token, password: 'a long enough password' });
    expect(set).toMatchObject({ status: 200, body: { data: { email: 'ada@example.com' } } });
    const again = await c.post('/v1/account/password', { token, password: 'another long password' });
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({ code: 'BAD_REQUEST', message: BAD_TOKEN, requestId: again.headers.get('x-request-id') });

    const item = (await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: 'MEMBER#ada@example.com', sk: 'MEMBER' } }))).Item!;
    const { N, r, p } = currentParams();
    expect(item.passwordHash).toMatch(new RegExp(`^scrypt\\$${N}\\$${r}\\$${p}\\$[A-Za-z0-9+/=]{24}\\$[A-Za-z0-9+/=]{44}$`));
    expect(JSON.stringify(item)).not.toContain('a long enough password');
    // The same password of another member gets another salt, so another hash.
    const { token: t2 } = await invite(team.teamId, 'bob@example.com');
    await c.post('/v1/account/password', { token: t2, password: 'a long enough password' });
    const bob = (await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: 'MEMBER#bob@example.com', sk: 'MEMBER' } }))).Item!;
    expect(bob.passwordHash).not.toBe(item.passwordHash);

    const signIn = await c.post('/v1/account/sign-in', { email: 'ADA@example.com', password: 'a long enough password' });
    expect(signIn.status).toBe(200);
    expect(signIn.body.data).toMatchObject({ email: 'ada@example.com', team: { teamId: team.teamId } });
  });

  test('an invitation expires after 24 hours', async () => {
    const team = await h.team(1);
    const { token } = await invite(team.teamId, 'late@example.com', Date.now() - 24 * 3600 * 1000 - 1000);
    const res = await new AccountClient(h).post('/v1/account/password', { token, password: 'a long enough password' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(BAD_TOKEN);
  });

  test('an e-mail belongs to one team only', async () => {
    const a = await h.team(1);
    const b = await h.team(1);
    await invite(a.teamId, 'one-team@example.com');
    await expect(invite(b.teamId, 'one-team@example.com')).rejects.toThrow('another team');
  });

  test('the session cookie: random, HttpOnly, SameSite=Strict, scoped to /v1 (account and monitors APIs), the old /v1/account one cleared; stored only hashed', async () => {
    const m = await signedInMember(h);
    const [set, old, ...more] = m.signIn.headers.getSetCookie();
    expect(set).toMatch(/^sda_session=[A-Za-z0-9_-]{43}; Path=\/v1; Max-Age=28800; HttpOnly; SameSite=Strict$/);
    expect(old).toBe('sda_session=; Path=/v1/account; Max-Age=0; HttpOnly; SameSite=Strict');
    expect(more).toEqual([]);
    const id = m.client.cookie!.split('=')[1]!;
    const stored = await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: `SESSION#${sha256(id)}`, sk: 'SESSION' } }));
    expect(stored.Item).toMatchObject({ teamId: m.teamId, email: m.email });
    expect(JSON.stringify(stored.Item)).not.toContain(id);
    expect((await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: `SESSION#${id}`, sk: 'SESSION' } }))).Item).toBeUndefined();
  });

  test('the function itself always sends Secure; only the local gateway over http drops it', async () => {
    const m = await signedInMember(h);
    const res = await accountHandler({
      httpMethod: 'POST',
      path: '/v1/account/sign-in',
      resource: '/v1/account/sign-in',
      headers: { Host: 'abc.execute-api.eu-west-1.amazonaws.com', 'X-Forwarded-Proto': 'https', Origin: 'https://abc.execute-api.eu-west-1.amazonaws.com' },
      body: JSON.stringify({ email: m.email, password: m.password }),
      isBase64Encoded: false,
      requestContext: { requestId: 'direct', path: '/prod/v1/account/sign-in', identity: { sourceIp: '198.51.100.7' } },
    } as never);
    expect(res.statusCode).toBe(200);
    const [set, old] = res.multiValueHeaders!['set-cookie']!.map(String);
    expect(set).toMatch(/; Path=\/prod\/v1; Max-Age=\d+; HttpOnly; Secure; SameSite=Strict$/);
    expect(old).toBe('sda_session=; Path=/prod/v1/account; Max-Age=0; HttpOnly; Secure; SameSite=Strict');
  });
});

describe('sign-in failures and throttling', () => {
  test('unknown e-mail, wrong password, no password yet: one status, one message', async () => {
    const m = await signedInMember(h);
    const team = await h.team(1);
    await invite(team.teamId, 'not-set-yet@example.com');
    const c = new AccountClient(h);
    const answers = [
      await c.post('/v1/account/sign-in', { email: 'nobody@example.com', password: 'whatever it is here' }),
      await c.post('/v1/account/sign-in', { email: m.email, password: 'wrong password, long' }),
      await c.post('/v1/account/sign-in', { email: 'not-set-yet@example.com', password: 'whatever it is here' }),
      await c.post('/v1/account/sign-in', { email: 'not an email', password: '' }),
    ];
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(a.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: SIGN_IN_FAILED });
      expect(a.headers.get('set-cookie')).toBeNull();
    }
  });

  test('a wrong password of a member, any password of an unknown e-mail or of a member without one: the same scrypt work (issue 30.4)', async () => {
    const m = await signedInMember(h);
    const team = await h.team(1);
    const pending = `pending-${Date.now()}@example.com`;
    await invite(team.teamId, pending);
    const scrypt = jest.spyOn(crypto, 'scrypt');
    // What the answer's time is made of: each scrypt call's output length and cost parameters.
    const work = async (email: string) => {
      scrypt.mockClear();
      const answer = await from('198.51.100.30', 'POST', '/v1/account/sign-in', { email, password: 'a wrong password, long enough' });
      expect(answer.status).toBe(401);
      return scrypt.mock.calls.map((call) => {
        const options = call[3] as { N: number; r: number; p: number };
        return { bytes: call[2], N: options.N, r: options.r, p: options.p };
      });
    };
    try {
      const member = await work(m.email);
      const { N, r, p } = currentParams();
      expect(member).toEqual([{ bytes: 32, N, r, p }]);
      expect(await work(`nobody-${Date.now()}@example.com`)).toEqual(member);
      expect(await work(pending)).toEqual(member);
      expect(await work('not an e-mail at all')).toEqual(member);
    } finally {
      scrypt.mockRestore();
    }
  });

  test('a member signs in again days after their last sign-in, and changes their password (issue 30.3: the clock moved by the test)', async () => {
    const m = await signedInMember(h);
    const address = '198.51.100.31';
    const first = await from(address, 'POST', '/v1/account/sign-in', { email: m.email, password: m.password });
    expect(first.status).toBe(200);
    const t0 = Date.now();
    const now = jest.spyOn(Date, 'now').mockReturnValue(t0 + 3 * 24 * 3600_000);
    try {
      const again = await from(address, 'POST', '/v1/account/sign-in', { email: m.email, password: m.password });
      expect(again.status).toBe(200);
      const cookie = again.cookies[0]!.split(';')[0]!;
      const changed = await from(address, 'POST', '/v1/account/me/password', { currentPassword: m.password, password: 'another long password' }, cookie);
      expect(changed.status).toBe(200);
      now.mockReturnValue(t0 + 6 * 24 * 3600_000);
      expect((await from(address, 'POST', '/v1/account/sign-in', { email: m.email, password: 'another long password' })).status).toBe(200);
    } finally {
      now.mockRestore();
    }
  });

  test('50 parallel wrong guesses through the gateway: at most the limit (10) are evaluated, the rest are 429 with Retry-After', async () => {
    const m = await signedInMember(h);
    const scrypt = jest.spyOn(crypto, 'scrypt');
    try {
      const c = new AccountClient(h);
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => c.post('/v1/account/sign-in', { email: m.email, password: `wrong password number ${i}` })));
      const evaluated = scrypt.mock.calls.length;
      expect(evaluated).toBeGreaterThan(0);
      expect(evaluated).toBeLessThanOrEqual(10);
      expect(answers.filter((a) => a.status === 401)).toHaveLength(evaluated);
      const throttled = answers.filter((a) => a.status === 429);
      expect(throttled).toHaveLength(50 - evaluated);
      for (const a of throttled) {
        expect(a.body.error).toMatchObject({ code: 'RATE_LIMITED', message: SIGN_IN_THROTTLED });
        expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(a.headers.get('set-cookie')).toBeNull();
      }
      // From this address even the right password now waits (and is not evaluated) ...
      scrypt.mockClear();
      const right = await c.post('/v1/account/sign-in', { email: m.email, password: m.password });
      expect(right.status).toBe(429);
      expect(scrypt).not.toHaveBeenCalled();
    } finally {
      scrypt.mockRestore();
    }
    // ... while the member, from their own address, signs in as usual: no lock-out from elsewhere.
    const own = await from('203.0.113.50', 'POST', '/v1/account/sign-in', { email: m.email, password: m.password });
    expect(own.status).toBe(200);
   }, 120_000);

  test('a throttled attempt answers the same for a known and an unknown e-mail', async () => {
    const m = await signedInMember(h);
    const answers = [];
    for (const email of [m.email, `nobody-${Date.now()}@example.com`]) {
      for (let i = 0; i < 10; i++) expect((await from('198.51.100.20', 'POST', '/v1/account/sign-in', { email, password: `wrong password ${i}` })).status).toBe(401);
      answers.push(await from('198.51.100.20', 'POST', '/v1/account/sign-in', { email, password: 'wrong once more' }));
    }
    for (const a of answers) {
      expect(a.status).toBe(429);
      expect(a.headers['retry-after']).toBe('60');
    }
    const [known, unknown] = answers.map((a) => ({ ...a.body.error, requestId: undefined }));
    expect(known).toEqual(unknown);
   }, 120_000);

  test('a success clears the count of its e-mail and address', async () => {
    const m = await signedInMember(h);
    for (let i = 0; i < 9; i++) await from('198.51.100.21', 'POST', '/v1/account/sign-in', { email: m.email, password: `wrong password ${i}` });
    expect((await from('198.51.100.21', 'POST', '/v1/account/sign-in', { email: m.email, password: m.password })).status).toBe(200);
    for (let i = 0; i < 10; i++) expect((await from('198.51.100.21', 'POST', '/v1/account/sign-in', { email: m.email, password: `wrong again ${i}` })).status).toBe(401);
    expect((await from('198.51.100.21', 'POST', '/v1/account/sign-in', { email: m.email, password: m.password })).status).toBe(429);
  });

  test('per address: attempts across many e-mails hit a looser cap, then even a right password waits', async () => {
    const m = await signedInMember(h);
    const saved = process.env.SIGN_IN_ATTEMPTS_PER_ADDRESS;
    process.env.SIGN_IN_ATTEMPTS_PER_ADDRESS = '3';
    try {
      for (let i = 0; i < 3; i++) expect((await from('198.51.100.22', 'POST', '/v1/account/sign-in', { email: `spray-${i}@example.com`, password: 'guess guess guess' })).status).toBe(401);
      const right = await from('198.51.100.22', 'POST', '/v1/account/sign-in', { email: m.email, password: m.password });
      expect(right.status).toBe(429);
      expect(right.body.error).toMatchObject({ code: 'RATE_LIMITED', message: SIGN_IN_THROTTLED });
      expect((await from('198.51.100.23', 'POST', '/v1/account/sign-in', { email: m.email, password: m.password })).status).toBe(200);
    } finally {
      process.env.SIGN_IN_ATTEMPTS_PER_ADDRESS = saved;
    }
  });
});

describe('password hashing', () => {
  test('a hash of older parameters is replaced by one of today\'s at the next successful sign-in (not at a failed one)', async () => {
    const m = await signedInMember(h);
    const old = await hashPassword(m.password, { N: 2 ** 4, r: 8, p: 1 });
    await db().send(
      new UpdateCommand({ TableName: config.accountsTable, Key: { pk: `MEMBER#${m.email}`, sk: 'MEMBER' }, UpdateExpression: 'SET passwordHash = :h', ExpressionAttributeValues: { ':h': old } }),
    );
    expect((await new AccountClient(h).post('/v1/account/sign-in', { email: m.email, password: 'not the password at all' })).status).toBe(401);
    expect((await memberItem(m.email)).passwordHash).toBe(old);
    expect((await new AccountClient(h).post('/v1/account/sign-in', { email: m.email, password: m.password })).status).toBe(200);
    const upgraded = (await memberItem(m.email)).passwordHash as string;
    const { N, r, p } = currentParams();
    expect(upgraded.startsWith(`scrypt$${N}$${r}$${p}$`)).toBe(true);
    expect(upgraded).not.toBe(old);
    expect((await new AccountClient(h).post('/v1/account/sign-in', { email: m.email, password: m.password })).status).toBe(200);
    expect((await memberItem(m.email)).passwordHash).toBe(upgraded);
  });
});

describe('sessions', () => {
  test('sign-out ends the session at once; the old cookie is refused', async () => {
    const m = await signedInMember(h);
    const old = m.client.cookie!;
    expect((await m.client.get('/v1/account/me')).status).toBe(200);
    const out = await m.client.post('/v1/account/sign-out');
    expect(out.status).toBe(200);
    // Cleared at /v1 and at the path of before (/v1/account), so no old cookie outlives the sign-out.
    expect(out.headers.getSetCookie()).toEqual(['sda_session=; Path=/v1; Max-Age=0; HttpOnly; SameSite=Strict', 'sda_session=; Path=/v1/account; Max-Age=0; HttpOnly; SameSite=Strict']);
    const after = await m.client.get('/v1/account/me', { cookie: old });
    expect(after.status).toBe(401);
    expect(after.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: NOT_SIGNED_IN });
    expect((await m.client.get('/v1/account/keys', { cookie: old })).status).toBe(401);
  });

  test('a session past its expiry is refused (even before the TTL removes it)', async () => {
    const m = await signedInMember(h);
    const id = m.client.cookie!.split('=')[1]!;
    await db().send(
      new UpdateCommand({
        TableName: config.accountsTable,
        Key: { pk: `SESSION#${sha256(id)}`, sk: 'SESSION' },
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    expect((await m.client.get('/v1/account/me')).status).toBe(401);
  });

  test('no cookie, a forged cookie, or an API key (outside the key-readable reads): not signed in', async () => {
    const m = await signedInMember(h);
    const c = new AccountClient(h);
    expect((await c.get('/v1/account/me')).status).toBe(401);
    expect((await c.get('/v1/account/me', { cookie: `sda_session=${'A'.repeat(43)}` })).status).toBe(401);
    for (const headers of [{ 'x-api-key': m.key }, { authorization: `Bearer ${m.key}` }] as Record<string, string>[]) {
      const res = await c.get('/v1/account/keys', { headers });
      expect(res.status).toBe(401);
      expect(res.body.error.message).toBe(NOT_SIGNED_IN);
      expect((await c.post('/v1/account/keys', { name: 'via api key' }, { headers })).status).toBe(401);
    }
    expect(await listKeys(m.teamId)).toHaveLength(1);
  });

  test('a session cookie never calls the data API', async () => {
    const m = await signedInMember(h);
    clip.routes(h.fake);
    const res = await h.call(CLIP.path, clip.query, { headers: { cookie: m.client.cookie! } });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('Origin on state-changing requests', () => {
  test.each([
    ['missing', null],
    ['another site', 'https://evil.example'],
    ['same host, other scheme', 'https://127.0.0.1'],
  ])('%s Origin -> 400, nothing changed', async (_n, origin) => {
    const m = await signedInMember(h);
    const create = await m.client.post('/v1/account/keys', { name: 'csrf' }, { origin });
    expect(create.status).toBe(400);
    expect(create.body.error).toMatchObject({ code: 'BAD_REQUEST', message: BAD_ORIGIN });
    const [only] = await listKeys(m.teamId);
    expect((await m.client.request('DELETE', `/v1/account/keys/${only!.keyId}`, undefined, { origin })).status).toBe(400);
    expect((await m.client.request('PATCH', `/v1/account/keys/${only!.keyId}`, { name: 'x' }, { origin })).status).toBe(400);
    expect((await m.client.post('/v1/account/sign-out', {}, { origin })).status).toBe(400);
    expect((await m.client.get('/v1/account/me')).status).toBe(200); // still signed in
    expect(await listKeys(m.teamId)).toEqual([expect.objectContaining({ name: 'test', revokedAt: undefined })]);
  });
});

describe('keys, credits, usage', () => {
  test('create (secret once), list (never the secret), rename, revoke -> the next data request is 401', async () => {
    const m = await signedInMember(h, 20);
    const created = await m.client.post('/v1/account/keys', { name: '  ci runner ' });
    expect(created.status).toBe(201);
    const key = created.body.data.key;
    expect(key).toMatchObject({ name: 'ci runner', status: 'active', lastUsedAt: null, revokedAt: null, secret: expect.stringMatching(/^[A-Za-z0-9]{28}$/) });
    expect((await findKey(key.secret))?.teamId).toBe(m.teamId);

    const listed = await m.client.get('/v1/account/keys');
    expect(listed.body.data.keys.map((k: { name: string }) => k.name)).toEqual(['ci runner', 'test']);
    expect(JSON.stringify(listed.body)).not.toContain(key.secret);
    expect(JSON.stringify(listed.body)).not.toContain('usage');

    clip.routes(h.fake);
    expect((await h.call(CLIP.path, clip.query, { key: key.secret })).status).toBe(200);
    const used = (await m.client.get('/v1/account/keys')).body.data.keys.find((k: { keyId: string }) => k.keyId === key.keyId);
    expect(Date.parse(used.lastUsedAt)).toBeGreaterThan(Date.now() - 60_000);

    const renamed = await m.client.request('PATCH', `/v1/account/keys/${key.keyId}`, { name: 'nightly' });
    expect(renamed.body.data.key).toMatchObject({ keyId: key.keyId, name: 'nightly' });
    expect((await m.client.request('PATCH', `/v1/account/keys/${key.keyId}`, { name: '' })).status).toBe(422);

    const revoked = await m.client.request('DELETE', `/v1/account/keys/${key.keyId}`);
    expect(revoked.body.data.key).toMatchObject({ keyId: key.keyId, status: 'revoked', revokedAt: expect.any(String) });
    expect((await h.call(CLIP.path, clip.query, { key: key.secret })).status).toBe(401);
    expect((await h.call(CLIP.path, clip.query, { key: m.key })).status).toBe(200); // the other key still works
  });

  test('one team can never read or change another team\'s keys', async () => {
    const a = await signedInMember(h);
    const b = await signedInMember(h);
    const [bKey] = await listKeys(b.teamId);
    const aList = (await a.client.get('/v1/account/keys')).body.data.keys;
    expect(aList.map((k: { keyId: string }) => k.keyId)).not.toContain(bKey!.keyId);
    const rename = await a.client.request('PATCH', `/v1/account/keys/${bKey!.keyId}`, { name: 'hijacked' });
    expect(rename.status).toBe(404);
    expect(rename.body.error.code).toBe('NOT_FOUND');
    expect((await a.client.request('DELETE', `/v1/account/keys/${bKey!.keyId}`)).status).toBe(404);
    const [after] = await listKeys(b.teamId);
    expect(after).toMatchObject({ name: 'test', revokedAt: undefined });
    clip.routes(h.fake);
    expect((await h.call(CLIP.path, clip.query, { key: b.key })).status).toBe(200);
    // A's credits and usage are A's own.
    const credits = (await a.client.get('/v1/account/credits')).body.data;
    expect(credits).toEqual({ balance: 100, charges: [] });
  });

  test('credits: the balance and recent charges; usage: requests, credits and cache hits per day and operation', async () => {
    const m = await signedInMember(h, 10);
    clip.routes(h.fake);
    const live = await h.call(CLIP.path, clip.query, { key: m.key });
    await h.call(CLIP.path, { ...clip.query, cache_max_age: '1d' }, { key: m.key });
    const credits = (await m.client.get('/v1/account/credits')).body.data;
    expect(credits).toEqual({ balance: 9, charges: [{ time: live.body.data.fetchedAt, operation: 'livestream-clip', requestId: live.body.meta.requestId, credits: 1 }] });

    const usage = await m.client.get('/v1/account/usage?days=30');
    expect(usage.status).toBe(200);
    const data = usage.body.data;
    expect(data.days).toHaveLength(30);
    expect(data.days.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), operations: { 'livestream-clip': { live: 1, hits: 1, errors: {}, credits: 1 } } });
    const summary = { requests: 2, live: 1, hits: 1, errorCount: 0, credits: 1, cacheHitShare: 0.5, byStatus: { 200: 2 }, byCode: {} };
    expect(data.totals).toEqual(summary);
    expect(data.byOperation).toEqual({ 'livestream-clip': summary });
    for (const days of ['0', '91', 'x']) expect((await m.client.get(`/v1/account/usage?days=${days}`)).status).toBe(422);
  });

  test('an unknown account route or method is 404 in the error envelope', async () => {
    const m = await signedInMember(h);
    for (const [method, path] of [['GET', '/v1/account/nope'], ['PUT', '/v1/account/keys'], ['GET', '/v1/account/sign-in']]) {
      const res = await m.client.request(method!, path!);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });
});

let joined = 0;
/** Another member of an existing team, signed in (a fresh browser). */
async function joinTeam(teamId: string, password = 'another long password') {
  const email = `colleague-${Date.now().toString(36)}-${joined++}@example.com`;
  const { token } = await invite(teamId, email);
  const client = new AccountClient(h);
  expect((await client.post('/v1/account/password', { token, password })).status).toBe(200);
  expect((await client.post('/v1/account/sign-in', { email, password })).status).toBe(200);
  const memberId = (await client.get('/v1/account/me')).body.data.memberId as string;
  return { email, password, client, memberId };
}
/** A second browser of the same member. */
async function signInAgain(email: string, password: string) {
  const client = new AccountClient(h);
  expect((await client.post('/v1/account/sign-in', { email, password })).status).toBe(200);
  return client;
}

describe('member lifecycle', () => {
  test('the team\'s members are listed; removing one ends their sessions at once, their links and sign-in stop working', async () => {
    const a = await signedInMember(h);
    const b = await joinTeam(a.teamId);
    const b2 = await signInAgain(b.email, b.password);
    const { token: pending } = await invite(a.teamId, b.email); // an unused reset link of b's
    const listed = await a.client.get('/v1/account/members');
    expect(listed.status).toBe(200);
    expect(listed.body.data.members).toEqual([
      expect.objectContaining({ email: a.email, status: 'active', you: true }),
      expect.objectContaining({ email: b.email, memberId: b.memberId, status: 'active', you: false }),
    ]);

    const removed = await a.client.request('DELETE', `/v1/account/members/${b.memberId}`);
    expect(removed.status).toBe(200);
    expect(removed.body.data.removed).toEqual({ memberId: b.memberId, email: b.email });
    for (const c of [b.client, b2]) {
      const res = await c.get('/v1/account/keys');
      expect(res.status).toBe(401);
      expect(res.body.error.message).toBe(NOT_SIGNED_IN);
    }
    expect((await new AccountClient(h).post('/v1/account/sign-in', { email: b.email, password: b.password })).status).toBe(401);
    expect((await new AccountClient(h).post('/v1/account/password', { token: pending, password: 'a brand new password' })).status).toBe(400);
    expect((await a.client.get('/v1/account/members')).body.data.members.map((x: { email: string }) => x.email)).toEqual([a.email]);
    expect((await a.client.request('DELETE', `/v1/account/members/${b.memberId}`)).status).toBe(404);
    expect((await a.client.get('/v1/account/me')).status).toBe(200);

    // Invited again, they are a new member with a new id.
    const { token } = await invite(a.teamId, b.email);
    expect((await new AccountClient(h).post('/v1/account/password', { token, password: 'a brand new password' })).status).toBe(200);
    const again = (await a.client.get('/v1/account/members')).body.data.members.find((x: { email: string }) => x.email === b.email);
    expect(again.memberId).not.toBe(b.memberId);
  });

  test('roles (issue 30.6): only an owner removes members or handles another member\'s sessions and keys; a member manages their own', async () => {
    const owner = await signedInMember(h);
    const b = await joinTeam(owner.teamId);
    const c = await joinTeam(owner.teamId);
    const ownerId = (await owner.client.get('/v1/account/me')).body.data.memberId as string;
    expect((await owner.client.get('/v1/account/me')).body.data.role).toBe('owner');
    expect((await b.client.get('/v1/account/me')).body.data.role).toBe('member');
    expect((await b.client.get('/v1/account/members')).body.data.members.map((m: { role: string }) => m.role)).toEqual(['owner', 'member', 'member']);

    // A member: no removal of anyone, no other member's sessions.
    for (const target of [ownerId, c.memberId]) {
      const refused = await b.client.request('DELETE', `/v1/account/members/${target}`);
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toBe(OWNERS_ONLY);
      expect((await b.client.get(`/v1/account/members/${target}/sessions`)).status).toBe(400);
      expect((await b.client.request('DELETE', `/v1/account/members/${target}/sessions`)).status).toBe(400);
    }
    expect((await owner.client.get('/v1/account/me')).status).toBe(200);
    expect((await c.client.get('/v1/account/me')).status).toBe(200);
    expect((await b.client.get(`/v1/account/members/${b.memberId}/sessions`)).status).toBe(200);

    // Keys: a member renames and revokes only what they hold; an owner any key of the team.
    const cKey = (await c.client.post('/v1/account/keys', { name: "c's key" })).body.data.key;
    const bKey = (await b.client.post('/v1/account/keys', { name: "b's key" })).body.data.key;
    expect(bKey.heldBy).toEqual({ kind: 'member', memberId: b.memberId, email: b.email });
    const cliKey = (await listKeys(owner.teamId)).find((k) => k.createdBy?.kind === 'cli')!;
    for (const keyId of [cKey.keyId, cliKey.keyId]) {
      const refused = await b.client.request('DELETE', `/v1/account/keys/${keyId}`);
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toBe(NOT_YOUR_KEY);
      expect((await b.client.request('PATCH', `/v1/account/keys/${keyId}`, { name: 'mine now' })).status).toBe(400);
    }
    expect((await b.client.request('PATCH', `/v1/account/keys/${bKey.keyId}`, { name: 'renamed' })).status).toBe(200);
    expect((await owner.client.request('PATCH', `/v1/account/keys/${cKey.keyId}`, { name: 'renamed by the owner' })).status).toBe(200);
    expect((await listKeys(owner.teamId)).filter((k) => k.revokedAt)).toEqual([]);
  });

  test("removing a member revokes the keys they hold at once, unless the owner transfers them; the team's own keys stay (issue 30.6)", async () => {
    const owner = await signedInMember(h);
    const b = await joinTeam(owner.teamId);
    const c = await joinTeam(owner.teamId);
    const ownerId = (await owner.client.get('/v1/account/me')).body.data.memberId as string;
    const secret = async (client: AccountClient, name: string) => (await client.post('/v1/account/keys', { name })).body.data.key as { keyId: string; secret: string };
    const [b1, b2, c1, o1] = [await secret(b.client, 'b one'), await secret(b.client, 'b two'), await secret(c.client, 'c one'), await secret(owner.client, 'owner one')];
    // A key works while the data API validates its request: 422 for a query without its url, 401 once revoked.
    const works = async (k: { secret: string }) => (await h.call(CLIP.path, {}, { key: k.secret })).status;
    for (const k of [b1, b2, c1, o1]) expect(await works(k)).toBe(422);

    const removedB = await owner.client.request('DELETE', `/v1/account/members/${b.memberId}`);
    expect(removedB.status).toBe(200);
    expect(removedB.body.data.keys.transferred).toEqual([]);
    expect([...removedB.body.data.keys.revoked].sort()).toEqual([b1.keyId, b2.keyId].sort());
    expect(await works(b1)).toBe(401);
    expect(await works(b2)).toBe(401);
    expect(await works(c1)).toBe(422);
    expect(await works(o1)).toBe(422);
    expect(await works({ secret: owner.key })).toBe(422); // the operator's key belongs to the team

    // Transferred to the owner: the key keeps working and is the owner's from now on.
    const bad = await owner.client.request('DELETE', `/v1/account/members/${c.memberId}`, { transferKeysTo: 'nobody' });
    expect(bad.status).toBe(422);
    expect(await works(c1)).toBe(422);
    const removedC = await owner.client.request('DELETE', `/v1/account/members/${c.memberId}`, { transferKeysTo: ownerId });
    expect(removedC.status).toBe(200);
    expect(removedC.body.data.keys).toEqual({ revoked: [], transferred: [c1.keyId] });
    expect(await works(c1)).toBe(422);
    const kept = (await owner.client.get('/v1/account/keys')).body.data.keys.find((k: { keyId: string }) => k.keyId === c1.keyId);
    expect(kept).toMatchObject({ status: 'active', createdBy: { kind: 'member', memberId: c.memberId }, heldBy: { kind: 'member', memberId: ownerId, email: owner.email } });
    expect((await c.client.get('/v1/account/me')).status).toBe(401);
  });

  test('a member cannot remove themselves here, nor anyone of another team', async () => {
    const a = await signedInMember(h);
    const other = await signedInMember(h);
    const self = await a.client.request('DELETE', `/v1/account/members/${(await a.client.get('/v1/account/me')).body.data.memberId}`);
    expect(self.status).toBe(400);
    const otherId = (await other.client.get('/v1/account/me')).body.data.memberId;
    expect((await a.client.request('DELETE', `/v1/account/members/${otherId}`)).status).toBe(404);
    expect((await a.client.get(`/v1/account/members/${otherId}/sessions`)).status).toBe(404);
    expect((await a.client.request('DELETE', `/v1/account/members/${otherId}/sessions`)).status).toBe(404);
    expect((await other.client.get('/v1/account/me')).status).toBe(200);
  });

  test('a member\'s sessions are listed and ended one by one or all at once', async () => {
    const a = await signedInMember(h);
    const b = await joinTeam(a.teamId);
    const b2 = await signInAgain(b.email, b.password);
    const list = await a.client.get(`/v1/account/members/${b.memberId}/sessions`);
    expect(list.status).toBe(200);
    const sessions = list.body.data.sessions;
    expect(sessions).toHaveLength(2);
    expect(sessions[0]).toEqual({ sessionId: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/), createdAt: expect.any(String), expiresAt: expect.any(String), address: '127.0.0.1', userAgent: expect.any(String), current: false });
    expect(JSON.stringify(list.body)).not.toContain(b.client.cookie!.split('=')[1]);

    // The newest is b2's: end it alone.
    const ended = await a.client.request('DELETE', `/v1/account/members/${b.memberId}/sessions/${sessions[0].sessionId}`);
    expect(ended.status).toBe(200);
    expect((await b2.get('/v1/account/me')).status).toBe(401);
    expect((await b.client.get('/v1/account/me')).status).toBe(200);
    expect((await a.client.request('DELETE', `/v1/account/members/${b.memberId}/sessions/${sessions[0].sessionId}`)).status).toBe(404);
    expect((await a.client.get(`/v1/account/members/${b.memberId}/sessions`)).body.data.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([sessions[1].sessionId]);

    // All of them.
    await signInAgain(b.email, b.password);
    expect((await a.client.request('DELETE', `/v1/account/members/${b.memberId}/sessions`)).status).toBe(200);
    expect((await b.client.get('/v1/account/me')).status).toBe(401);
    expect((await a.client.get(`/v1/account/members/${b.memberId}/sessions`)).body.data.sessions).toEqual([]);
    expect((await signInAgain(b.email, b.password).then((c) => c.get('/v1/account/me'))).status).toBe(200);
  });

  test('one\'s own sessions: the current one is marked, "end all" ends the others only', async () => {
    const a = await signedInMember(h);
    const other = await signInAgain(a.email, a.password);
    const me = (await a.client.get('/v1/account/me')).body.data.memberId;
    const list = (await a.client.get(`/v1/account/members/${me}/sessions`)).body.data.sessions;
    expect(list.map((s: { current: boolean }) => s.current).sort()).toEqual([false, true]);
    const res = await a.client.request('DELETE', `/v1/account/members/${me}/sessions`);
    expect(res.status).toBe(200);
    expect(res.body.data.sessions).toEqual([expect.objectContaining({ current: true })]);
    expect((await other.get('/v1/account/me')).status).toBe(401);
    expect((await a.client.get('/v1/account/me')).status).toBe(200);
  });

  test('changing one\'s password needs the current one and ends one\'s other sessions, not this one', async () => {
    const a = await signedInMember(h);
    const other = await signInAgain(a.email, a.password);
    const wrong = await a.client.post('/v1/account/me/password', { currentPassword: 'not my password at all', password: 'a new long password' });
    expect(wrong.status).toBe(400);
    expect((await other.get('/v1/account/me')).status).toBe(200);
    expect((await a.client.post('/v1/account/me/password', { currentPassword: a.password, password: 'short' })).status).toBe(422);
    const ok = await a.client.post('/v1/account/me/password', { currentPassword: a.password, password: 'a new long password' });
    expect(ok.status).toBe(200);
    expect((await other.get('/v1/account/me')).status).toBe(401);
    expect((await a.client.get('/v1/account/me')).status).toBe(200);
    expect((await new AccountClient(h).post('/v1/account/sign-in', { email: a.email, password: a.password })).status).toBe(401);
    expect((await new AccountClient(h).post('/v1/account/sign-in', { email: a.email, password: 'a new long password' })).status).toBe(200);
  });

  test('setting a new password from an invitation link ends every session of the member', async () => {
    const a = await signedInMember(h);
    const { token } = await invite(a.teamId, a.email);
    expect((await a.client.get('/v1/account/me')).status).toBe(200);
    expect((await new AccountClient(h).post('/v1/account/password', { token, password: 'a reset long password' })).status).toBe(200);
    expect((await a.client.get('/v1/account/me')).status).toBe(401);
  });

  test('a new invitation revokes the older links of the member', async () => {
    const team = await h.team(1);
    const first = await invite(team.teamId, 'twice@example.com');
    const second = await invite(team.teamId, 'twice@example.com');
    const c = new AccountClient(h);
    const old = await c.post('/v1/account/password', { token: first.token, password: 'a long enough password' });
    expect(old.status).toBe(400);
    expect(old.body.error.message).toBe(BAD_TOKEN);
    expect((await c.post('/v1/account/password', { token: second.token, password: 'a long enough password' })).status).toBe(200);
  });

  test('every key records who created it: a member (dashboard) or the CLI; shown in the key list', async () => {
    const m = await signedInMember(h);
    const created = await m.client.post('/v1/account/keys', { name: 'from the dashboard' });
    const memberId = (await m.client.get('/v1/account/me')).body.data.memberId;
    expect(created.body.data.key.createdBy).toEqual({ kind: 'member', memberId, email: m.email });
    const keys = (await m.client.get('/v1/account/keys')).body.data.keys;
    expect(Object.fromEntries(keys.map((k: { name: string; createdBy: unknown }) => [k.name, k.createdBy]))).toEqual({
      'from the dashboard': { kind: 'member', memberId, email: m.email },
      test: { kind: 'cli' },
    });
  });
});
