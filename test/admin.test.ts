import { run } from '../scripts/admin';
import { findKey } from '../shared/auth/keys';
import { ensureTables } from '../dev/tables';

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
  const { setPassword } = await import('../shared/account/members');
  expect(await setPassword(new URL(link).searchParams.get('token')!, 'a long enough password')).toBe('carol@example.com');
  expect(await admin('member', 'list', '--team', teamId)).toContain('password set');
  await expect(admin('member', 'invite', '--team', 'nope', '--email', 'x@example.com')).rejects.toThrow('no team');
  await expect(admin('member', 'invite', '--team', teamId, '--email', 'not-an-email', '--base', 'https://a.example')).rejects.toThrow('not an e-mail');
});
