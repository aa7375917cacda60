import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ensureTables } from '../../../dev/tables';
import { teamWithKey } from '../../../dev/teams';
import { invokeInProcess } from '../../../dev/monitors';
import { FakeUpstream, fixture } from '../../../dev/upstream/fake';
import { handler as accountApi } from '../../../functions/account';
import { handler as monitorsApi } from '../../../functions/monitors';
import { ledger } from '../../../shared/accounting/ledger';
import { balance } from '../../../shared/accounting/teams';
import { createKey } from '../../../shared/auth/keys';
import { getMember, invite, setPassword } from '../../../shared/auth/members';
import { SESSION_COOKIE, startSession } from '../../../shared/auth/sessions';
import { proxyEvent } from '../../../shared/http/proxy-event';
import { PAUSES_PER_TRANSACTION } from '../../../shared/monitors/owner';
import { pollMonitor } from '../../../shared/monitors/poll';
import { runDue } from '../../../shared/monitors/scheduler';
import { createMonitor, getMonitor, listDeliveries } from '../../../shared/monitors/store';
import { logger } from '../../../shared/runtime/log';
import { aMonitor } from '../../support/monitors';
import { dbSends, type Sent } from '../../support/db-sends';

/**
 * Eager pause (issue 39 part 5): revoking a key (account API) or removing a member pauses the
 * monitors created with that key or by that member in the revocation's or removal's own transaction
 * (monitor.paused, key_revoked / member_removed), unless the monitor was transferred first; what a
 * transaction cannot hold is paused right after, and should that follow-up be lost, the next poll
 * pauses it before any request. The probe that failed before: a removed member's monitor made 6
 * polls and was charged 6 credits after the removal.
 */
process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
process.env.MONITOR_MIN_INTERVAL_SECONDS = '1';

const PROFILE = '/xrpc/app.bsky.actor.getProfile';
const FEED = '/xrpc/app.bsky.feed.getAuthorFeed';
const HANDLE = 'marlowe-tern.bsky.social';
const HOST = 'api.example.test';

const fake = new FakeUpstream();
const received: { id: string; type: string; reason?: string }[] = [];
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { reason?: string } };
    received.push({ id: String(req.headers['webhook-id']), type: body.type, ...(body.data.reason ? { reason: body.data.reason } : {}) });
    res.writeHead(200).end();
  });
});
let hook = '';

beforeAll(async () => {
  await ensureTables();
  await fake.start();
  process.env.UPSTREAM_MICROBLOG_A_URL = fake.url;
  fake.on(PROFILE, { body: fixture('microblog-a/profile.json') });
  fake.on(FEED, { body: fixture('microblog-a/feed-page1.json') });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await fake.stop();
  await new Promise((r) => receiver.close(r));
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Answer = { statusCode: number; body: any };
const event = (method: string, path: string, headers: Record<string, string>, body?: unknown): APIGatewayProxyEvent =>
  proxyEvent({ method, path, headers: { host: HOST, ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }, { requestId: randomUUID() });
const call = async (api: typeof accountApi, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> => {
  const res = await api(event(method, path, headers, body));
  return { statusCode: res.statusCode, body: JSON.parse(res.body) };
};
const sessionHeaders = (cookie: string) => ({ cookie, origin: `https://${HOST}` });

/** A signed-in member of the team: their session's headers and their member id. */
async function member(teamId: string, email: string): Promise<{ headers: Record<string, string>; memberId: string }> {
  const { token } = await invite(teamId, email);
  await setPassword(token, 'a long enough password');
  const m = (await getMember(email))!;
  return { headers: sessionHeaders(`${SESSION_COOKIE}=${(await startSession(m)).id}`), memberId: m.memberId };
}
const newMonitorBody = () => ({ operation: 'microblog-a-user-posts', params: { handle: HANDLE }, intervalSeconds: 1, webhookUrl: hook });
const feedRequests = () => fake.requests.filter((r) => r.path.startsWith(FEED)).length;

test('probe: a removed member\'s monitor is paused by the removal itself; after it, no poll reaches the upstream, nothing is charged, nothing but monitor.paused is delivered', async () => {
  const { teamId } = await teamWithKey(`eager-${randomUUID().slice(0, 6)}`, 100);
  const owner = await member(teamId, `owner-${randomUUID().slice(0, 6)}@example.com`);
  const leaving = await member(teamId, `leaving-${randomUUID().slice(0, 6)}@example.com`);
  const created = await call(monitorsApi, 'POST', '/v1/monitors', leaving.headers, newMonitorBody());
  expect(created.statusCode).toBe(201);
  const id = created.body.data.monitor.id as string;

  // Working before the removal: polled (charged), monitor.ready delivered.
  let clock = Date.now();
  for (let i = 0; i < 2; i++) await runDue((clock += 5_000), logger, invokeInProcess);
  const before = { feed: feedRequests(), charges: (await ledger(teamId)).length, credits: await balance(teamId), received: received.length };
  expect(before.feed).toBeGreaterThan(0);
  expect(before.charges).toBeGreaterThan(0);
  expect(received.some((r) => r.type === 'monitor.ready')).toBe(true);

  const removed = await call(accountApi, 'DELETE', `/v1/account/members/${leaving.memberId}`, owner.headers);
  expect(removed.statusCode).toBe(200);
  expect(removed.body.data.monitors).toEqual({ paused: [id], transferred: [] });
  // Paused at once, by the removal's own transaction: before any tick ran.
  expect(await getMonitor(teamId, id)).toMatchObject({ status: 'paused', pausedReason: 'member_removed' });

  // Six intervals' worth of ticks (it failed before with 6 polls and 6 credits after the removal).
  for (let i = 0; i < 6; i++) await runDue((clock += 5_000), logger, invokeInProcess);
  expect(feedRequests()).toBe(before.feed);
  expect((await ledger(teamId)).length).toBe(before.charges);
  expect(await balance(teamId)).toBe(before.credits);
  expect(received.slice(before.received).map((r) => ({ type: r.type, reason: r.reason }))).toEqual([{ type: 'monitor.paused', reason: 'member_removed' }]);
  console.log(`eager pause probe: after the removal ${feedRequests() - before.feed} upstream requests, ${(await ledger(teamId)).length - before.charges} charges, ${received.length - before.received} deliveries (monitor.paused)`);
});

test(`revoking a key with ${PAUSES_PER_TRANSACTION + 11} monitors: ${PAUSES_PER_TRANSACTION} paused in the revocation's transaction, the rest right after; each with one monitor.paused (key_revoked)`, async () => {
  const { teamId, keyId } = await teamWithKey(`eager-many-${randomUUID().slice(0, 6)}`, 100);
  const owner = await member(teamId, `owner-${randomUUID().slice(0, 6)}@example.com`);
  const ids: string[] = [];
  for (let i = 0; i < PAUSES_PER_TRANSACTION + 11; i++) {
    const m = aMonitor(teamId, { keyId, webhookUrl: hook });
    expect(await createMonitor(m, 1000)).toBe(true);
    ids.push(m.monitorId);
  }
  const other = aMonitor(teamId, { keyId: 'another-key', webhookUrl: hook });
  await createMonitor(other, 1000);
  const { result, calls } = await dbSends(() => call(accountApi, 'DELETE', `/v1/account/keys/${keyId}`, owner.headers));
  expect(result.statusCode).toBe(200);
  expect([...result.body.data.monitorsPaused].sort()).toEqual([...ids].sort());
  expect(result.body.data.key.status).toBe('revoked');
  const transactions = calls.filter((c) => c.name === 'TransactWriteCommand').map((c) => c.input.TransactItems as Record<string, { TableName: string }>[]);
  // The first: the key's revocation (accounts) and its key.revoked outbox item (docs/webhooks.md), with 49 pauses and their events (events table).
  expect(transactions[0]).toHaveLength(2 + 2 * PAUSES_PER_TRANSACTION);
  expect(Object.values(transactions[0]![0]!)[0]!.TableName).toBe(process.env.ACCOUNTS_TABLE);
  expect(transactions.slice(1).map((t) => t.length)).toEqual(Array(11).fill(2));
  for (const id of ids) {
    expect(await getMonitor(teamId, id)).toMatchObject({ status: 'paused', pausedReason: 'key_revoked' });
    const events = (await listDeliveries(teamId, id)).map((d) => JSON.parse(d.body) as { type: string; data: { reason: string } });
    expect(events.map((e) => [e.type, e.data.reason])).toEqual([['monitor.paused', 'key_revoked']]);
  }
  expect((await getMonitor(teamId, other.monitorId))!.status).toBe('active');
  // Again: nothing more to pause, no second event.
  const again = await call(accountApi, 'DELETE', `/v1/account/keys/${keyId}`, owner.headers);
  expect(again.body.data.monitorsPaused).toEqual([]);
  expect((await listDeliveries(teamId, ids[0]!)).length).toBe(1);
});

test('the follow-up lost (every write after the revocation\'s transaction fails): the monitors left active are paused by their next poll, which never reaches the upstream', async () => {
  const { teamId, keyId } = await teamWithKey(`eager-lost-${randomUUID().slice(0, 6)}`, 100);
  const owner = await member(teamId, `owner-${randomUUID().slice(0, 6)}@example.com`);
  const ms = Array.from({ length: PAUSES_PER_TRANSACTION + 3 }, () => aMonitor(teamId, { keyId, webhookUrl: hook }));
  for (const m of ms) await createMonitor(m, 1000);
  let transactions = 0;
  const lose = async (sent: Sent, answer: () => Promise<unknown>) => {
    if (sent.name === 'TransactWriteCommand' && ++transactions > 1) throw Object.assign(new Error('injected: the follow-up is lost'), { name: 'InjectedFault' });
    return answer();
  };
  const { result } = await dbSends(() => call(accountApi, 'DELETE', `/v1/account/keys/${keyId}`, owner.headers), lose as never);
  expect(result.statusCode).toBe(200);
  expect(result.body.data.monitorsPaused).toHaveLength(PAUSES_PER_TRANSACTION);
  const left = [];
  for (const m of ms) if ((await getMonitor(teamId, m.monitorId))!.status === 'active') left.push(m);
  expect(left).toHaveLength(3);
  const invoked: string[] = [];
  for (const m of left) {
    const out = await pollMonitor({ teamId, monitorId: m.monitorId, dueAt: m.nextPollAt }, Date.now(), logger, async (op) => {
      invoked.push(op);
      return { statusCode: 200, body: '{}' };
    });
    expect(out?.events).toEqual(['monitor.paused']);
    expect(await getMonitor(teamId, m.monitorId)).toMatchObject({ status: 'paused', pausedReason: 'key_revoked' });
  }
  expect(invoked).toEqual([]);
});

test('unless transferred: a monitor taken over by another key (POST /v1/monitors/{id}/transfer) stays active when the key it was created with is revoked; a removal with transferKeysTo binds the member\'s monitors to the recipient', async () => {
  const { teamId, key, keyId } = await teamWithKey(`eager-transfer-${randomUUID().slice(0, 6)}`, 100);
  const owner = await member(teamId, `owner-${randomUUID().slice(0, 6)}@example.com`);
  const second = await createKey(teamId, 'second', 'usage-unused');
  const created = await call(monitorsApi, 'POST', '/v1/monitors', { 'x-api-key': key }, newMonitorBody());
  const id = created.body.data.monitor.id as string;
  const transferred = await call(monitorsApi, 'POST', `/v1/monitors/${id}/transfer`, { 'x-api-key': second.secret }, {});
  expect(transferred.statusCode).toBe(200);
  expect((await getMonitor(teamId, id))!.keyId).toBe(second.record.keyId);
  const revoked = await call(accountApi, 'DELETE', `/v1/account/keys/${keyId}`, owner.headers);
  expect(revoked.body.data.monitorsPaused).toEqual([]);
  expect((await getMonitor(teamId, id))!.status).toBe('active');
  // Another team's monitor cannot be taken over: 404.
  const stranger = await teamWithKey(`eager-stranger-${randomUUID().slice(0, 6)}`, 1);
  expect((await call(monitorsApi, 'POST', `/v1/monitors/${id}/transfer`, { 'x-api-key': stranger.key }, {})).statusCode).toBe(404);

  const leaving = await member(teamId, `leaving-${randomUUID().slice(0, 6)}@example.com`);
  const heir = await member(teamId, `heir-${randomUUID().slice(0, 6)}@example.com`);
  const theirs = (await call(monitorsApi, 'POST', '/v1/monitors', leaving.headers, newMonitorBody())).body.data.monitor.id as string;
  const removed = await call(accountApi, 'DELETE', `/v1/account/members/${leaving.memberId}`, owner.headers, { transferKeysTo: heir.memberId });
  expect(removed.body.data.monitors).toEqual({ paused: [], transferred: [theirs] });
  expect(await getMonitor(teamId, theirs)).toMatchObject({ status: 'active', memberId: heir.memberId });
});
