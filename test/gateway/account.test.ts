import { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { BAD_ORIGIN, BAD_TOKEN, NOT_SIGNED_IN, SIGN_IN_FAILED, accountHandler } from '../../shared/account/api';
import { invite } from '../../shared/account/members';
import { findKey, listKeys } from '../../shared/auth/keys';
import { config } from '../../shared/config';
import { db } from '../../shared/db/client';
import { operation } from '../../shared/operations';
import { scenarios } from '../contract/scenarios';
import { AccountClient, signedInMember } from '../support/account';
import { startHarness, type Harness } from '../support/harness';

/** The dashboard's account API through the local gateway (sessions, isolation, Origin, throttling). */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.stop());

const CLIP = operation('livestream-clip');
const clip = scenarios['livestream-clip']!;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

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
    expect(item.passwordHash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
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

  test('the session cookie: random, HttpOnly, SameSite=Strict, scoped to the account API; stored only hashed', async () => {
    const m = await signedInMember(h);
    const set = m.signIn.headers.get('set-cookie')!;
    expect(set).toMatch(/^sda_session=[A-Za-z0-9_-]{43}; Path=\/v1\/account; Max-Age=28800; HttpOnly; SameSite=Strict$/);
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
    expect(res.headers!['set-cookie']).toMatch(/; Path=\/prod\/v1\/account; Max-Age=\d+; HttpOnly; Secure; SameSite=Strict$/);
  });
});

describe('sign-in failures', () => {
  test('unknown e-mail, wrong password, no password yet, throttled: one status, one message', async () => {
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

  test('per e-mail: after 10 failures in the window even the right password is refused, with the same message', async () => {
    const m = await signedInMember(h);
    const c = new AccountClient(h);
    for (let i = 0; i < 10; i++) expect((await c.post('/v1/account/sign-in', { email: m.email, password: `wrong password ${i}` })).status).toBe(401);
    const right = await c.post('/v1/account/sign-in', { email: m.email, password: m.password });
    expect(right.status).toBe(401);
    expect(right.body.error.message).toBe(SIGN_IN_FAILED);
    expect(right.headers.get('set-cookie')).toBeNull();
    // Counted in the table with an expiry.
    const window = String(Math.floor(Date.now() / 1000 / 900) * 900);
    const item = (await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: `THROTTLE#email#${m.email}`, sk: window } }))).Item;
    expect(item).toMatchObject({ failures: 10, expiresAt: expect.any(Number) });
  });

  test('per address: failures across many e-mails lock the address out', async () => {
    const m = await signedInMember(h);
    const saved = process.env.SIGN_IN_FAILURES_PER_ADDRESS;
    process.env.SIGN_IN_FAILURES_PER_ADDRESS = '3';
    try {
      const c = new AccountClient(h);
      for (let i = 0; i < 3; i++) await c.post('/v1/account/sign-in', { email: `spray-${i}@example.com`, password: 'guess guess guess' });
      const right = await c.post('/v1/account/sign-in', { email: m.email, password: m.password });
      expect(right.status).toBe(401);
      expect(right.body.error.message).toBe(SIGN_IN_FAILED);
    } finally {
      if (saved === undefined) delete process.env.SIGN_IN_FAILURES_PER_ADDRESS;
      else process.env.SIGN_IN_FAILURES_PER_ADDRESS = saved;
    }
  });
});

describe('sessions', () => {
  test('sign-out ends the session at once; the old cookie is refused', async () => {
    const m = await signedInMember(h);
    const old = m.client.cookie!;
    expect((await m.client.get('/v1/account/me')).status).toBe(200);
    const out = await m.client.post('/v1/account/sign-out');
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^sda_session=; Path=\/v1\/account; Max-Age=0/);
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

  test('no cookie, a forged cookie, or an API key: not signed in', async () => {
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
    expect(data.days.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), operations: { 'livestream-clip': { live: 1, hits: 1, credits: 1 } } });
    expect(data.totals).toEqual({ requests: 2, live: 1, hits: 1, credits: 1, cacheHitShare: 0.5 });
    expect(data.byOperation).toEqual({ 'livestream-clip': { requests: 2, hits: 1, credits: 1, cacheHitShare: 0.5 } });
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
