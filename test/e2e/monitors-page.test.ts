import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { invokeInProcess } from '../../dev/monitors';
import { fixture } from '../../dev/upstream/fake';
import { runDue } from '../../shared/monitors/scheduler';
import { logger } from '../../shared/runtime/log';
import { signedInMember } from '../support/account';
import { launchBrowser } from '../support/browser';
import { startHarness, type Harness } from '../support/harness';
import { SHOTS, hasText, heading, hidden, shot, tooWide, unlabelled, until, visible, signIn } from '../support/page';

/**
 * The dashboard's Monitors page in a real browser (../support/browser.ts) over the local gateway:
 * sign in, create a monitor whose webhook is a local receiver (a 422 first, shown at its field),
 * see its signing secret once, the first poll's monitor.ready and a test event delivered (signed as
 * standardwebhooks verifies), redeliver, pause and resume, rotate the secret, delete. The browser
 * sends the session cookie to /v1/monitors (its Path is /v1) with this site's Origin. Screenshots
 * go to .local/screenshots/monitors-*.png.
 */
jest.setTimeout(300_000);
process.env.MONITOR_MIN_INTERVAL_SECONDS = '1';

const HANDLE = 'marlowe-tern.bsky.social';

interface Hook {
  headers: Record<string, string>;
  body: string;
}
let h: Harness;
let browser: Browser;
const hooks: Hook[] = [];
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    hooks.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
    res.writeHead(200).end();
  });
});
let hookUrl: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  h = await startHarness();
  h.fake.on('/xrpc/app.bsky.actor.getProfile', { body: fixture('microblog-a/profile.json') });
  h.fake.on('/xrpc/app.bsky.feed.getAuthorFeed', { body: fixture('microblog-a/feed-page1.json') });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => receiver.close(r));
  await h?.stop();
});

/** What the gateway received of each /v1/monitors request: whether the browser sent the cookie, and its Origin. */
function watchMonitorRequests(server: http.Server) {
  const seen: { method: string; path: string; origin?: string; cookie: boolean }[] = [];
  server.on('request', (req: http.IncomingMessage) => {
    if (req.url?.startsWith('/v1/monitors')) seen.push({ method: req.method ?? '', path: req.url, origin: req.headers.origin, cookie: /(^|;\s*)sda_session=/.test(req.headers.cookie ?? '') });
  });
  return seen;
}

test('create (a 422 at its field first) -> secret once -> monitor.ready and a test event delivered -> redeliver -> pause/resume -> rotate -> delete', async () => {
  const m = await signedInMember(h);
  const seen = watchMonitorRequests(h.gateway.server);
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (msg) => {
    // The sign-in page's GET /me (no session yet) is a 401, the two bad creates 422s: nothing else fails.
    if (msg.type() === 'error' && !/\b(401|422)\b/.test(msg.text())) errors.push(msg.text());
  });

  await signIn(page, h.gateway.url, m, 'Monitors');
  await visible(page.getByText('No monitors yet'));

  // The form follows the operation: citygame-daily takes no parameters, microblog-b-note a URL and a choice.
  await page.getByLabel('Operation').selectOption('microblog-b-note');
  await visible(page.getByLabel('url'));
  expect(await page.getByLabel('trim (optional)').locator('option').allTextContents()).toEqual(['default', 'true', 'false']);
  await page.getByLabel('Operation').selectOption('citygame-daily');
  await visible(page.getByText('This operation takes no parameters.'));
  expect(await unlabelled(page)).toEqual([]);
  await page.getByLabel('Operation').selectOption('microblog-a-user-posts');
  await shot(page, 'monitors-1-empty');

  // Bad input: the 422's detail under the field it names, the field marked invalid (one problem at a time, in the body's order).
  await page.getByLabel('handle', { exact: true }).fill('no spaces allowed here');
  await page.getByLabel('Interval in seconds').fill('3600');
  await page.getByLabel('Webhook URL').fill('ftp://example.com/hook');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await hasText(page.locator('form.monitor > p.error'), 'Check the marked fields.');
  const handle = page.getByLabel('handle', { exact: true });
  await visible(page.locator('#mon-param-handle-error'));
  expect(await handle.getAttribute('aria-invalid')).toBe('true');
  expect(await handle.getAttribute('aria-describedby')).toBe('mon-param-handle-hint mon-param-handle-error');
  expect(await handle.evaluate((el) => el === document.activeElement)).toBe(true);
  await shot(page, 'monitors-2-invalid');
  await handle.fill(HANDLE);
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await visible(page.locator('#mon-webhook-error'));
  expect(await page.locator('#mon-param-handle-error').count()).toBe(0);
  expect(await handle.getAttribute('aria-invalid')).toBeNull();
  expect(await handle.getAttribute('aria-describedby')).toBe('mon-param-handle-hint');
  expect(await page.getByLabel('Webhook URL').getAttribute('aria-invalid')).toBe('true');

  // Fixed: 201, the signing secret shown once.
  await page.getByLabel('Webhook URL').fill(hookUrl);
  await page.getByRole('button', { name: 'Create monitor' }).click();
  await hasText(page.getByRole('status'), 'monitor is created');
  const secretBox = page.getByLabel(/^Signing secret of monitor mon_/);
  await until('the secret to have focus', () => secretBox.evaluate((el) => el === document.activeElement));
  const secret = await secretBox.inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
  await visible(page.getByText('This secret is shown once and cannot be shown again'));
  expect(await page.locator('#mon-param-handle-error').count()).toBe(0);
  const row = page.locator('tr[data-monitor]');
  await hasText(row.locator('td[data-label="Watches"]'), `microblog-a-user-postshandle=${HANDLE}`);
  await hasText(row.locator('td[data-label="Interval"]'), 'every 1 h');
  await hasText(row.locator('td[data-label="Webhook URL"]'), hookUrl);
  await hasText(row.locator('td[data-label="Status"]'), 'Active');
  await shot(page, 'monitors-3-secret');
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await until('the secret to be gone', async () => (await page.getByText(secret).count()) === 0 && (await page.locator('#new-secret').count()) === 0);

  // The first poll (the harness runs no scheduler: the test runs due work now) sets the baseline.
  await runDue(Date.now(), logger, invokeInProcess);
  await until('monitor.ready at the receiver', async () => hooks.length === 1);
  await page.reload();
  await hasText(row.locator('td[data-label="Polls"]'), /Last: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(200\)Next: \d{4}/);
  expect(await page.content()).not.toContain('whsec_');

  // A test event: queued (the delivery worker sends it: here the test runs due work now); the deliveries open, with a redeliver button each.
  await page.getByRole('button', { name: /^Send a test event to microblog-a-user-posts monitor/ }).click();
  await hasText(page.getByRole('status'), /^Test event \S+: queued, sent within a minute \(Refresh shows it\)\.$/);
  const testedAt = Date.now();
  await runDue(Date.now(), logger, invokeInProcess);
  await until('the test event at the receiver', async () => hooks.length === 2);
  await page.getByRole('button', { name: /^Refresh the deliveries of/ }).click();
  const testEvent = JSON.parse(hooks[1]!.body) as { type: string };
  expect(testEvent.type).toBe('monitor.test');
  const wh = new Webhook(secret);
  for (const hook of hooks) expect(() => wh.verify(hook.body, hook.headers)).not.toThrow();
  const testId = hooks[1]!.headers['webhook-id']!;
  const deliveries = page.locator('table.deliveries tbody tr');
  await until('two deliveries listed', async () => (await deliveries.count()) === 2);
  const testRow = page.locator(`tr[data-event="${testId}"]`);
  await hasText(testRow.locator('td[data-label="Type"]'), 'monitor.test');
  await hasText(testRow.locator('td[data-label="State"]'), 'delivered');
  await hasText(testRow.locator('td[data-label="Attempts"]'), '1');
  await hasText(testRow.locator('td[data-label="Last status"]'), '200');
  await hasText(testRow.locator('td[data-label="Latency"]'), / ms$/);
  await hasText(testRow.locator('td[data-label="Next retry"]'), '–');
  await hasText(page.locator('tr', { hasText: 'monitor.ready' }).locator('td[data-label="State"]'), 'delivered');
  expect(await unlabelled(page)).toEqual([]);
  await shot(page, 'monitors-4-deliveries');

  // One test or redelivery per monitor every 5 s.
  await new Promise((r) => setTimeout(r, Math.max(0, testedAt + 5_100 - Date.now())));
  await testRow.getByRole('button', { name: `Redeliver event ${testId}` }).click();
  await hasText(page.getByRole('status'), `Event ${testId} sent again: queued, sent within a minute (Refresh shows it).`);
  const redeliveredAt = Date.now();
  await runDue(Date.now(), logger, invokeInProcess);
  await until('the same webhook-id again', async () => hooks.length === 3);
  await page.getByRole('button', { name: /^Refresh the deliveries of/ }).click();
  expect(hooks[2]!.headers['webhook-id']).toBe(testId);
  await hasText(page.locator(`tr[data-event="${testId}"] td[data-label="Attempts"]`), '2');

  // Pause and resume.
  await page.getByRole('button', { name: /^Pause microblog-a-user-posts monitor/ }).click();
  await hasText(page.getByRole('status'), 'monitor is paused');
  await hasText(row.locator('td[data-label="Status"]'), 'Pausedpaused by hand');
  await hasText(row.locator('td[data-label="Polls"]'), 'Next: –');
  await shot(page, 'monitors-5-paused');
  await page.getByRole('button', { name: /^Resume microblog-a-user-posts monitor/ }).click();
  await hasText(page.getByRole('status'), 'active again');
  await hasText(row.locator('td[data-label="Status"]'), 'Active');

  // Narrow phone width: one card per row, nothing scrolls sideways.
  await page.setViewportSize({ width: 360, height: 780 });
  expect(await tooWide(page)).toEqual([]);
  await shot(page, 'monitors-6-360');
  await page.setViewportSize({ width: 1200, height: 900 });

  // Rotate: a confirmation, then a new secret shown once; the next test event verifies with it, and for 24 h with the old one too.
  await page.getByRole('button', { name: /^Rotate the secret of/ }).click();
  const rotate = page.getByRole('dialog', { name: /^Rotate the signing secret/ });
  await visible(rotate);
  await rotate.getByRole('button', { name: 'Rotate secret' }).click();
  await hidden(rotate);
  const rotated = await page.getByLabel(/^Signing secret of monitor mon_/).inputValue();
  expect(rotated).toMatch(/^whsec_/);
  expect(rotated).not.toBe(secret);
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await new Promise((r) => setTimeout(r, Math.max(0, redeliveredAt + 5_100 - Date.now())));
  await page.getByRole('button', { name: /^Send a test event to/ }).click();
  await hasText(page.getByRole('status'), /^Test event \S+: queued/);
  await runDue(Date.now(), logger, invokeInProcess);
  await until('the fourth delivery', async () => hooks.length === 4);
  expect(() => new Webhook(rotated).verify(hooks[3]!.body, hooks[3]!.headers)).not.toThrow();
  // For 24 h after a rotation the old secret signs too (a second signature), so receivers can switch meanwhile.
  expect(() => wh.verify(hooks[3]!.body, hooks[3]!.headers)).not.toThrow();
  expect(hooks[3]!.headers['webhook-signature']!.split(' ')).toHaveLength(2);

  // Delete, behind a confirmation (Cancel keeps it).
  await page.getByRole('button', { name: /^Delete microblog-a-user-posts monitor/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete the microblog-a-user-posts monitor?' });
  await visible(dialog);
  await shot(page, 'monitors-7-delete-confirm');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await hidden(dialog);
  await visible(row);
  await page.getByRole('button', { name: /^Delete microblog-a-user-posts monitor/ }).click();
  await dialog.getByRole('button', { name: 'Delete monitor' }).click();
  await hasText(page.getByRole('status'), 'monitor is deleted');
  await visible(page.getByText('No monitors yet'));

  // The browser sent the session cookie to every /v1/monitors request, and this site's Origin with each change.
  expect(seen.length).toBeGreaterThan(10);
  for (const r of seen) expect(r.cookie).toBe(true);
  const changes = seen.filter((r) => r.method !== 'GET');
  expect(changes.map((r) => `${r.method} ${r.path.replace(/mon_\w+/, '{id}').replace(/evt_[\w-]+|msg_[\w-]+/, '{eventId}')}`)).toEqual([
    'POST /v1/monitors', // 422: params.handle
    'POST /v1/monitors', // 422: webhookUrl
    'POST /v1/monitors',
    'POST /v1/monitors/{id}/test',
    `POST /v1/monitors/{id}/deliveries/{eventId}/redeliver`,
    'PATCH /v1/monitors/{id}',
    'PATCH /v1/monitors/{id}',
    'POST /v1/monitors/{id}/rotate-secret',
    'POST /v1/monitors/{id}/test',
    'DELETE /v1/monitors/{id}',
  ]);
  for (const r of changes) expect(r.origin).toBe(h.gateway.url);
  expect(errors).toEqual([]);
  await context.close();
});
