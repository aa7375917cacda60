import { createHash, createHmac } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getMember, invite } from '../../shared/account/members';
import { endSession, findSession, startSession } from '../../shared/account/sessions';
import { generateSecret } from '../../shared/auth/keys';
import { config } from '../../shared/runtime/config';
import { db, dynamoRoundTripCount } from '../../shared/db/client';
import { requestHistory } from '../../shared/accounting/request-history';
import { INVITE_SK, KEY_SK, MEMBER_SK, SESSION_SK, TEAM_INDEX, invitePk, keyPk, memberPk, sessionPk, teamPk } from '../../shared/db/tables';
import { AccountClient, signedInMember } from '../support/account';
import { type Harness, withGateway } from '../support/harness';

/**
 * Issue 18.7: API keys, session ids and invitation tokens are stored as HMAC-SHA256 with the
 * deployment's pepper (here KEY_PEPPER; deployed, the Secrets Manager secret KEY_PEPPER_SECRET_ARN
 * names: test/unit/secrets), and the keys, sessions and invitations stored before the pepper (plain
 * SHA-256) keep working.
 *
 * A keyed request to operation 4 without a source answers 503 PLATFORM_UNAVAILABLE: the key was
 * accepted (a refused key is 401 at the authorizer), and no upstream is involved.
 */
const PEPPER = 'test-pepper-of-this-deployment';
process.env.KEY_PEPPER = PEPPER;
delete process.env.CITYGAME_SOURCE_URL;

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (s: string, key = PEPPER) => createHmac('sha256', key).update(s, 'utf8').digest('hex');
const DAILY = '/v1/citygame/daily';

let h: Harness;
let key: string;
let teamId: string;
withGateway(10, (g) => void ({ h, key, teamId } = g));

const stored = async (pk: string, sk: string) => (await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk, sk }, ConsistentRead: true }))).Item;
const accepted = async (secret: string) => (await h.call(DAILY, {}, { key: secret })).status;

/** A key item as it was written before the pepper: under the plain SHA-256 of its secret. */
async function legacyKey(): Promise<{ secret: string; keyId: string }> {
  const team = (await stored(teamPk(teamId), 'TEAM'))!;
  const secret = generateSecret();
  const keyId = `old${Date.now().toString(36).slice(-5)}`;
  const createdAt = new Date().toISOString();
  await db().send(
    new PutCommand({
      TableName: config.accountsTable,
      Item: { pk: keyPk(sha256(secret)), sk: KEY_SK, keyId, teamId, name: 'before the pepper', createdAt, usageKey: team.usageKey, [TEAM_INDEX.partitionKey]: teamPk(teamId), [TEAM_INDEX.sortKey]: `KEY#${createdAt}#${keyId}` },
    }),
  );
  return { secret, keyId };
}

test('a new key is stored under HMAC-SHA256 with the pepper, never under its plain SHA-256, and is accepted', async () => {
  expect(await stored(keyPk(hmac(key)), KEY_SK)).toMatchObject({ teamId });
  expect(await stored(keyPk(sha256(key)), KEY_SK)).toBeUndefined();
  expect(await accepted(key)).toBe(503);
});

test('the pepper is part of the hash: under another pepper the same key is refused (401)', async () => {
  process.env.KEY_PEPPER = 'another-pepper';
  try {
    expect(await accepted(key)).toBe(401);
  } finally {
    process.env.KEY_PEPPER = PEPPER;
  }
  expect(await accepted(key)).toBe(503);
});

test('a key stored before the pepper (plain SHA-256) still works, and its revocation still holds', async () => {
  const old = await legacyKey();
  expect(await accepted(old.secret)).toBe(503);
  expect(await accepted(generateSecret())).toBe(401);
  await db().send(new UpdateCommand({ TableName: config.accountsTable, Key: { pk: keyPk(sha256(old.secret)), sk: KEY_SK }, UpdateExpression: 'SET revokedAt = :t', ExpressionAttributeValues: { ':t': new Date().toISOString() } }));
  expect(await accepted(old.secret)).toBe(401);
});

test('a 422 of a key stored before the pepper, which the authorizer knows: its key and balance in one round trip under the hash it was found under, the 422 recorded once by the function; revoked there, nothing recorded', async () => {
  const old = await legacyKey();
  expect(await accepted(old.secret)).toBe(503); // the authorizer knows the key from now on
  const history = async () => (await requestHistory(teamId, { limit: 100 })).requests.filter((r) => r.keyId === old.keyId);
  const trips = dynamoRoundTripCount();
  const invalid = await h.call(DAILY, { unknown: 'x' }, { key: old.secret });
  expect({ status: invalid.status, trips: dynamoRoundTripCount() - trips }).toEqual({ status: 422, trips: 2 });
  expect((await history()).map((r) => [r.status, r.requestId])).toEqual([[422, invalid.body.error.requestId], [503, expect.any(String)]]);
  await db().send(new UpdateCommand({ TableName: config.accountsTable, Key: { pk: keyPk(sha256(old.secret)), sk: KEY_SK }, UpdateExpression: 'SET revokedAt = :t', ExpressionAttributeValues: { ':t': new Date().toISOString() } }));
  expect((await h.call(DAILY, { unknown: 'x' }, { key: old.secret })).status).toBe(401);
  expect(await history()).toHaveLength(2);
});

test('a dashboard session id is stored under the peppered hash; the session cookie works', async () => {
  const m = await signedInMember(h);
  const id = m.client.cookie!.split('=')[1]!;
  expect(await stored(sessionPk(hmac(id)), SESSION_SK)).toMatchObject({ email: m.email });
  expect(await stored(sessionPk(sha256(id)), SESSION_SK)).toBeUndefined();
  expect((await m.client.get('/v1/account/me')).status).toBe(200);
});

test('a session started before the pepper (plain SHA-256) is still found, and signing out ends it', async () => {
  const m = await signedInMember(h);
  const member = (await getMember(m.email))!;
  delete process.env.KEY_PEPPER;
  let old: string;
  try {
    old = (await startSession(member)).id;
    expect(await stored(sessionPk(sha256(old)), SESSION_SK)).toBeDefined();
  } finally {
    process.env.KEY_PEPPER = PEPPER;
  }
  expect(await findSession(old)).toMatchObject({ email: m.email });
  const cookie = `sda_session=${old}`;
  expect((await m.client.get('/v1/account/me', { cookie })).status).toBe(200);
  await endSession(old);
  expect(await findSession(old)).toBeNull();
  expect((await m.client.get('/v1/account/me', { cookie })).status).toBe(401);
});

let invited = 0;
const inviteeEmail = () => `invitee-${Date.now().toString(36)}-${invited++}@example.com`;
const setPasswordWith = (token: string, password = 'a long enough password') => new AccountClient(h).post('/v1/account/password', { token, password });

test('an invitation token is stored under the peppered hash, never its plain SHA-256 (item and member), and the link sets the password once', async () => {
  const email = inviteeEmail();
  const { token } = await invite(teamId, email);
  expect(await stored(invitePk(hmac(token)), INVITE_SK)).toMatchObject({ email, teamId });
  expect(await stored(invitePk(sha256(token)), INVITE_SK)).toBeUndefined();
  expect(await stored(memberPk(email), MEMBER_SK)).toMatchObject({ inviteHash: hmac(token) });
  expect(JSON.stringify(await stored(memberPk(email), MEMBER_SK))).not.toContain(sha256(token));
  // Under another pepper the link is unknown.
  process.env.KEY_PEPPER = 'another-pepper';
  try {
    expect((await setPasswordWith(token)).status).toBe(400);
  } finally {
    process.env.KEY_PEPPER = PEPPER;
  }
  expect(await setPasswordWith(token)).toMatchObject({ status: 200, body: { data: { email } } });
  expect((await setPasswordWith(token)).status).toBe(400);
  const signIn = await new AccountClient(h).post('/v1/account/sign-in', { email, password: 'a long enough password' });
  expect(signIn.status).toBe(200);
});

test('an invitation issued before the pepper (plain SHA-256) still sets the password, once; a newer link still replaces it', async () => {
  const email = inviteeEmail();
  delete process.env.KEY_PEPPER;
  let old: string;
  let replaced: string;
  try {
    old = (await invite(teamId, email)).token;
    expect(await stored(invitePk(sha256(old)), INVITE_SK)).toMatchObject({ email });
    expect(await stored(memberPk(email), MEMBER_SK)).toMatchObject({ inviteHash: sha256(old) });
    // A second member whose old link is replaced by one issued under the pepper.
    replaced = (await invite(teamId, `re-${email}`)).token;
  } finally {
    process.env.KEY_PEPPER = PEPPER;
  }
  expect(await setPasswordWith(old)).toMatchObject({ status: 200, body: { data: { email } } });
  expect((await setPasswordWith(old, 'another long password')).status).toBe(400);
  expect((await new AccountClient(h).post('/v1/account/sign-in', { email, password: 'a long enough password' })).status).toBe(200);

  const newer = (await invite(teamId, `re-${email}`)).token;
  expect(await stored(memberPk(`re-${email}`), MEMBER_SK)).toMatchObject({ inviteHash: hmac(newer) });
  expect((await setPasswordWith(replaced)).status).toBe(400);
  expect((await setPasswordWith(newer)).status).toBe(200);
});
