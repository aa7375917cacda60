import { createHash, createHmac } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ensureTables } from '../../dev/tables';
import { authorize, authorizerHandler } from '../../shared/auth/authorizer';
import { createKey, revokeKey } from '../../shared/auth/keys';
import { config } from '../../shared/runtime/config';
import { createTeam } from '../../shared/accounting/teams';
import { db } from '../../shared/db/client';
import { dbSends, type Rewrite, type Sent } from '../support/db-sends';
import { KEY_SK, TEAM_SK, keyPk, teamPk } from '../../shared/db/tables';

/**
 * The authorizer's read of a key it authorized before in this container (shared/auth/keys.ts,
 * findKnownKey): the key item under the hash it was found under and the team's balance, in ONE
 * BatchGetItem, with the answers findKey and balanceHint gave: a revocation refused at once, the
 * balance a hint that never fails the request, and findKey deciding whenever the batch has no key
 * item to show (stored under another hash now, gone, or left unprocessed).
 *
 * With a pepper, as deployed.
 */
const PEPPER = 'known-key-read-pepper';
process.env.KEY_PEPPER = PEPPER;
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (s: string) => createHmac('sha256', PEPPER).update(s, 'utf8').digest('hex');

beforeAll(async () => {
  await ensureTables();
});

async function newKey(credits = 5) {
  const { teamId } = await createTeam('known-key-read', credits, { usageKey: 'u-known-key-read' });
  const { secret, record } = await createKey(teamId, 'read', 'u-known-key-read');
  return { teamId, secret, keyId: record.keyId };
}

const headers = (secret: string) => ({ 'x-api-key': secret });

/** A key this container has authorized once (its first use: the key alone, and the touch). */
async function knownKey(credits = 5) {
  const k = await newKey(credits);
  const first = await dbSends(() => authorize(headers(k.secret)));
  expect(first.result).toMatchObject({ teamId: k.teamId, keyId: k.keyId });
  expect(first.result).not.toHaveProperty('creditsHint');
  expect(first.calls.map((c) => c.name)).toEqual(['GetCommand', 'UpdateCommand']);
  return k;
}

const names = (calls: Sent[]) => calls.map((c) => c.name);

/** An authorizer event for `secret` on a route no operation has (nothing recorded ahead). */
const event = (secret: string) =>
  ({ type: 'REQUEST', methodArn: 'arn:aws:execute-api:us-east-1:123456789012:abc123/prod/GET/v1/nope', resource: '/v1/nope', path: '/v1/nope', httpMethod: 'GET', headers: headers(secret), requestContext: { requestId: 'known-key-read' } }) as unknown as APIGatewayRequestAuthorizerEvent;

test('a known key: one DynamoDB call, a strongly consistent BatchGetItem of the key item and its team; the same answer, with the balance', async () => {
  const k = await knownKey(5);
  const { result, calls } = await dbSends(() => authorize(headers(k.secret)));
  expect(result).toEqual({ teamId: k.teamId, keyId: k.keyId, usageKey: 'u-known-key-read', creditsHint: 5 });
  expect(names(calls)).toEqual(['BatchGetCommand']);
  expect(calls[0]!.input).toEqual({
    RequestItems: {
      [config.accountsTable]: { Keys: [{ pk: keyPk(hmac(k.secret)), sk: KEY_SK }, { pk: teamPk(k.teamId), sk: TEAM_SK }], ConsistentRead: true },
    },
  });
});

test('a key revoked after it became known: refused (401) by the batched read, in its one call', async () => {
  const k = await knownKey();
  expect(await revokeKey(k.teamId, k.keyId)).toBe(true);
  const { result, calls } = await dbSends(() => authorize(headers(k.secret)));
  expect(result).toBeNull();
  expect(names(calls)).toEqual(['BatchGetCommand']);
  await expect(authorizerHandler(event(k.secret))).rejects.toThrow('Unauthorized');
});

test('a known key whose item is gone: findKey decides, refused', async () => {
  const k = await knownKey();
  await db().send(new DeleteCommand({ TableName: config.accountsTable, Key: { pk: keyPk(hmac(k.secret)), sk: KEY_SK } }));
  const { result, calls } = await dbSends(() => authorize(headers(k.secret)));
  expect(result).toBeNull();
  expect(names(calls)).toEqual(['BatchGetCommand', 'GetCommand']);
});

/** DynamoDB's answer with the item whose partition key starts with `prefix` moved to UnprocessedKeys. */
const unprocessed =
  (prefix: string): Rewrite =>
  async (call, answer) => {
    const res = await answer();
    if (call.name !== 'BatchGetCommand') return res;
    const table = config.accountsTable;
    const left = (res.Responses?.[table] ?? []).filter((i: { pk: string }) => i.pk.startsWith(prefix));
    return {
      ...res,
      Responses: { [table]: (res.Responses?.[table] ?? []).filter((i: { pk: string }) => !i.pk.startsWith(prefix)) },
      UnprocessedKeys: { [table]: { Keys: left.map((i: { pk: string; sk: string }) => ({ pk: i.pk, sk: i.sk })), ConsistentRead: true } },
    };
  };

test('the key item left unprocessed: findKey decides (accepted, with the balance the batch read)', async () => {
  const k = await knownKey(7);
  const { result, calls } = await dbSends(() => authorize(headers(k.secret)), unprocessed('KEY#'));
  expect(result).toEqual({ teamId: k.teamId, keyId: k.keyId, usageKey: 'u-known-key-read', creditsHint: 7 });
  expect(names(calls)).toEqual(['BatchGetCommand', 'GetCommand']);
});

test('the team item left unprocessed, or with no usable balance: no hint, the key accepted all the same', async () => {
  const k = await knownKey();
  const left = await dbSends(() => authorize(headers(k.secret)), unprocessed('TEAM#'));
  expect(left.result).toEqual({ teamId: k.teamId, keyId: k.keyId, usageKey: 'u-known-key-read' });
  expect(names(left.calls)).toEqual(['BatchGetCommand']);
  await db().send(new UpdateCommand({ TableName: config.accountsTable, Key: { pk: teamPk(k.teamId), sk: TEAM_SK }, UpdateExpression: 'SET credits = :x', ExpressionAttributeValues: { ':x': 'not a number' } }));
  expect(await authorize(headers(k.secret))).toEqual({ teamId: k.teamId, keyId: k.keyId, usageKey: 'u-known-key-read' });
  await db().send(new DeleteCommand({ TableName: config.accountsTable, Key: { pk: teamPk(k.teamId), sk: TEAM_SK } }));
  expect(await authorize(headers(k.secret))).toEqual({ teamId: k.teamId, keyId: k.keyId, usageKey: 'u-known-key-read' });
});

test('the batched read failing: the authorizer fails (API Gateway answers 503 AUTHORIZER_FAILURE), as when its key read failed', async () => {
  const k = await knownKey();
  const outage = Object.assign(new Error('DynamoDB is unavailable'), { name: 'InternalServerError' });
  const failing: Rewrite = async (call, answer) => (call.name === 'BatchGetCommand' ? Promise.reject(outage) : answer());
  const { calls } = await dbSends(async () => {
    await expect(authorize(headers(k.secret))).rejects.toBe(outage);
    await expect(authorizerHandler(event(k.secret))).rejects.toBe(outage);
  }, failing);
  expect(names(calls)).toEqual(['BatchGetCommand', 'BatchGetCommand']);
});
