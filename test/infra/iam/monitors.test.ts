import { proxyEvent } from '../../../shared/http/proxy-event';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ensureTables } from '../../../dev/tables';
import { handler as monitorsApi } from '../../../functions/monitors';
import { getMember, invite, setPassword } from '../../../shared/auth/members';
import { SESSION_COOKIE, startSession } from '../../../shared/auth/sessions';
import { createKey } from '../../../shared/auth/keys';
import { createTeam } from '../../../shared/accounting/teams';
import { attempt } from '../../../shared/monitors/deliver';
import { pollMonitor } from '../../../shared/monitors/poll';
import { dueDeliveries, dueMonitors, getMonitor, listDeliveries } from '../../../shared/monitors/store';
import { logger } from '../../../shared/runtime/log';
import { config } from '../../../shared/runtime/config';
import { dbSends, type Sent } from '../../support/db-sends';
import { callAllowed, iamRequests, roleStatements, type Resource } from '../../support/iam';
import { stackJson } from '../../support/synth';

/**
 * Every DynamoDB call the monitors' functions make, held against their synthesized roles (the
 * calls run against DynamoDB Local; IAM is evaluated here the way AWS would, LeadingKeys and
 * attribute lists included): the API with a key and with a session, the poll worker (its own
 * calls: the operation's function runs under its own role), the delivery worker on success and
 * on failure, and the tick. A call its role would refuse on AWS fails here.
 */
process.env.MONITOR_MIN_INTERVAL_SECONDS = '1';
process.env.WEBHOOK_ALLOW_LOOPBACK = '1';

const resources: Record<string, Resource> = stackJson().Resources;
const tableArn = (prefix: string) => ({ 'Fn::GetAtt': [Object.keys(resources).find((id) => id.startsWith(prefix) && resources[id]!.Type === 'AWS::DynamoDB::Table')!, 'Arn'] });
const arns = { [config.accountsTable]: tableArn('AccountsTable'), [config.cacheTable]: tableArn('CacheTable'), [config.eventsTable]: tableArn('EventsTable') };

function refused(description: string, calls: Sent[]) {
  const statements = roleStatements(resources, description);
  return calls.filter((c) => !callAllowed(statements, c, arns)).map((c) => ({ call: c.name, requests: iamRequests(c).map((r) => ({ action: r.action, keys: r.context['dynamodb:LeadingKeys'] })) }));
}

let statuses: number[] = [];
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(statuses.shift() ?? 200).end());
});
let hook = '';
let teamId = '';
let key = '';
let cookie = '';
beforeAll(async () => {
  await ensureTables();
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const usageKey = `usage-mon-iam-${randomUUID()}`;
  teamId = (await createTeam('monitors-iam', 5, { usageKey })).teamId;
  key = (await createKey(teamId, 'production', usageKey)).secret;
  const email = `mon-iam-${Date.now()}@example.com`;
  const { token } = await invite(teamId, email);
  await setPassword(token, 'a long enough password');
  cookie = `${SESSION_COOKIE}=${(await startSession((await getMember(email))!)).id}`;
});
afterAll(() => new Promise((r) => receiver.close(r)));

const HOST = 'api.example.test';
function event(method: string, path: string, headers: Record<string, string>, body?: unknown): APIGatewayProxyEvent {
  return proxyEvent({ method, path, headers: { host: HOST, ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }, { requestId: randomUUID() });
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ statusCode: number; body: any }> => {
  const res = await monitorsApi(event(method, path, headers, body));
  return { statusCode: res.statusCode, body: JSON.parse(res.body) };
};
const withKey = () => ({ 'x-api-key': key });
const create = (headers: Record<string, string>) => call('POST', '/v1/monitors', headers, { operation: 'microblog-a-user-posts', params: { handle: 'someone.example' }, intervalSeconds: 60, webhookUrl: hook });

test('the monitors API, with an API key: every route', async () => {
  const { calls } = await dbSends(async () => {
    const created = await create({ 'x-api-key': key });
    expect(created.statusCode).toBe(201);
    const id = created.body.data.monitor.id as string;
    expect((await call('GET', '/v1/monitors', { 'x-api-key': key })).statusCode).toBe(200);
    expect((await call('GET', `/v1/monitors/${id}`, { 'x-api-key': key })).statusCode).toBe(200);
    expect((await call('PATCH', `/v1/monitors/${id}`, { 'x-api-key': key }, { status: 'paused' })).statusCode).toBe(200);
    expect((await call('POST', `/v1/monitors/${id}/rotate-secret`, { 'x-api-key': key }, {})).statusCode).toBe(200);
    // Queued (202, pending): the delivery worker sends it, not the API.
    const tested = await call('POST', `/v1/monitors/${id}/test`, { 'x-api-key': key }, {});
    expect(tested.body.data.delivery).toMatchObject({ state: 'pending', lastStatus: null });
    expect((await call('GET', `/v1/monitors/${id}/deliveries/${tested.body.data.delivery.eventId}`, { 'x-api-key': key })).statusCode).toBe(200);
    expect((await call('GET', `/v1/monitors/${id}/deliveries`, { 'x-api-key': key })).statusCode).toBe(200);
    expect((await call('POST', `/v1/monitors/${id}/deliveries/${tested.body.data.delivery.eventId}/redeliver`, { 'x-api-key': key }, {})).statusCode).toBe(202);
    expect((await call('DELETE', `/v1/monitors/${id}`, { 'x-api-key': key })).statusCode).toBe(200);
  });
  expect(calls.length).toBeGreaterThan(10);
  expect(refused('The monitors API', calls)).toEqual([]);
});

test('the monitors API, with a dashboard session', async () => {
  const headers = { cookie, origin: `https://${HOST}` };
  const { calls } = await dbSends(async () => {
    const created = await create(headers);
    expect({ status: created.statusCode, error: created.body.error }).toEqual({ status: 201, error: undefined });
    expect((await call('GET', '/v1/monitors', headers)).statusCode).toBe(200);
    expect((await call('DELETE', `/v1/monitors/${created.body.data.monitor.id}`, headers)).statusCode).toBe(200);
  });
  expect(refused('The monitors API', calls)).toEqual([]);
});

test('the poll worker (a poll with new items, then one that finds no credit), the delivery worker (a failure, then a success) and the tick', async () => {
  const id = (await create(withKey())).body.data.monitor.id as string;
  const m = (await getMonitor(teamId, id))!;
  const answers = [
    { statusCode: 200, body: JSON.stringify({ data: { posts: [{ id: 'a' }] } }) },
    { statusCode: 200, body: JSON.stringify({ data: { posts: [{ id: 'b' }, { id: 'a' }] } }) },
    { statusCode: 402, body: JSON.stringify({ error: { code: 'INSUFFICIENT_CREDITS' } }) },
  ];
  const invoke = async () => answers.shift()!;
  const polls = await dbSends(async () => {
    let due = m.nextPollAt;
    for (let i = 0; i < 3; i++) {
      const now = due + 1;
      expect(await pollMonitor({ teamId, monitorId: id, dueAt: due }, now, logger, invoke)).not.toBeNull();
      due = (await getMonitor(teamId, id))!.nextPollAt;
    }
  });
  expect((await getMonitor(teamId, id))!.status).toBe('paused');
  expect(refused('Monitors: polls through', polls.calls)).toEqual([]);

  const [first] = await listDeliveries(teamId, id);
  statuses = [500, 200];
  const deliveries = await dbSends(async () => {
    const failed = await attempt(teamId, id, first!.eventId, first!.nextAttemptAt!, logger);
    expect(failed).toMatchObject({ state: 'pending', lastStatus: 500 });
    expect(await attempt(teamId, id, first!.eventId, failed!.nextAttemptAt!, logger)).toMatchObject({ state: 'delivered', lastStatus: 200 });
  });
  expect(refused('Monitors: one signed webhook attempt', deliveries.calls)).toEqual([]);

  const tick = await dbSends(() => Promise.all([dueMonitors(Date.now(), 20_000), dueDeliveries(Date.now(), 20_000)]));
  expect(tick.calls.map((c) => c.name)).toEqual(['QueryCommand', 'QueryCommand']);
  expect(refused('Monitors: every minute', tick.calls)).toEqual([]);
  await call('DELETE', `/v1/monitors/${id}`, withKey());
});

test('the evaluator refuses what the roles do not allow: the tick writing, the delivery worker reading a key or writing a team item of accounts (test/infra/iam/tables-reach.test.ts: every role, both tables)', async () => {
  const keyRead = { name: 'GetCommand', input: { TableName: config.accountsTable, Key: { pk: 'KEY#x', sk: 'KEY' } } };
  // A monitor's attributes (the tick may put only items made of a team event's: docs/webhooks.md).
  const monitorWrite = { name: 'PutCommand', input: { TableName: config.eventsTable, Item: { pk: `TEAM#${teamId}`, sk: 'MON#x', status: 'active', webhookUrl: 'https://x' } } };
  const accountsWrite = { name: 'PutCommand', input: { TableName: config.accountsTable, Item: { pk: `TEAM#${teamId}`, sk: 'MON#x' } } };
  expect(refused('Monitors: one signed webhook attempt', [keyRead])).toHaveLength(1);
  expect(refused('Monitors: every minute', [monitorWrite])).toHaveLength(1);
  expect(refused('Monitors: one signed webhook attempt', [monitorWrite])).toEqual([]);
  expect(refused('Monitors: one signed webhook attempt', [accountsWrite])).toHaveLength(1);
});
