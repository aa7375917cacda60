import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { outcomeUpdate } from '../../../shared/accounting/outcome-counts';
import { reserve } from '../../../shared/accounting/reservation';
import { WEBHOOK_ROUTES } from '../../../shared/api/webhook-routes';
import { db } from '../../../shared/db/client';
import { TEAM_SK, teamPk } from '../../../shared/db/tables';
import { runDue } from '../../../shared/monitors/scheduler';
import { config } from '../../../shared/runtime/config';
import { logger } from '../../../shared/runtime/log';
import { resolveNamesWith } from '../../../shared/scrape/address';
import { watchStatus } from '../../../shared/webhooks/status-watch';
import { buildStatus } from '../../../shared/status/page';
import { RECONCILE_AFTER_MS, forgetCreditWatches, reconcileCredits } from '../../../shared/webhooks/credits';
import { addCredits } from '../../../shared/accounting/teams';
import { invokeInProcess } from '../../../dev/monitors';
import { signedInMember } from '../../support/account';
import { invite } from '../../../shared/auth/members';
import { type Harness, startHarness } from '../../support/harness';

/**
 * Team webhook endpoints end to end on the local stack: the API through the local gateway, account
 * events produced by the real account changes (a key revoked through the account API, charges
 * through the reservation), and operation status through the status rules over recorded outcomes;
 * every delivery goes through the monitors' engine (runDue) to a local receiver and is verified
 * with the `standardwebhooks` package.
 */
interface Received {
  headers: Record<string, string>;
  body: string;
}
class Receiver {
  received: Received[] = [];
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      this.received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
    });
  });
  url = '';
  async start() {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }
  /** The events signed with `secret` (the endpoint's), verified by the standardwebhooks package; oldest first. */
  verified(secret: string) {
    const wh = new Webhook(secret);
    return this.received
      .flatMap((r) => {
        try {
          return [{ id: r.headers['webhook-id']!, ...(wh.verify(r.body, r.headers) as { type: string; timestamp: string; data: Record<string, unknown> }) }];
        } catch {
          return []; // another endpoint's
        }
      })
      .sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  }
}

let h: Harness;
const receiver = new Receiver();
let clock = Date.now();
/** Two runs of due work: the first expands a team event into its deliveries, the second attempts them. */
const deliverAll = async () => {
  await runDue((clock = Math.max(clock, Date.now()) + 1000), logger, invokeInProcess);
  await runDue((clock += 1000), logger, invokeInProcess);
};

async function api(method: string, path: string, key: string, body?: unknown, raw?: string) {
  const res = await fetch(h.gateway.url + path, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
  return { status: res.status, body: (await res.json()) as any }; // eslint-disable-line @typescript-eslint/no-explicit-any
}
const createEndpoint = (key: string, types: string[], url = receiver.url) => api('POST', '/v1/webhooks', key, { url, types });

beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  h = await startHarness();
  await receiver.start();
});
afterAll(async () => {
  await new Promise((r) => receiver.server.close(r));
  await h.stop();
});
beforeEach(async () => {
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  await deliverAll();
  receiver.received = [];
});

describe('the endpoint resource', () => {
  test('create answers 201 with a whsec_ secret once; get and list never show it', async () => {
    const { key } = await h.team(10);
    const res = await createEndpoint(key, ['key.revoked', 'credits.low']);
    expect(res.status).toBe(201);
    const e = res.body.data.endpoint;
    expect(e).toMatchObject({ url: receiver.url, types: ['key.revoked', 'credits.low'], status: 'active', description: null, previousSecretExpiresAt: null });
    expect(e.id).toMatch(/^ep_/);
    expect(e.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    const got = await api('GET', `/v1/webhooks/${e.id}`, key);
    expect(got.status).toBe(200);
    expect(got.body.data.endpoint.secret).toBeUndefined();
    const list = await api('GET', '/v1/webhooks', key);
    expect(list.body.data.endpoints.map((x: { id: string }) => x.id)).toEqual([e.id]);
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    const patched = await api('PATCH', `/v1/webhooks/${e.id}`, key, { types: ['operation.degraded'], description: 'ops' });
    expect(patched.body.data.endpoint).toMatchObject({ types: ['operation.degraded'], description: 'ops' });
    expect((await api('DELETE', `/v1/webhooks/${e.id}`, key)).status).toBe(200);
    expect((await api('GET', `/v1/webhooks/${e.id}`, key)).status).toBe(404);
  });

  test('bad bodies are 4xx in the spec error shape, every problem at once', async () => {
    const { key } = await h.team(10);
    const bad = await api('POST', '/v1/webhooks', key, { url: 'ftp://x', types: ['nope'], extra: 1 });
    expect(bad.status).toBe(422);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    const paths = bad.body.error.details.map((d: { path: string }) => d.path).sort();
    expect(paths).toEqual(expect.arrayContaining(['types.0', 'extra']));
    expect((await api('POST', '/v1/webhooks', key, { url: receiver.url, types: [] })).status).toBe(422);
    expect((await api('POST', '/v1/webhooks', key, { types: ['key.revoked'] })).body.error.details[0].path).toBe('url');
    expect((await api('POST', '/v1/webhooks', key, undefined, '[1,2]')).status).toBe(400);
    expect((await api('POST', '/v1/webhooks', key, undefined, '{not json')).status).toBe(400);
    expect((await api('PATCH', '/v1/webhooks/settings', key, { creditsLowThreshold: -3 })).status).toBe(422);
    expect((await api('PATCH', '/v1/webhooks/settings', key, { creditsLowThreshold: 'ten' })).status).toBe(422);
    const created = await createEndpoint(key, ['key.revoked']);
    expect((await api('PATCH', `/v1/webhooks/${created.body.data.endpoint.id}`, key, { status: 'paused' })).status).toBe(422);
  });

  test('a webhook URL must be public https, checked after name resolution (the loopback allowance only for local runs)', async () => {
    const { key } = await h.team(10);
    const refused = async (url: string) => {
      const res = await createEndpoint(key, ['key.revoked'], url);
      expect(res.status).toBe(422);
      expect(res.body.error.details[0].path).toBe('url');
    };
    await refused('https://10.0.0.1/hook');
    await refused('https://[::ffff:7f00:1]/hook');
    await refused('https://169.254.169.254/latest');
    await refused('http://93.184.216.34/hook');
    const restore = resolveNamesWith((_host, _o, cb) => cb(null, [{ address: '192.168.1.5', family: 4 }]));
    try {
      await refused('https://hooks.example.com/in');
    } finally {
      restore();
    }
    process.env.WEBHOOK_ALLOW_LOOPBACK = '';
    try {
      await refused(receiver.url);
    } finally {
      process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
    }
  });

  test("another team's endpoint is 404 on every route", async () => {
    const a = await h.team(10);
    const b = await h.team(10);
    const e = (await createEndpoint(a.key, ['key.revoked'])).body.data.endpoint;
    for (const r of WEBHOOK_ROUTES.filter((x) => x.path.includes('{endpointId}'))) {
      const path = r.path.replace('{endpointId}', e.id).replace('{eventId}', 'evt_0123456789abcdef01234567');
      const res = await api(r.method, path, b.key, r.method === 'GET' || r.method === 'DELETE' ? undefined : r.name === 'update' ? { status: 'disabled' } : {});
      expect([r.name, res.status]).toEqual([r.name, 404]);
    }
    expect((await api('GET', '/v1/webhooks', b.key)).body.data.endpoints).toEqual([]);
    expect((await api('GET', `/v1/webhooks/${e.id}`, a.key)).status).toBe(200);
  });
});

describe('account events arrive signed at a local receiver', () => {
  test('key.revoked and member.removed: the account API change and its event together; only the subscribed types', async () => {
    const m = await signedInMember(h, 10);
    const e = (await createEndpoint(m.key, ['key.revoked', 'member.removed'])).body.data.endpoint;
    const other = await h.team(10);
    await createEndpoint(other.key, ['key.revoked', 'key.created']);
    const made = await m.client.post('/v1/account/keys', { name: 'ci' });
    expect(made.status).toBe(201);
    const keyId = made.body.data.key.keyId;
    expect((await m.client.request('DELETE', `/v1/account/keys/${keyId}`)).status).toBe(200);
    // Revoked again: no second event.
    expect((await m.client.request('DELETE', `/v1/account/keys/${keyId}`)).status).toBe(200);
    const email = `leaver-${Date.now()}@example.com`;
    await invite(m.teamId, email);
    const leaver = (await m.client.get('/v1/account/members')).body.data.members.find((x: { email: string }) => x.email === email);
    expect((await m.client.request('DELETE', `/v1/account/members/${leaver.memberId}`)).status).toBe(200);
    await deliverAll();
    const events = receiver.verified(e.secret);
    expect(events.map((x) => x.type).sort()).toEqual(['key.revoked', 'member.removed']);
    // Nothing of this team's reached the other team's endpoint (its own key.created came before it existed).
    expect(receiver.received).toHaveLength(2);
    const revoked = events.find((x) => x.type === 'key.revoked')!;
    expect(revoked.data).toMatchObject({ teamId: m.teamId, keyId, name: 'ci' });
    expect(events.find((x) => x.type === 'member.removed')!.data).toMatchObject({ teamId: m.teamId, memberId: leaver.memberId, email });
    expect(revoked.id).toMatch(/^evt_[0-9a-f]{24}$/);
    const deliveries = await api('GET', `/v1/webhooks/${e.id}/deliveries`, m.key);
    expect(deliveries.body.data.deliveries.map((d: { eventId: string }) => d.eventId).sort()).toEqual(events.map((x) => x.id).sort());
    expect(deliveries.body.data.deliveries.every((d: { state: string; attempts: number }) => d.state === 'delivered' && d.attempts === 1)).toBe(true);
    const one = await api('GET', `/v1/webhooks/${e.id}/deliveries/${revoked.id}`, m.key);
    expect(one.body.data.delivery.recentAttempts).toEqual([expect.objectContaining({ status: 200 })]);
  });

  test('credits.low: once per crossing of the threshold the team set, decided by the charge; credits.exhausted at zero', async () => {
    const { key, teamId } = await h.team(5);
    const e = (await createEndpoint(key, ['credits.low', 'credits.exhausted'])).body.data.endpoint;
    const set = await api('PATCH', '/v1/webhooks/settings', key, { creditsLowThreshold: 3 });
    expect(set.body.data.settings).toEqual({ creditsLowThreshold: 3, creditAlert: null });
    // 5 -> 4 -> 3 (not below) -> 2 (below: the crossing) -> 1 -> 0 (exhausted).
    forgetCreditWatches();
    for (let i = 0; i < 5; i++) await reserve(teamId);
    await deliverAll();
    const events = receiver.verified(e.secret);
    expect(events.map((x) => [x.type, x.data.credits]).sort()).toEqual([
      ['credits.exhausted', 0],
      ['credits.low', 2],
    ]);
    expect(events.find((x) => x.type === 'credits.low')!.data).toEqual({ teamId, credits: 2, threshold: 3 });
    expect((await api('GET', '/v1/webhooks/settings', key)).body.data.settings.creditAlert).toBe('exhausted');
  });

  test('credits.low after a crash between the charge and its event: the minute check writes it, once', async () => {
    const { key, teamId } = await h.team(10);
    const e = (await createEndpoint(key, ['credits.low'])).body.data.endpoint;
    await api('PATCH', '/v1/webhooks/settings', key, { creditsLowThreshold: 5 });
    // A charge that crossed, whose process died before its event: the balance moved, nothing else.
    await db().send(new UpdateCommand({ TableName: config.accountsTable, Key: { pk: teamPk(teamId), sk: TEAM_SK }, UpdateExpression: 'SET credits = :c', ExpressionAttributeValues: { ':c': 4 } }));
    // The first look marks the discrepancy; a minute later, still there, it is announced; later looks add nothing.
    const t0 = Date.now();
    expect((await reconcileCredits(logger, t0)).written).toBe(0);
    expect((await reconcileCredits(logger, t0 + 30_000)).written).toBe(0);
    expect((await reconcileCredits(logger, t0 + RECONCILE_AFTER_MS + 1)).written).toBe(1);
    expect((await reconcileCredits(logger, t0 + 3 * RECONCILE_AFTER_MS)).written).toBe(0);
    // The engine's clock past the tick's (the event is stamped with the tick's time).
    clock = t0 + 3 * RECONCILE_AFTER_MS;
    await deliverAll();
    const events = receiver.verified(e.secret);
    expect(events.map((x) => [x.type, x.data.credits])).toEqual([['credits.low', 4]]);
    // Credits granted back above the threshold: cleared at once; the next charge that crosses is announced again.
    await addCredits(teamId, 10);
    expect((await api('GET', '/v1/webhooks/settings', key)).body.data.settings.creditAlert).toBe(null);
    forgetCreditWatches();
    for (let i = 0; i < 10; i++) await reserve(teamId);
    await deliverAll();
    expect(receiver.verified(e.secret).map((x) => [x.type, x.data.credits])).toEqual([['credits.low', 4], ['credits.low', 4]]);
  });

  test('operation.degraded and operation.recovered: from the public status, one broadcast to every subscribed endpoint', async () => {
    const a = await h.team(10);
    const b = await h.team(10);
    const ea = (await createEndpoint(a.key, ['operation.degraded', 'operation.recovered'])).body.data.endpoint;
    const eb = (await createEndpoint(b.key, ['operation.degraded'])).body.data.endpoint;
    const nobody = await h.team(10);
    await createEndpoint(nobody.key, ['key.revoked']);
    const op = 'microblog-a-user-posts';
    const answers = async (status: number, n: number) => {
      for (let i = 0; i < n; i++) await db().send(new UpdateCommand(outcomeUpdate({ operation: op, status, cached: false, live: true, ms: 300, upstreamCalls: 1, at: Date.now() })));
    };
    await answers(200, 20);
    await watchStatus(Date.now(), buildStatus, logger, { force: true });
    await answers(503, 10);
    const changed = await watchStatus(Date.now(), buildStatus, logger, { force: true });
    expect(changed).toEqual([expect.objectContaining({ operation: op, type: 'operation.degraded', previous: 'operational' })]);
    // Seen again: nothing new.
    expect(await watchStatus(Date.now(), buildStatus, logger, { force: true })).toEqual([]);
    await deliverAll();
    const signedWith = (secret: string) =>
      receiver.received.filter((r) => {
        try {
          new Webhook(secret).verify(r.body, r.headers);
          return true;
        } catch {
          return false;
        }
      });
    const byA = signedWith(ea.secret);
    const byB = signedWith(eb.secret);
    expect(receiver.received).toHaveLength(2);
    expect(byA.map((r) => JSON.parse(r.body).type)).toEqual(['operation.degraded']);
    expect(byB.map((r) => JSON.parse(r.body).type)).toEqual(['operation.degraded']);
    // The same event: one webhook-id for both teams' deliveries.
    expect(byA[0]!.headers['webhook-id']).toBe(byB[0]!.headers['webhook-id']);
    expect(JSON.parse(byA[0]!.body).data).toMatchObject({ operation: op, status: 'degraded', previous: 'operational' });
    // Back under the rules' failure share: recovered, to the endpoint that wants it only.
    receiver.received = [];
    await answers(200, 90);
    expect(await watchStatus(Date.now(), buildStatus, logger, { force: true })).toEqual([expect.objectContaining({ operation: op, type: 'operation.recovered', previous: 'degraded' })]);
    await deliverAll();
    expect(signedWith(ea.secret).map((r) => JSON.parse(r.body).type)).toEqual(['operation.recovered']);
    expect(signedWith(eb.secret)).toEqual([]);
  });
});
