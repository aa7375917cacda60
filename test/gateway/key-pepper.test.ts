import { createHash, createHmac } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { invite } from '../../shared/auth/members';
import { config } from '../../shared/runtime/config';
import { db } from '../../shared/db/client';
import { INVITE_SK, KEY_SK, MEMBER_SK, SESSION_SK, invitePk, keyPk, memberPk, sessionPk } from '../../shared/db/tables';
import { AccountClient, signedInMember } from '../support/account';
import { type Harness, withGateway } from '../support/harness';

/**
 * Issue 18.7: API keys, session ids and invitation tokens are stored as HMAC-SHA256 with the
 * deployment's pepper (here KEY_PEPPER; deployed, the Secrets Manager secret KEY_PEPPER_SECRET_ARN
 * names: test/unit/secrets).
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

test('a dashboard session id is stored under the peppered hash; the session cookie works', async () => {
  const m = await signedInMember(h);
  const id = m.client.cookie!.split('=')[1]!;
  expect(await stored(sessionPk(hmac(id)), SESSION_SK)).toMatchObject({ email: m.email });
  expect(await stored(sessionPk(sha256(id)), SESSION_SK)).toBeUndefined();
  expect((await m.client.get('/v1/account/me')).status).toBe(200);
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
