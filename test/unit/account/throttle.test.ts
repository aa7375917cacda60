import { ADDRESS_WINDOW_SECONDS, admitSignIn, backoffSeconds, signInSucceeded } from '../../../shared/account/throttle';
import { ensureTables } from '../../../dev/tables';

/** Sign-in throttling against DynamoDB Local, with the clock passed in. */
beforeAll(async () => {
  await ensureTables();
  process.env.SIGN_IN_ATTEMPTS_PER_ADDRESS = '1000';
});

let n = 0;
const fresh = () => ({ email: `t${n++}-${Date.now()}@example.com`, address: `198.51.100.${n % 250}` });

test('per e-mail and address: the free attempts, then a backoff that doubles, capped', async () => {
  expect([9, 10, 11, 12, 13].map(backoffSeconds)).toEqual([0, 60, 120, 240, 480]);
  expect(backoffSeconds(40)).toBe(3600);
  const { email, address } = fresh();
  let now = Date.parse('2030-01-01T00:00:00Z');
  for (let i = 0; i < 10; i++) expect(await admitSignIn(email, address, now)).toEqual({ admitted: true });
  expect(await admitSignIn(email, address, now)).toEqual({ admitted: false, retryAfter: 60 });
  expect(await admitSignIn(email, address, now + 30_000)).toEqual({ admitted: false, retryAfter: 30 });
  now += 60_000;
  expect(await admitSignIn(email, address, now)).toEqual({ admitted: true });
  expect(await admitSignIn(email, address, now + 1000)).toEqual({ admitted: false, retryAfter: 119 });
  now += 120_000;
  expect(await admitSignIn(email, address, now)).toEqual({ admitted: true });
  expect(await admitSignIn(email, address, now)).toEqual({ admitted: false, retryAfter: 240 });
});

test('another address is not affected, and a day without attempts forgets them', async () => {
  const { email, address } = fresh();
  const now = Date.parse('2030-02-01T00:00:00Z');
  for (let i = 0; i < 10; i++) await admitSignIn(email, address, now);
  expect((await admitSignIn(email, address, now)).admitted).toBe(false);
  expect(await admitSignIn(email, '203.0.113.9', now)).toEqual({ admitted: true });
  const later = now + 24 * 3600_000 + 1000;
  for (let i = 0; i < 10; i++) expect(await admitSignIn(email, address, later)).toEqual({ admitted: true });
  expect((await admitSignIn(email, address, later)).admitted).toBe(false);
});

test('a success from the address starts the pair afresh', async () => {
  const { email, address } = fresh();
  const now = Date.parse('2030-03-01T00:00:00Z');
  for (let i = 0; i < 9; i++) await admitSignIn(email, address, now);
  await signInSucceeded(email, address, now);
  for (let i = 0; i < 10; i++) expect(await admitSignIn(email, address, now)).toEqual({ admitted: true });
  expect((await admitSignIn(email, address, now)).admitted).toBe(false);
});

test('per address, whatever the e-mail: a looser cap per 15-minute window; a success gives its attempt back', async () => {
  process.env.SIGN_IN_ATTEMPTS_PER_ADDRESS = '5';
  try {
    const address = '192.0.2.77';
    const now = Date.parse('2030-04-01T00:00:00Z') + 60_000;
    for (let i = 0; i < 4; i++) expect(await admitSignIn(`spray-${i}@example.com`, address, now)).toEqual({ admitted: true });
    expect(await admitSignIn('ok@example.com', address, now)).toEqual({ admitted: true });
    await signInSucceeded('ok@example.com', address, now);
    expect(await admitSignIn('spray-9@example.com', address, now)).toEqual({ admitted: true });
    expect(await admitSignIn('spray-10@example.com', address, now)).toEqual({ admitted: false, retryAfter: ADDRESS_WINDOW_SECONDS - 60 });
    expect((await admitSignIn('anyone@example.com', '192.0.2.78', now)).admitted).toBe(true);
    expect((await admitSignIn('spray-10@example.com', address, now + ADDRESS_WINDOW_SECONDS * 1000)).admitted).toBe(true);
  } finally {
    process.env.SIGN_IN_ATTEMPTS_PER_ADDRESS = '1000';
  }
});

test('parallel attempts: exactly the free attempts are admitted, however many race', async () => {
  const { email, address } = fresh();
  const now = Date.parse('2030-05-01T00:00:00Z');
  const results = await Promise.all(Array.from({ length: 50 }, () => admitSignIn(email, address, now)));
  expect(results.filter((r) => r.admitted)).toHaveLength(10);
  // Past the free attempts, one attempt per backoff period, however many race for it.
  const after = await Promise.all(Array.from({ length: 20 }, () => admitSignIn(email, address, now + 61_000)));
  expect(after.filter((r) => r.admitted)).toHaveLength(1);
});
