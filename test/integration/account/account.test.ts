import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { hashPassword, passwordProblem, verifyPassword } from '../../../shared/auth/passwords';
import { matchAccountRoute } from '../../../shared/api/account-routes';
import { sessionIdFromCookies } from '../../../shared/auth/sessions';
import { usage } from '../../../shared/accounting/usage';
import { config } from '../../../shared/runtime/config';
import { db } from '../../../shared/db/client';
import { ensureTables } from '../../../dev/tables';

describe('passwords', () => {
  test('scrypt with a random salt: the right password verifies, a wrong one or a tampered hash does not', async () => {
    const a = await hashPassword('tr0ub4dor & 3');
    const b = await hashPassword('tr0ub4dor & 3');
    expect(a).not.toBe(b);
    expect(await verifyPassword('tr0ub4dor & 3', a)).toBe(true);
    expect(await verifyPassword('tr0ub4dor & 4', a)).toBe(false);
    const parts = a.split('$');
    parts[5] = Buffer.alloc(32, 1).toString('base64');
    expect(await verifyPassword('tr0ub4dor & 3', parts.join('$'))).toBe(false);
    expect(await verifyPassword('tr0ub4dor & 3', 'plain-text')).toBe(false);
  });

  test('length rules', () => {
    expect(passwordProblem('x'.repeat(11))).toMatch(/at least 12/);
    expect(passwordProblem('x'.repeat(12))).toBeNull();
    expect(passwordProblem('x'.repeat(201))).toMatch(/at most 200/);
    expect(passwordProblem(undefined)).toMatch(/required/);
  });
});

test('routes: method and path (with a stage prefix), path parameters', () => {
  expect(matchAccountRoute('PATCH', '/prod/v1/account/keys/ab12cd34')).toMatchObject({ route: { name: 'renameKey' }, params: { keyId: 'ab12cd34' } });
  expect(matchAccountRoute('GET', '/v1/account/keys')?.route.name).toBe('listKeys');
  expect(matchAccountRoute('POST', '/v1/account/keys')?.route.name).toBe('createKey');
  expect(matchAccountRoute('GET', '/v1/account/keys/a/b')).toBeNull();
  expect(matchAccountRoute('PUT', '/v1/account/keys')).toBeNull();
});

test('the session id is read from its own cookie only', () => {
  expect(sessionIdFromCookies('a=1; sda_session=abc; b=2')).toBe('abc');
  expect(sessionIdFromCookies('xsda_session=abc')).toBeUndefined();
  expect(sessionIdFromCookies(undefined)).toBeUndefined();
});

test('usage: 30 days ending today, missing days as zeros, older and other teams\' counters left out; errors by code', async () => {
  await ensureTables();
  const now = Date.parse('2026-03-31T12:00:00Z');
  const put = (teamId: string, day: string, item: Record<string, number>) =>
    db().send(new PutCommand({ TableName: config.accountsTable, Item: { pk: `TEAM#${teamId}`, sk: `USAGE#${day}`, ...item } }));
  await put('u1', '2026-03-31', {
    'live:livestream-clip': 3,
    'credits:livestream-clip': 3,
    'hit:livestream-clip': 1,
    'hit:microblog-a-user-posts': 4,
    'error:livestream-clip:NOT_FOUND': 2,
    'error:livestream-clip:UPSTREAM_BLOCKED': 1,
    'error:livestream-clip:NO_SUCH_CODE': 7, // not a code of ours: left out
    'error:livestream-clip': 5, // no code: left out
  });
  await put('u1', '2026-03-02', { 'live:microblog-a-user-posts': 2, 'credits:microblog-a-user-posts': 2 });
  await put('u1', '2026-03-01', { 'live:microblog-a-user-posts': 50, 'credits:microblog-a-user-posts': 50 }); // 31 days ago
  await put('u2', '2026-03-31', { 'live:livestream-clip': 9, 'credits:livestream-clip': 9 });
  const r = await usage('u1', 30, now);
  expect(r.days.map((d) => d.day)).toEqual(Array.from({ length: 30 }, (_, i) => `2026-03-${String(i + 2).padStart(2, '0')}`));
  expect(r.days[0]!.operations).toEqual({ 'microblog-a-user-posts': { live: 2, hits: 0, errors: {}, credits: 2 } });
  expect(r.days[1]!.operations).toEqual({});
  expect(r.days[29]!.operations['livestream-clip']).toEqual({ live: 3, hits: 1, errors: { NOT_FOUND: 2, UPSTREAM_BLOCKED: 1 }, credits: 3 });
  expect(r.totals).toEqual({
    requests: 13,
    live: 5,
    hits: 5,
    errorCount: 3,
    credits: 5,
    cacheHitShare: 0.5,
    byStatus: { 200: 10, 404: 2, 503: 1 },
    byCode: { NOT_FOUND: 2, UPSTREAM_BLOCKED: 1 },
  });
  expect(r.byOperation).toEqual({
    'livestream-clip': { requests: 7, live: 3, hits: 1, errorCount: 3, credits: 3, cacheHitShare: 0.25, byStatus: { 200: 4, 404: 2, 503: 1 }, byCode: { NOT_FOUND: 2, UPSTREAM_BLOCKED: 1 } },
    'microblog-a-user-posts': { requests: 6, live: 2, hits: 4, errorCount: 0, credits: 2, cacheHitShare: 4 / 6, byStatus: { 200: 6 }, byCode: {} },
  });
});
