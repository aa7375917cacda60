import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { statSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { attempt } from '../../../shared/monitors/deliver';
import { logger } from '../../../shared/runtime/log';
import { startHarness, type Harness } from '../../support/harness';
import { cliEnv, runCli, tempDir } from './support';

/**
 * `social-data webhooks …` in a child process against the local gateway: create (the secret once,
 * to a 0600 file with --out), list, test (a delivery the standardwebhooks package verifies),
 * deliveries, settings, delete; the API's 422 as exit 1 with its details; a malformed command line
 * (an unknown event type) exit 2.
 */
process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
let h: Harness;
let key: string;
let teamId: string;
const received: { headers: Record<string, string>; body: string }[] = [];
const receiver = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c));
  req.on('end', () => {
    received.push({ headers: req.headers as Record<string, string>, body });
    res.writeHead(204).end();
  });
});
let hook = '';
beforeAll(async () => {
  h = await startHarness();
  ({ key, teamId } = await h.team(10));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise((r) => receiver.close(r));
  await h?.stop();
});

const cli = (args: string[]) => runCli(['webhooks', ...args], cliEnv(h.gateway.url, key));
const json = (text: string) => JSON.parse(text) as any; // eslint-disable-line @typescript-eslint/no-explicit-any

test('create (secret to a 0600 file), list, test, deliveries, settings, delete; errors as exit 1 and 2', async () => {
  const out = path.join(tempDir(), 'endpoint.json');
  const created = await cli(['create', '--url', hook, '--type', 'key.revoked', '--type', 'credits.low', '--out', out]);
  expect(created.code).toBe(0);
  expect(created.stderr).toMatch(/shown this once/);
  expect(statSync(out).mode & 0o777).toBe(0o600);
  const { endpoint } = json(readFileSync(out, 'utf8'));
  expect(endpoint).toMatchObject({ types: ['key.revoked', 'credits.low'], status: 'active' });
  expect(json((await cli(['list'])).stdout).endpoints.map((e: { id: string }) => e.id)).toEqual([endpoint.id]);
  const tested = json((await cli(['test', endpoint.id])).stdout).delivery;
  expect(tested).toMatchObject({ type: 'webhook.test', state: 'pending' });
  await attempt(teamId, endpoint.id, tested.eventId, Date.now(), logger);
  expect(new Webhook(endpoint.secret).verify(received[0]!.body, received[0]!.headers)).toMatchObject({ type: 'webhook.test', data: { endpointId: endpoint.id } });
  expect(json((await cli(['deliveries', endpoint.id])).stdout).deliveries[0]).toMatchObject({ eventId: tested.eventId, state: 'delivered' });
  expect(json((await cli(['settings', '--credits-low', '7'])).stdout).settings).toEqual({ creditsLowThreshold: 7, creditAlert: null });
  expect(json((await cli(['settings'])).stdout).settings.creditsLowThreshold).toBe(7);

  const bad = await cli(['create', '--url', 'https://10.0.0.1/x', '--type', 'key.revoked']);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/url/);
  const malformed = await cli(['create', '--url', hook, '--type', 'nope']);
  expect(malformed.code).toBe(2);
  expect((await cli(['delete', endpoint.id])).code).toBe(0);
  expect((await cli(['get', endpoint.id])).code).toBe(1);
});
