import { createHash } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ADDRESS_WINDOW_SECONDS, EMAIL_WINDOW_SECONDS, KNOWN_ADDRESS_SECONDS, admitSignIn, backoffSeconds, signInSucceeded } from '../../../shared/account/throttle';
import { config } from '../../../shared/runtime/config';
import { db } from '../../../shared/db/client';
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

test('per address, whatever the e-mail: a cap per 15-minute window; a success gives nothing back (issue 30.7)', async () => {
  process.env.SIGN_IN_ATTEMPTS_PER_ADDRESS = '5';
  try {
    const address = '192.0.2.77';
    const now = Date.parse('2030-04-01T00:00:00Z') + 60_000;
    for (let i = 0; i < 4; i++) expect(await admitSignIn(`spray-${i}@example.com`, address, now)).toEqual({ admitted: true });
    // A member with an account of their own signs in between guesses: that earns no further guess.
    expect(await admitSignIn('ok@example.com', address, now)).toEqual({ admitted: true });
    await signInSucceeded('ok@example.com', address, now);
    expect(await admitSignIn('spray-9@example.com', address, now)).toEqual({ admitted: false, retryAfter: ADDRESS_WINDOW_SECONDS - 60 });
    expect(await admitSignIn('ok@example.com', address, now)).toEqual({ admitted: false, retryAfter: ADDRESS_WINDOW_SECONDS - 60 });
    expect((await admitSignIn('anyone@example.com', '192.0.2.78', now)).admitted).toBe(true);
    expect((await admitSignIn('spray-10@example.com', address, now + ADDRESS_WINDOW_SECONDS * 1000)).admitted).toBe(true);
  } finally {
    process.env.SIGN_IN_ATTEMPTS_PER_ADDRESS = '1000';
  }
});

test('per e-mail, whatever the address: guesses spread over many addresses meet one cap per hour; the addresses the member signed in from are not held by it (issue 30.7)', async () => {
  process.env.SIGN_IN_ATTEMPTS_PER_EMAIL = '25';
  try {
    const email = `target-${Date.now()}@example.com`;
    const now = Date.parse('2030-06-01T00:00:00Z') + 60_000;
    // The member signed in from home last week.
    await signInSucceeded(email, '203.0.113.1', now - 7 * 24 * 3600_000);
    // Ten guesses from each of three addresses: each pair allows ten, the e-mail twenty-five in all.
    const spread = [];
    for (const a of ['198.51.100.101', '198.51.100.102', '198.51.100.103']) for (let i = 0; i < 10; i++) spread.push(await admitSignIn(email, a, now));
    expect(spread.filter((r) => r.admitted)).toHaveLength(25);
    expect(spread.at(-1)).toEqual({ admitted: false, retryAfter: EMAIL_WINDOW_SECONDS - 60 });
    expect(await admitSignIn(email, '198.51.100.104', now)).toEqual({ admitted: false, retryAfter: EMAIL_WINDOW_SECONDS - 60 });
    // The member, from home, is not locked out by them; the next window admits new addresses again.
    expect(await admitSignIn(email, '203.0.113.1', now)).toEqual({ admitted: true });
    expect(await admitSignIn(email, '198.51.100.104', now + EMAIL_WINDOW_SECONDS * 1000)).toEqual({ admitted: true });
    // A known address is forgotten 30 days after its last success.
    const another = `target-b-${Date.now()}@example.com`;
    await signInSucceeded(another, '203.0.113.2', now - KNOWN_ADDRESS_SECONDS * 1000);
    for (const a of ['198.51.100.111', '198.51.100.112', '198.51.100.113']) for (let i = 0; i < 10; i++) await admitSignIn(another, a, now);
    expect((await admitSignIn(another, '203.0.113.2', now)).admitted).toBe(false);
  } finally {
    delete process.env.SIGN_IN_ATTEMPTS_PER_EMAIL;
  }
});

test('a returning member, a day after their last sign-in, is admitted (issue 30.3)', async () => {
  const { email, address } = fresh();
  const monday = Date.parse('2030-07-01T09:00:00Z');
  expect(await admitSignIn(email, address, monday)).toEqual({ admitted: true });
  await signInSucceeded(email, address, monday);
  // Two days later: the item the success left (its expiry passed, TTL not yet run) must not hold them.
  const wednesday = monday + 2 * 24 * 3600_000;
  expect(await admitSignIn(email, address, wednesday)).toEqual({ admitted: true });
  for (let i = 0; i < 9; i++) expect(await admitSignIn(email, address, wednesday)).toEqual({ admitted: true });
  expect((await admitSignIn(email, address, wednesday)).admitted).toBe(false);
  // An item an earlier version cleared (attempts and lastAt removed, expiresAt kept) as well.
  const old = fresh();
  await admitSignIn(old.email, old.address, monday);
  await db().send(new UpdateCommand({ TableName: config.accountsTable, Key: { pk: `THROTTLE#pair#${createHash('sha256').update(`${old.email}\n${old.address}`).digest('hex')}`, sk: 'THROTTLE' }, UpdateExpression: 'REMOVE attempts, lastAt' }));
  expect(await admitSignIn(old.email, old.address, wednesday)).toEqual({ admitted: true });
  expect(await admitSignIn(old.email, old.address, wednesday)).toEqual({ admitted: true });
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
