import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTables } from '../../../dev/tables';
import { creditsReport, keyNames, requestsReport, usageReport } from '../../../shared/api/account-reads';
import { invite, setPassword } from '../../../shared/auth/members';
import { startSession } from '../../../shared/auth/sessions';
import { createKey } from '../../../shared/auth/keys';
import { createMcpHandler } from '../../../shared/mcp/http';
import { createTeam } from '../../../shared/accounting/teams';
import { db } from '../../../shared/db/client';
import { TEAM_INDEX } from '../../../shared/db/tables';
import { config } from '../../../shared/runtime/config';
import { callAllowed, roleStatements, type Resource, type Statement } from '../../support/iam';
import { dbSends } from '../../support/db-sends';
import { nestedJson, nestedWiring, stackJson } from '../../support/synth';
import type { APIGatewayProxyEvent } from 'aws-lambda';

/**
 * Issue 30.5: the MCP function parses hostile pages and JSON, so it may read through the accounts
 * table's byTeam index only what its account tools need, the names of a team's keys; never a
 * member's e-mail or password hash, a session or an invitation. Every read its account tools make
 * is held against the synthesized policy, and reads of anything else are refused by it.
 *
 * Its monitor tools (issue 32) add no table right: the tool call is the monitors API's own handler,
 * invoked with the caller's key (on AWS, that function, with its rights; the stack grants the MCP
 * function lambda:InvokeFunction on it alone: test/infra/monitors.ts).
 */

const resources: Record<string, Resource> = stackJson().Resources;
const accountsId = Object.keys(resources).find((id) => id.startsWith('AccountsTable') && resources[id]!.Type === 'AWS::DynamoDB::Table')!;
const tableArn = { 'Fn::GetAtt': [accountsId, 'Arn'] };

const mcpStatements: Statement[] = roleStatements(resources, 'the MCP server');

/** A Query as IAM sees it (test/support/iam.ts): the partition it asks, every attribute it names, its Select. */
interface QueryInput {
  IndexName?: string;
  KeyConditionExpression: string;
  ProjectionExpression?: string;
  FilterExpression?: string;
  Select?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}
const queryAllowed = (input: QueryInput) => callAllowed(mcpStatements, { name: 'QueryCommand', input: { TableName: config.accountsTable, ...input } }, { [config.accountsTable]: tableArn });

let teamId: string;
beforeAll(async () => {
  await ensureTables();
  teamId = (await createTeam('mcp-iam', 5, { usageKey: 'usage-mcp-iam' })).teamId;
  await createKey(teamId, 'production', 'usage-mcp-iam');
  // A member with a password and a session: items of the same index partition.
  const email = `member-${Date.now()}@example.com`;
  const { token, member } = await invite(teamId, email);
  await setPassword(token, 'a long enough password');
  await startSession(member);
});

test('every Query the account tools make is allowed to the MCP function', async () => {
  const { calls } = await dbSends(async () => {
    await creditsReport(teamId);
    await usageReport(teamId, '7');
    const report = await requestsReport(teamId, {});
    expect(report.requests).toEqual([]);
    expect([...(await keyNames(teamId)).values()]).toEqual(['production']);
  });
  const queries = calls.filter((c) => c.name === 'QueryCommand').map((c) => c.input as QueryInput);
  expect(queries.some((q) => q.IndexName === TEAM_INDEX.name)).toBe(true);
  for (const q of queries) expect({ query: q, allowed: queryAllowed(q) }).toEqual({ query: q, allowed: true });
});

test('through the byTeam index, nothing but key ids and names: members, password hashes, sessions and sort keys are refused', () => {
  const base = {
    IndexName: TEAM_INDEX.name,
    KeyConditionExpression: '#team = :team',
    ExpressionAttributeValues: { ':team': `TEAM#${teamId}` },
  };
  const names = (extra: Record<string, string>) => ({ '#team': TEAM_INDEX.partitionKey, ...extra });
  // Every attribute the index projects (no projection given), or all of them asked for.
  expect(queryAllowed({ ...base, ExpressionAttributeNames: names({}) })).toBe(false);
  expect(queryAllowed({ ...base, ExpressionAttributeNames: names({}), Select: 'ALL_PROJECTED_ATTRIBUTES' })).toBe(false);
  for (const attribute of ['email', 'passwordHash', 'inviteHash', 'address', 'userAgent', 'sessionId', TEAM_INDEX.sortKey, 'pk']) {
    expect({ attribute, allowed: queryAllowed({ ...base, ExpressionAttributeNames: names({ '#a': attribute }), ProjectionExpression: '#a', Select: 'SPECIFIC_ATTRIBUTES' }) }).toEqual({ attribute, allowed: false });
  }
  // What listKeys and the member listings of the account API send (sort-key prefix, whole items).
  expect(queryAllowed({ ...base, KeyConditionExpression: '#team = :team AND begins_with(#s, :prefix)', ExpressionAttributeNames: names({ '#s': TEAM_INDEX.sortKey }), ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ':prefix': 'MEMBER#' } })).toBe(false);
  // The allowed read itself, and the same for a partition that is not a team's.
  const keyNamesQuery = { ...base, ExpressionAttributeNames: names({ '#id': 'keyId', '#name': 'name' }), ProjectionExpression: '#id, #name', Select: 'SPECIFIC_ATTRIBUTES' };
  expect(queryAllowed(keyNamesQuery)).toBe(true);
  expect(queryAllowed({ ...keyNamesQuery, ExpressionAttributeValues: { ':team': 'MEMBER#someone@example.com' } })).toBe(false);
});

test('what the allowed read returns: key ids and names only, whatever else the partition holds', async () => {
  const res = await db().send(
    new QueryCommand({
      TableName: config.accountsTable,
      IndexName: TEAM_INDEX.name,
      KeyConditionExpression: '#team = :team',
      ProjectionExpression: '#id, #name',
      Select: 'SPECIFIC_ATTRIBUTES',
      ExpressionAttributeNames: { '#team': TEAM_INDEX.partitionKey, '#id': 'keyId', '#name': 'name' },
      ExpressionAttributeValues: { ':team': `TEAM#${teamId}` },
    }),
  );
  const attributes = new Set((res.Items ?? []).flatMap((item) => Object.keys(item)));
  expect([...attributes].sort()).toEqual(['keyId', 'name']);
  expect(res.Items!.length).toBeGreaterThanOrEqual(3); // the key, the member, the session
});

test('the monitor tools: the MCP function itself makes no table request for them, holds no PutItem or DeleteItem on the accounts table, and may invoke the monitors API function alone', async () => {
  const allowed = mcpStatements.filter((st) => (st.Effect ?? 'Allow') === 'Allow');
  const onAccounts = allowed.filter((st) => JSON.stringify(st.Resource).includes(accountsId)).flatMap((st) => [st.Action].flat());
  expect(onAccounts.filter((a) => ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'].includes(a))).toEqual([]);
  const monitorsApi = Object.keys(resources).find((id) => resources[id]!.Type === 'AWS::Lambda::Function' && String(resources[id]!.Properties.Description).startsWith('The monitors API'))!;
  // The jobs API's function is the jobs' nested stack's (infra/jobs.ts): the root names it by that stack's output.
  const nested: Record<string, Resource> = nestedJson('JobsEngine').Resources;
  const jobsApi = nestedWiring('JobsEngine').output({ 'Fn::GetAtt': [Object.keys(nested).find((id) => nested[id]!.Type === 'AWS::Lambda::Function' && String(nested[id]!.Properties.Description).startsWith('The bulk jobs API'))!, 'Arn'] });
  expect(allowed.filter((st) => [st.Action].flat().some((a) => a.startsWith('lambda:'))).map((st) => ({ actions: st.Action, resource: st.Resource }))).toEqual([
    // And the jobs API's function, for the job tools (the same way: test/infra/jobs.ts).
    { actions: 'lambda:InvokeFunction', resource: [jobsApi, { 'Fn::GetAtt': [monitorsApi, 'Arn'] }] },
  ]);

  const invoked: APIGatewayProxyEvent[] = [];
  const handler = createMcpHandler(
    async () => {
      throw new Error('no operation here');
    },
    async (event) => {
      invoked.push(event);
      return { statusCode: 200, headers: {}, body: JSON.stringify({ data: { monitors: [] } }) };
    },
  );
  const post = {
    httpMethod: 'POST',
    path: '/mcp',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', 'x-api-key': 'A'.repeat(28) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'monitors-list', arguments: {} } }),
    isBase64Encoded: false,
    requestContext: { requestId: 'r', path: '/prod/mcp', authorizer: { teamId, keyId: 'k', principalId: teamId } },
  } as unknown as APIGatewayProxyEvent;
  const { result, calls } = await dbSends(() => handler(post));
  expect(JSON.parse(result.body).result.structuredContent).toEqual({ data: { monitors: [] }, meta: { requestId: expect.any(String), creditsCharged: 0 } });
  expect(invoked.map((e) => `${e.httpMethod} ${e.path}`)).toEqual(['GET /v1/monitors']);
  expect(calls).toEqual([]);
});
