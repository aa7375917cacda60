import { proxyEvent } from '../../../shared/http/proxy-event';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { ensureTables } from '../../../dev/tables';
import { teamWithKey } from '../../../dev/teams';
import { handler as monitorsApi } from '../../../functions/monitors';
import { attempt } from '../../../shared/monitors/deliver';
import { newSecret, sealLocalSecret } from '../../../shared/webhooks/secret';
import { type Delivery, getDelivery, listMonitors, putDelivery, putMonitor } from '../../../shared/monitors/store';
import { logger } from '../../../shared/runtime/log';

/**
 * The monitors API's limits, in process on DynamoDB Local: the per-team limit taken atomically
 * (30 creates at once at 98 monitors make exactly 2), /test and /redeliver queued (nothing sent
 * inside the request), one per monitor every few seconds (429 with Retry-After), and a redelivered
 * event keeping its first createdAt.
 */
process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
let posts = 0;
const receiver = http.createServer((req, res) => req.resume().on('end', () => (posts++, res.writeHead(200).end())));
let hook = '';
beforeAll(async () => {
  await ensureTables();
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise((r) => receiver.close(r)));

function event(method: string, path: string, key: string, body?: unknown): APIGatewayProxyEvent {
  return proxyEvent({ method, path, headers: { 'x-api-key': key }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }, { requestId: randomUUID() });
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const call = async (method: string, path: string, key: string, body?: unknown): Promise<{ status: number; headers: Record<string, unknown>; body: any }> => {
  const res = await monitorsApi(event(method, path, key, body));
  return { status: res.statusCode, headers: res.headers ?? {}, body: JSON.parse(res.body) };
};
const NEW = () => ({ operation: 'microblog-a-user-posts', params: { handle: 'someone.example' }, intervalSeconds: 60, webhookUrl: hook });

test('30 creates at once at 98 monitors make exactly 2 (limit 100)', async () => {
  const { teamId, key } = await teamWithKey('limit-team', 10);
  const now = Date.now();
  for (let i = 0; i < 98; i++) {
    await putMonitor({ teamId, monitorId: `mon_seed${i}`, operation: 'microblog-a-user-posts', params: { handle: 'someone.example' }, intervalSeconds: 60, webhookUrl: hook, status: 'paused', pausedReason: 'by_request', secret: sealLocalSecret(newSecret()), createdAt: new Date(now).toISOString(), updatedAt: new Date(now).toISOString(), nextPollAt: now });
  }
  const answers = await Promise.all(Array.from({ length: 30 }, () => call('POST', '/v1/monitors', key, NEW())));
  expect(answers.filter((a) => a.status === 201)).toHaveLength(2);
  for (const a of answers.filter((x) => x.status !== 201)) expect(a).toMatchObject({ status: 400, body: { error: { code: 'BAD_REQUEST' } } });
  expect(await listMonitors(teamId)).toHaveLength(100);
  // A delete gives its place back.
  const made = answers.find((a) => a.status === 201)!.body.data.monitor.id as string;
  expect((await call('DELETE', `/v1/monitors/${made}`, key)).status).toBe(200);
  expect((await call('POST', '/v1/monitors', key, NEW())).status).toBe(201);
  expect((await call('POST', '/v1/monitors', key, NEW())).status).toBe(400);
});

test('a stored webhook URL is the parsed one', async () => {
  const { key } = await teamWithKey('url-team', 10);
  const created = await call('POST', '/v1/monitors', key, { ...NEW(), webhookUrl: hook.replace('http://', 'HTTP://').replace('/hook', '/a/../hook') });
  expect(created.body.data.monitor.webhookUrl).toBe(hook);
});

test('10 redeliveries at once: queued once (the others 429 with Retry-After, or told it is already pending), nothing sent inside the requests; createdAt kept', async () => {
  const { teamId, key } = await teamWithKey('redeliver-team', 10);
  const m = (await call('POST', '/v1/monitors', key, NEW())).body.data.monitor;
  const createdAt = Date.now() - 3 * 86_400_000;
  const old: Delivery = { teamId, monitorId: m.id, eventId: 'msg_redeliver000000000001', type: 'monitor.test', body: '{"type":"monitor.test"}', timestamp: createdAt, createdAt, attempts: 1, lastStatus: 200, state: 'delivered' };
  await putDelivery(old);
  posts = 0;
  const answers = await Promise.all(Array.from({ length: 10 }, () => call('POST', `/v1/monitors/${m.id}/deliveries/${old.eventId}/redeliver`, key, {})));
  expect(posts).toBe(0);
  expect(answers.every((a) => a.status === 202 || a.status === 429)).toBe(true);
  for (const a of answers.filter((x) => x.status === 429)) {
    expect(a.body.error.code).toBe('RATE_LIMITED');
    expect(Number(a.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  }
  const queued = (await getDelivery(teamId, m.id, old.eventId))!;
  expect(queued).toMatchObject({ state: 'pending', createdAt, attempts: 1 });
  // The worker's attempts (two at once): one POST.
  await Promise.all([attempt(teamId, m.id, old.eventId, Date.now(), logger), attempt(teamId, m.id, old.eventId, Date.now(), logger)]);
  expect(posts).toBe(1);
  const after = await call('GET', `/v1/monitors/${m.id}/deliveries/${old.eventId}`, key);
  expect(after.body.data.delivery).toMatchObject({ state: 'delivered', attempts: 2, createdAt: new Date(createdAt).toISOString() });
  expect(after.body.data.delivery.recentAttempts).toHaveLength(1);
  // A test right after: within 5 s of the redelivery, refused.
  const tested = await call('POST', `/v1/monitors/${m.id}/test`, key, {});
  expect(tested.status).toBe(429);
});
