import { run } from '../../scripts/admin';
import { findKey } from '../../shared/auth/keys';
import { ensureTables } from '../../dev/tables';

/** The admin CLI against DynamoDB Local, as an operator would use it. */
beforeAll(async () => {
  await ensureTables();
});

async function admin(...argv: string[]): Promise<string> {
  const lines: string[] = [];
  await run(argv, (l) => lines.push(l));
  return lines.join('\n');
}

test('team, credits, keys (secret shown once, never listed), revoke, usage', async () => {
  const created = await admin('team', 'create', '--name', 'acme', '--credits', '50');
  const teamId = created.match(/team ([0-9a-f-]{36})/)![1]!;
  expect(created).toContain('50 credits');

  const keyOut = await admin('key', 'create', '--team', teamId, '--name', 'ci');
  const secret = keyOut.match(/\n\s+([A-Za-z0-9]{28})\n/)![1]!;
  const keyId = keyOut.match(/key (\w+) "ci"/)![1]!;
  expect((await findKey(secret))?.teamId).toBe(teamId);

  const listed = await admin('key', 'list', '--team', teamId);
  expect(listed).toContain('"ci"');
  expect(listed).toContain('last used never');
  expect(listed).not.toContain(secret);

  expect(await admin('team', 'credits', '--team', teamId, '--add', '25')).toContain('balance now 75');
  expect(await admin('team', 'show', '--team', teamId)).toContain('75 credits');

  expect(await admin('key', 'revoke', '--team', teamId, '--key', keyId)).toContain('revoked');
  expect(await admin('key', 'list', '--team', teamId)).toContain('REVOKED');
  expect((await findKey(secret))?.revokedAt).toEqual(expect.any(String));

  expect(await admin('usage', '--team', teamId)).toContain('0 credits used in the last 7 days');
});

test('bad input is a clear error', async () => {
  await expect(admin('team', 'create')).rejects.toThrow('--name is required');
  await expect(admin('team', 'credits', '--team', 'x', '--add', '-3')).rejects.toThrow('--add must be positive');
  await expect(admin('key', 'revoke', '--team', 'nope', '--key', 'nope')).rejects.toThrow('no such key');
  await expect(admin('frobnicate')).rejects.toThrow('usage:');
});

test('member invite prints a one-time set-password link (24 h) on the given base; member list shows the state', async () => {
  const created = await admin('team', 'create', '--name', 'dash', '--credits', '5');
  const teamId = created.match(/team ([0-9a-f-]{36})/)![1]!;
  const out = await admin('member', 'invite', '--team', teamId, '--email', 'Carol@Example.com', '--base', 'https://api.example.com/prod/');
  const link = out.match(/\n\s+(https:\/\/\S+)\n/)![1]!;
  expect(link).toMatch(/^https:\/\/api\.example\.com\/prod\/dashboard\/set-password\?token=[A-Za-z0-9_-]{43}$/);
  const until = Date.parse(out.match(/valid until (\S+)\)/)![1]!);
  expect(until - Date.now()).toBeGreaterThan(23.9 * 3600_000);
  expect(until - Date.now()).toBeLessThanOrEqual(24 * 3600_000);
  expect(await admin('member', 'list', '--team', teamId)).toContain('carol@example.com  invited');
  const { setPassword } = await import('../../shared/auth/members');
  expect(await setPassword(new URL(link).searchParams.get('token')!, 'a long enough password')).toBe('carol@example.com');
  expect(await admin('member', 'list', '--team', teamId)).toContain('password set');
  await expect(admin('member', 'invite', '--team', 'nope', '--email', 'x@example.com')).rejects.toThrow('no team');
  await expect(admin('member', 'invite', '--team', teamId, '--email', 'not-an-email', '--base', 'https://a.example')).rejects.toThrow('not an e-mail');
});

test('member lifecycle: sessions listed and ended, a member removed (sessions end at once); keys show who created them', async () => {
  const { setPassword, getMember } = await import('../../shared/auth/members');
  const { startSession, findSession } = await import('../../shared/auth/sessions');
  const created = await admin('team', 'create', '--name', 'life', '--credits', '5');
  const teamId = created.match(/team ([0-9a-f-]{36})/)![1]!;
  const link = (await admin('member', 'invite', '--team', teamId, '--email', 'dan@example.com', '--base', 'https://a.example')).match(/\n\s+(https:\/\/\S+)\n/)![1]!;
  expect(await setPassword(new URL(link).searchParams.get('token')!, 'a long enough password')).toBe('dan@example.com');
  const member = (await getMember('dan@example.com'))!;
  const one = await startSession(member, { address: '198.51.100.1', userAgent: 'Firefox' });
  const two = await startSession(member, { address: '198.51.100.2', userAgent: 'Safari' });

  const sessions = await admin('member', 'sessions', '--team', teamId, '--email', 'Dan@Example.com');
  expect(sessions).toContain(`session ${one.session.sessionId}`);
  expect(sessions).toContain(`session ${two.session.sessionId}`);
  expect(sessions).toContain('from 198.51.100.2  Safari');
  expect(sessions).not.toContain(one.id);

  expect(await admin('member', 'end-sessions', '--team', teamId, '--email', 'dan@example.com', '--session', one.session.sessionId)).toContain('ended');
  expect(await findSession(one.id)).toBeNull();
  expect(await findSession(two.id)).not.toBeNull();
  await expect(admin('member', 'end-sessions', '--team', teamId, '--email', 'dan@example.com', '--session', one.session.sessionId)).rejects.toThrow('no live session');
  expect(await admin('member', 'end-sessions', '--team', teamId, '--email', 'dan@example.com')).toContain('every session');
  expect(await findSession(two.id)).toBeNull();
  expect(await admin('member', 'sessions', '--team', teamId, '--email', 'dan@example.com')).toContain('no live sessions');

  const three = await startSession((await getMember('dan@example.com'))!);
  expect(await findSession(three.id)).not.toBeNull();
  expect(await admin('member', 'remove', '--team', teamId, '--email', 'dan@example.com')).toContain('removed');
  expect(await findSession(three.id)).toBeNull();
  expect(await getMember('dan@example.com')).toBeNull();
  expect(await admin('member', 'list', '--team', teamId)).toBe('no members');
  await expect(admin('member', 'remove', '--team', teamId, '--email', 'dan@example.com')).rejects.toThrow('no member');

  await admin('key', 'create', '--team', teamId, '--name', 'ops');
  expect(await admin('key', 'list', '--team', teamId)).toMatch(/"ops"  created \S+ by the admin CLI/);
});

test('a new invitation from the CLI revokes the older link', async () => {
  const { setPassword } = await import('../../shared/auth/members');
  const created = await admin('team', 'create', '--name', 'relink', '--credits', '1');
  const teamId = created.match(/team ([0-9a-f-]{36})/)![1]!;
  const token = async () => new URL((await admin('member', 'invite', '--team', teamId, '--email', 'eve@example.com', '--base', 'https://a.example')).match(/\n\s+(https:\/\/\S+)\n/)![1]!).searchParams.get('token')!;
  const first = await token();
  const second = await token();
  expect(await setPassword(first, 'a long enough password')).toBeNull();
  expect(await setPassword(second, 'a long enough password')).toBe('eve@example.com');
});
