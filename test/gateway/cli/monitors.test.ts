import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { attempt } from '../../../shared/monitors/deliver';
import { logger } from '../../../shared/runtime/log';
import { startHarness, type Harness } from '../../support/harness';
import { cliEnv, runCli, tempDir } from './support';

/**
 * `social-data monitors …` in a child process against the local gateway: create (the secret printed
 * once, with a reminder), list, test (a delivery the standardwebhooks package verifies at a local
 * receiver), pause, resume, deliveries, redeliver, delete; the API's 404 and 422 as exit 1 with
 * their details; a malformed command line as exit 2, nothing sent.
 */
process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
let h: Harness;
let key: string;
let teamId: string;
let other: string;
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
  ({ key: other } = await h.team(10));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise((r) => receiver.close(r));
  await h?.stop();
});

const cli = (args: string[], apiKey = key) => runCli(['monitors', ...args], cliEnv(h.gateway.url, apiKey));
const json = (text: string) => JSON.parse(text) as any; // eslint-disable-line @typescript-eslint/no-explicit-any

test('create, list, test, pause, resume, deliveries, redeliver, delete', async () => {
  // The file holding the secret is its owner's only, even one that existed world-readable.
  const secretFile = path.join(tempDir(), 'monitor.json');
  writeFileSync(secretFile, '', { mode: 0o644 });
  const created = await cli(['create', '--operation', 'microblog-a-user-posts', '--param', 'handle=someone.example', '--interval', '300', '--webhook-url', hook, '--out', secretFile]);
  expect(created.code).toBe(0);
  expect(statSync(secretFile).mode & 0o777).toBe(0o600);
  const { monitor } = json(readFileSync(secretFile, 'utf8'));
  expect(monitor).toMatchObject({ operation: 'microblog-a-user-posts', params: { handle: 'someone.example' }, intervalSeconds: 300, status: 'active', secret: expect.stringMatching(/^whsec_/) });
  expect(created.stderr).toMatch(/shown this once/);

  const listed = json((await cli(['list'])).stdout).monitors;
  expect(listed.map((m: { id: string }) => m.id)).toEqual([monitor.id]);
  expect(listed[0].secret).toBeUndefined();

  const tested = await cli(['test', monitor.id]);
  const testedAt = Date.now();
  // Queued: the delivery worker's attempt sends it.
  expect(json(tested.stdout).delivery).toMatchObject({ type: 'monitor.test', state: 'pending' });
  expect(await attempt(teamId, monitor.id, json(tested.stdout).delivery.eventId, Date.now(), logger)).toMatchObject({ state: 'delivered', lastStatus: 204 });
  const last = received[received.length - 1]!;
  expect(() => new Webhook(monitor.secret).verify(last.body, last.headers)).not.toThrow();

  expect(json((await cli(['pause', monitor.id])).stdout).monitor).toMatchObject({ status: 'paused', pausedReason: 'by_request' });
  expect(json((await cli(['resume', monitor.id])).stdout).monitor).toMatchObject({ status: 'active', pausedReason: null });
  const out = path.join(tempDir(), 'deliveries.json');
  expect((await cli(['deliveries', monitor.id, '--out', out])).code).toBe(0);
  const [delivery] = JSON.parse(readFileSync(out, 'utf8')).deliveries;
  expect(delivery).toMatchObject({ type: 'monitor.test', state: 'delivered' });
  // One test or redelivery per monitor every 5 s.
  await new Promise((r) => setTimeout(r, Math.max(0, testedAt + 5_100 - Date.now())));
  const again = await cli(['redeliver', monitor.id, delivery.eventId]);
  expect(json(again.stdout).delivery).toMatchObject({ eventId: delivery.eventId, state: 'pending' });
  await attempt(teamId, monitor.id, delivery.eventId, Date.now(), logger);
  expect(received[received.length - 1]!.headers['webhook-id']).toBe(delivery.eventId);

  const rotatedFile = path.join(tempDir(), 'rotated.json');
  const rotated = await cli(['rotate-secret', monitor.id, '--out', rotatedFile]);
  expect(rotated.code).toBe(0);
  expect(statSync(rotatedFile).mode & 0o777).toBe(0o600);
  expect(json(readFileSync(rotatedFile, 'utf8')).monitor.secret).not.toBe(monitor.secret);
  expect(json((await cli(['update', monitor.id, '--interval', '600'])).stdout).monitor.intervalSeconds).toBe(600);

  // Another team's key: the API's 404, exit 1.
  const foreign = await cli(['get', monitor.id], other);
  expect({ code: foreign.code, stderr: foreign.stderr }).toEqual({ code: 1, stderr: expect.stringMatching(/NOT_FOUND \(404\)/) });
  expect(json((await cli(['delete', monitor.id])).stdout)).toEqual({ deleted: true, id: monitor.id });
  expect(json((await cli(['list'])).stdout).monitors).toEqual([]);
});

test("the API's 422 is exit 1 with its details; a malformed command line is exit 2 and sends nothing", async () => {
  const bad = await cli(['create', '--operation', 'microblog-a-user-posts', '--interval', '300', '--webhook-url', 'http://10.0.0.1/hook']);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/VALIDATION_ERROR \(422\)/);
  expect(bad.stderr).toMatch(/\n {2}(params|webhookUrl)[^:]*: /);
  for (const args of [
    ['create', '--operation', 'not-an-operation', '--interval', '300', '--webhook-url', hook],
    ['create', '--operation', 'microblog-a-user-posts', '--interval', 'soon', '--webhook-url', hook],
    ['create', '--operation', 'microblog-a-user-posts', '--param', 'handle', '--interval', '300', '--webhook-url', hook],
    ['update', 'mon_x'],
    ['get'],
  ]) {
    const res = await cli(args);
    expect({ args, code: res.code }).toEqual({ args, code: 2 });
  }
  expect(json((await cli(['list'])).stdout).monitors).toEqual([]);
});
