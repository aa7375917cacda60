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
