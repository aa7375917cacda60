import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { ensureTables } from '../../../dev/tables';
import { authorizerHandler } from '../../../shared/auth/authorizer';
import { createKey, touchKeyUpdate } from '../../../shared/auth/keys';
import { config } from '../../../shared/runtime/config';
import { COST, createTeam } from '../../../shared/accounting/teams';
import { outcomeUpdate } from '../../../shared/accounting/outcome-counts';
import { historyUpdate } from '../../../shared/accounting/request-history';
import { usageUpdate } from '../../../shared/accounting/usage';
import { routedOperations } from '../../../shared/operations';
import { type Call, iamRequests, isAllowed, type WriteInput, roleStatements, type Resource, type Statement } from '../../support/iam';
import { dbSends } from '../../support/db-sends';
import { stackJson } from '../../support/synth';

/**
 * The authorizer's DynamoDB calls against the IAM policy the stack gives it (infra/operations.ts, with infra/iam.ts's grants): every
 * call its code path makes, and every input its builders can make, must be allowed by the
 * synthesized statements, its UpdateItem on the accounts table by the allow-list of attribute
 * names. The authorizer only reads, and writes one attribute: a key's lastUsedAt. A change that
 * makes it write anything else fails here, not in AWS with AccessDenied.
 */


/** The stack as `cdk synth` builds it (cdk.json's context), minus esbuild bundling. */
const resources: Record<string, Resource> = stackJson().Resources;
const tableArn = (logicalPrefix: string) => ({ 'Fn::GetAtt': [Object.keys(resources).find((id) => id.startsWith(logicalPrefix) && resources[id]!.Type === 'AWS::DynamoDB::Table')!, 'Arn'] });
const tables = { [config.accountsTable]: tableArn('AccountsTable'), [config.cacheTable]: tableArn('CacheTable') };

/** The statements of the authorizer's role. */
const authorizerStatements: Statement[] = roleStatements(resources, 'REQUEST authorizer');

/** One item a call names, with the action on it and IAM's answer for the request it is part of (test/support/iam.ts). */
interface Checked {
  action: string;
  table: string;
  pk: string;
  sk: string;
  attributes: string[];
  allowed: boolean;
}

/** The items of one SDK call (a transaction's one by one, a batch's item by item, each with the whole request's answer). */
const checked = (call: Call): Checked[] =>
  iamRequests(call).flatMap((r) => {
    const allowed = isAllowed(authorizerStatements, r, tables);
    return r.keys.map((key) => ({ action: r.action, table: r.table, pk: String(key.pk), sk: String(key.sk), attributes: r.attributes, allowed }));
  });
const checkUpdate = (input: WriteInput & { TableName: string }) => checked({ name: 'UpdateCommand', input })[0]!;
const checkBatchGet = (requestItems: Record<string, { Keys: Record<string, unknown>[]; ConsistentRead?: boolean }>) => checked({ name: 'BatchGetCommand', input: { RequestItems: requestItems } });

/** Every item action the authorizer sends while `run` runs. */
async function sent(run: () => Promise<unknown>): Promise<Checked[]> {
  return (await dbSends(run)).calls.flatMap(checked);
}

const op = routedOperations().find((o) => Object.keys(o.params).length > 0)!;
let teamId: string;
let secret: string;
let keyId: string;

beforeAll(async () => {
  await ensureTables();
  ({ teamId } = await createTeam('authorizer-iam', 5, { usageKey: 'u-authorizer-iam' }));
  const key = await createKey(teamId, 'iam', 'u-authorizer-iam');
  secret = key.secret;
  keyId = key.record.keyId;
});

/** A request to an operation (its query does not matter: the authorizer reads only the key). */
const request = (requestId: string) =>
  authorizerHandler({
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:us-east-1:123456789012:abc123/prod/GET${op.path}`,
    resource: op.path,
    path: op.path,
    httpMethod: 'GET',
    headers: { 'x-api-key': secret },
    queryStringParameters: { unknown: 'x' },
    multiValueQueryStringParameters: { unknown: ['x'] },
    requestContext: { requestId },
  } as unknown as APIGatewayRequestAuthorizerEvent);

test('every call the authorizer makes (key read, key and balance batched, touch) is allowed by its synthesized policy, and it writes nothing else', async () => {
  const calls = await sent(async () => {
    await request('iam-first'); // unknown to this container: reads the key, touches lastUsedAt
    const auth = await request('iam-second'); // known: the key and the balance in one batch
    expect(auth.context).toEqual({ teamId: expect.any(String), keyId, creditsHint: 5 });
  });
  expect(calls.filter((c) => !c.allowed)).toEqual([]);
  const shape = (c: Checked) => `${c.action} ${c.table === config.cacheTable ? 'cache' : 'accounts'} ${c.pk.replace(/#.*/, '#')} ${c.sk.replace(/#.*/, '#')}`;
  expect(new Set(calls.map(shape))).toEqual(
    new Set(['dynamodb:GetItem accounts KEY# KEY', 'dynamodb:BatchGetItem accounts KEY# KEY', 'dynamodb:BatchGetItem accounts TEAM# TEAM', 'dynamodb:UpdateItem accounts KEY# KEY']),
  );
  expect(calls.find((c) => c.action === 'dynamodb:UpdateItem' && c.pk.startsWith('KEY#'))!.attributes.sort()).toEqual(['lastUsedAt', 'pk', 'sk']);
});

test('the policy allows touchKey, and no write in a team partition or on the cache table', () => {
  const now = Date.now();
  expect(checkUpdate(touchKeyUpdate('a-hash', now)).allowed).toBe(true);
  const answer = { teamId: 't', keyId: 'k', operation: op.id, requestId: 'r', status: 422, code: 'VALIDATION_ERROR' as const, credits: 0, cached: false, ms: 0, time: now };
  const refused = [
    usageUpdate(answer),
    historyUpdate(answer),
    outcomeUpdate({ operation: op.id, status: 422, code: 'VALIDATION_ERROR', cached: false, live: false, ms: 0, upstreamCalls: 0, at: now }),
  ];
  expect(refused.map((input) => checkUpdate(input as WriteInput & { TableName: string })).filter((c) => c.allowed)).toEqual([]);
  const actions = authorizerStatements.flatMap((st) => (st.Effect === 'Deny' ? [] : [st.Action].flat()));
  expect(actions.filter((a) => /Put|Delete|BatchWrite|TransactWrite|ConditionCheck/.test(a))).toEqual([]);
});

test("what the allow-list refuses: a team's credits or reservation mark, a ledger record, a key's team or revocation, a history item", () => {
  const accounts = config.accountsTable;
  const update = (pk: string, sk: string, set: Record<string, string>): WriteInput & { TableName: string } => ({
    TableName: accounts,
    Key: { pk, sk },
    UpdateExpression: `SET ${Object.keys(set).map((_, i) => `#a${i} = :v${i}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(Object.keys(set).map((name, i) => [`#a${i}`, name])),
  });
  const refused = [
    update('TEAM#t', 'TEAM', { credits: 'credits' }),
    update('TEAM#t', 'TEAM', { 'HOLD#r': 'mark' }),
    update('TEAM#t', 'LEDGER#2025-01-01T00:00:00.000Z#r', { credits: 'credits' }),
    update('TEAM#t', 'USAGE#2025-01-01', { 'live:x': 'n', 'credits:x': 'n' }),
    update('KEY#h', 'KEY', { teamId: 'another' }),
    update('KEY#h', 'KEY', { revokedAt: 'x' }),
    update('KEY#h', 'KEY', { expiresAt: 'x' }),
    update('KEY#h', 'KEY', { keyId: 'x' }),
    update('MEMBER#m', 'MEMBER', { lastUsedAt: 'x' }),
    historyUpdate({ teamId: 't', keyId: 'k', operation: op.id, requestId: 'r', status: 200, code: null, credits: COST, cached: false, ms: 5, time: Date.now() }),
    // Asking for the whole item back.
    { ...touchKeyUpdate('h', Date.now()), ReturnValues: 'ALL_NEW' },
  ];
  expect(refused.map((input) => checkUpdate(input)).filter((c) => c.allowed)).toEqual([]);
});

test('a BatchGetItem is allowed only when every key it asks is in a key or team partition of the accounts table', () => {
  const batch = (table: string, ...pks: string[]) => checkBatchGet({ [table]: { Keys: pks.map((pk) => ({ pk, sk: pk.startsWith('KEY#') ? 'KEY' : 'TEAM' })), ConsistentRead: true } });
  expect(batch(config.accountsTable, 'KEY#h', 'TEAM#t').map((c) => c.allowed)).toEqual([true, true]);
  // One key outside the prefixes refuses the whole request, every item of it.
  expect(batch(config.accountsTable, 'KEY#h', 'MEMBER#m').map((c) => c.allowed)).toEqual([false, false]);
  expect(batch(config.accountsTable, 'SESSION#s', 'TEAM#t').map((c) => c.allowed)).toEqual([false, false]);
  expect(batch(config.cacheTable, 'OUT#x').map((c) => c.allowed)).toEqual([false]);
});
