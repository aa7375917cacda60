import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BAD_ORIGIN, NOT_SIGNED_IN } from '../../../shared/account/api';
import { invite } from '../../../shared/auth/members';
import { AccountClient, signedInMember } from '../../support/account';
import { type Harness, startHarness } from '../../support/harness';
import { routesOfOneMonitor } from '../../support/monitors';

/**
 * The monitors API with a dashboard session instead of a key, through the local gateway: the
 * sign-in's cookie is scoped to /v1, so a browser sends it to /v1/monitors; every member of the
 * team (owner or not) manages the team's monitors; state-changing requests need this site's
 * Origin; another team's monitor is 404; no live session is 401.
 */
process.env.MONITOR_MIN_INTERVAL_SECONDS = '1';

let h: Harness;
let hookUrl: string;
const hooks = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(200).end()));
beforeAll(async () => {
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  h = await startHarness();
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise((r) => hooks.close(r));
  await h.stop();
});

const NEW_MONITOR = () => ({ operation: 'microblog-a-user-posts', params: { handle: 'marlowe-tern.bsky.social' }, intervalSeconds: 3600, webhookUrl: hookUrl });

/** A second member of the same team, with the plain `member` role, signed in. */
async function plainMember(teamId: string) {
  const email = `plain-${Date.now().toString(36)}@example.com`;
  const { token } = await invite(teamId, email, Date.now(), 'member');
  const client = new AccountClient(h);
  await client.post('/v1/account/password', { token, password: 'a plain member password' });
  const signIn = await client.post('/v1/account/sign-in', { email, password: 'a plain member password' });
  expect(signIn.body.data.role).toBe('member');
  return { client, memberId: signIn.body.data.memberId as string };
}

test('the session cookie is sent to /v1/monitors by a browser: its Path covers the route', async () => {
  const m = await signedInMember(h);
  const path = /; Path=([^;]+);/.exec(m.signIn.headers.getSetCookie()[0]!)![1]!;
  expect(path).toBe('/v1');
  for (const route of ['/v1/monitors', '/v1/monitors/mon_1/deliveries', '/v1/account/me']) expect(route.startsWith(`${path}/`)).toBe(true);
});

test('a signed-in owner creates, lists, pauses, resumes, tests and deletes a monitor with the session alone', async () => {
  const { client } = await signedInMember(h);
  const created = await client.post('/v1/monitors', NEW_MONITOR());
  expect(created.status).toBe(201);
  const m = created.body.data.monitor;
  expect(m).toMatchObject({ operation: 'microblog-a-user-posts', status: 'active', webhookUrl: hookUrl });
  expect(m.secret).toMatch(/^whsec_/);

  const list = await client.get('/v1/monitors');
  expect(list.status).toBe(200);
  expect(list.body.data.monitors.map((x: { id: string }) => x.id)).toEqual([m.id]);
  expect(JSON.stringify(list.body)).not.toContain('whsec_');

  const paused = await client.request('PATCH', `/v1/monitors/${m.id}`, { status: 'paused' });
  expect(paused.body.data.monitor).toMatchObject({ status: 'paused', pausedReason: 'by_request', nextPollAt: null });
  expect((await client.request('PATCH', `/v1/monitors/${m.id}`, { status: 'active' })).body.data.monitor.status).toBe('active');

  const tested = await client.post(`/v1/monitors/${m.id}/test`);
  expect(tested.status).toBe(202);
  // Queued (the delivery worker sends it), not attempted inside the request.
  expect(tested.body.data.delivery).toMatchObject({ type: 'monitor.test', state: 'pending', lastStatus: null });
  const { eventId } = tested.body.data.delivery;
  expect((await client.get(`/v1/monitors/${m.id}/deliveries`)).body.data.deliveries.map((d: { eventId: string }) => d.eventId)).toContain(eventId);
  expect((await client.post(`/v1/monitors/${m.id}/deliveries/${eventId}/redeliver`)).status).toBe(202);
  expect((await client.post(`/v1/monitors/${m.id}/rotate-secret`)).body.data.monitor.secret).toMatch(/^whsec_/);

  expect((await client.request('DELETE', `/v1/monitors/${m.id}`)).body.data).toEqual({ deleted: true, id: m.id });
  expect((await client.get(`/v1/monitors/${m.id}`)).status).toBe(404);
});

test('a member who is not an owner manages every monitor of the team, as any key of the team does; removed, their session is 401', async () => {
  const owner = await signedInMember(h);
  const plain = await plainMember(owner.teamId);
  const byKey = await fetch(`${h.gateway.url}/v1/monitors`, { method: 'POST', headers: { 'x-api-key': owner.key, 'content-type': 'application/json' }, body: JSON.stringify(NEW_MONITOR()) });
  const fromKey = ((await byKey.json()) as { data: { monitor: { id: string } } }).data.monitor.id;
  const fromOwner = (await owner.client.post('/v1/monitors', NEW_MONITOR())).body.data.monitor.id;
  const fromPlain = (await plain.client.post('/v1/monitors', NEW_MONITOR())).body.data.monitor.id;
  expect((await plain.client.get('/v1/monitors')).body.data.monitors.map((x: { id: string }) => x.id).sort()).toEqual([fromKey, fromOwner, fromPlain].sort());
  expect((await plain.client.request('PATCH', `/v1/monitors/${fromOwner}`, { status: 'paused' })).body.data.monitor.status).toBe('paused');
  expect((await plain.client.request('DELETE', `/v1/monitors/${fromKey}`)).status).toBe(200);
  expect((await owner.client.request('DELETE', `/v1/monitors/${fromPlain}`)).status).toBe(200);

  // Removed by the owner: the member's session is refused from the very next request, and its cookie cleared.
  expect((await owner.client.request('DELETE', `/v1/account/members/${plain.memberId}`)).status).toBe(200);
  const cookie = plain.client.cookie;
  const refused = await plain.client.get('/v1/monitors');
  expect(refused.status).toBe(401);
  expect(refused.body.error).toMatchObject({ code: 'UNAUTHORIZED', message: NOT_SIGNED_IN });
  expect((await plain.client.request('DELETE', `/v1/monitors/${fromOwner}`, undefined, { cookie })).status).toBe(401);
  expect((await owner.client.get(`/v1/monitors/${fromOwner}`)).body.data.monitor.status).toBe('paused');
});

test('a state-changing request with the session needs this site’s Origin: a forged or missing one is 400 and changes nothing', async () => {
  const { client } = await signedInMember(h);
  const id = (await client.post('/v1/monitors', NEW_MONITOR())).body.data.monitor.id;
  const forged: [string, string, unknown][] = [
    ['POST', '/v1/monitors', NEW_MONITOR()],
    ['PATCH', `/v1/monitors/${id}`, { status: 'paused' }],
    ['POST', `/v1/monitors/${id}/rotate-secret`, {}],
    ['DELETE', `/v1/monitors/${id}`, undefined],
  ];
  for (const origin of ['https://evil.example', 'http://127.0.0.1:1', null]) {
    for (const [method, path, body] of forged) {
      const res = await client.request(method, path, body, { origin });
      expect({ method, path, origin, status: res.status, error: res.body.error }).toEqual({ method, path, origin, status: 400, error: expect.objectContaining({ code: 'BAD_REQUEST', message: BAD_ORIGIN }) });
    }
  }
  const [still] = (await client.get('/v1/monitors')).body.data.monitors;
  expect(still).toMatchObject({ id, status: 'active' });
  expect((await client.get('/v1/monitors')).body.data.monitors).toHaveLength(1);
});

test("another team's monitor is 404 on every route through a session", async () => {
  const owner = await signedInMember(h);
  const other = await signedInMember(h);
  const id = (await owner.client.post('/v1/monitors', NEW_MONITOR())).body.data.monitor.id;
  const eventId = (await owner.client.post(`/v1/monitors/${id}/test`)).body.data.delivery.eventId;
  const routes = routesOfOneMonitor(id, eventId);
  for (const [method, path, body] of routes) {
    const res = await other.client.request(method, path, body);
    expect({ method, path, status: res.status, code: res.body.error?.code }).toEqual({ method, path, status: 404, code: 'NOT_FOUND' });
  }
  expect((await other.client.get('/v1/monitors')).body.data.monitors).toEqual([]);
  expect((await owner.client.get(`/v1/monitors/${id}`)).body.data.monitor.status).toBe('active');
});

test('no session (none, unknown, or signed out) is 401, and a stale cookie is cleared at both paths', async () => {
  const m = await signedInMember(h);
  const nobody = new AccountClient(h);
  for (const [method, path] of [['GET', '/v1/monitors'], ['POST', '/v1/monitors'], ['DELETE', '/v1/monitors/mon_x']]) {
    const res = await nobody.request(method!, path!, method === 'GET' ? undefined : {});
    expect({ method, status: res.status, code: res.body.error.code }).toEqual({ method, status: 401, code: 'UNAUTHORIZED' });
  }
  const old = m.client.cookie!;
  expect((await m.client.post('/v1/account/sign-out')).status).toBe(200);
  const stale = await nobody.get('/v1/monitors', { cookie: old });
  expect(stale.status).toBe(401);
  expect(stale.body.error.message).toBe(NOT_SIGNED_IN);
  expect(stale.headers.getSetCookie()).toEqual(['sda_session=; Path=/v1; Max-Age=0; HttpOnly; SameSite=Strict', 'sda_session=; Path=/v1/account; Max-Age=0; HttpOnly; SameSite=Strict']);
});
