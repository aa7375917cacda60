import { RECOMMENDED_PARAMS, currentParams, hashPassword, needsRehash, verifyPassword } from '../../../shared/auth/passwords';

/** The password hash's cost: today's recommendation by default, lowered for test suites only. */
function withEnv(vars: Record<string, string | undefined>, body: () => void | Promise<void>) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const restore = () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  for (const [k, v] of Object.entries(vars)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  return Promise.resolve()
    .then(body)
    .finally(restore);
}

test('the default parameters are scrypt N=2^17, r=8, p=1 (OWASP), and a hash at them works (128 MiB within maxmem)', async () => {
  expect(RECOMMENDED_PARAMS).toEqual({ N: 131072, r: 8, p: 1 });
  await withEnv({ PASSWORD_HASH_TEST_LOG2N: undefined }, async () => {
    expect(currentParams()).toEqual({ N: 2 ** 17, r: 8, p: 1 });
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    expect(await verifyPassword('correct horse battery staple', hash)).toBe(true);
    expect(needsRehash(hash)).toBe(false);
  });
}, 60_000);

test('the cost can be lowered by PASSWORD_HASH_TEST_LOG2N under NODE_ENV=test only, and never raised by it', async () => {
  await withEnv({ PASSWORD_HASH_TEST_LOG2N: '10', NODE_ENV: 'test' }, () => expect(currentParams()).toEqual({ N: 1024, r: 8, p: 1 }));
  await withEnv({ PASSWORD_HASH_TEST_LOG2N: '10', NODE_ENV: 'production' }, () => expect(currentParams()).toEqual(RECOMMENDED_PARAMS));
  await withEnv({ PASSWORD_HASH_TEST_LOG2N: '10', NODE_ENV: undefined }, () => expect(currentParams()).toEqual(RECOMMENDED_PARAMS));
  await withEnv({ PASSWORD_HASH_TEST_LOG2N: '20', NODE_ENV: 'test' }, () => expect(currentParams()).toEqual(RECOMMENDED_PARAMS));
  await withEnv({ PASSWORD_HASH_TEST_LOG2N: 'x', NODE_ENV: 'test' }, () => expect(currentParams()).toEqual(RECOMMENDED_PARAMS));
});

test('a hash of other parameters still verifies and is marked for an upgrade', async () => {
  const old = await hashPassword('tr0ub4dor & 3', { N: 2 ** 4, r: 8, p: 1 });
  expect(old.startsWith('scrypt$16$8$1$')).toBe(true);
  expect(await verifyPassword('tr0ub4dor & 3', old)).toBe(true);
  expect(needsRehash(old)).toBe(true);
  expect(needsRehash(await hashPassword('tr0ub4dor & 3'))).toBe(false);
});

test('stored parameters that are not a sane scrypt setting are refused, not run', async () => {
  const good = await hashPassword('tr0ub4dor & 3');
  const parts = good.split('$');
  for (const [i, bad] of [[1, String(2 ** 24)], [1, '1000'], [2, '0'], [3, '99']] as const) {
    const p = [...parts];
    p[i] = bad;
    expect(await verifyPassword('tr0ub4dor & 3', p.join('$'))).toBe(false);
  }
});
