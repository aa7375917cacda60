import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext } from 'playwright-core';
import { run } from '../../scripts/admin';
import { BAD_ORIGIN } from '../../shared/account/api';
import { operation } from '../../shared/operations';
import { scenarios } from '../contract/scenarios';
import { launchBrowser } from '../support/browser';
import { startHarness, type Harness } from '../support/harness';
import { SHOTS, hasText, heading, hidden, shot, tooWide, unlabelled, until, visible } from '../support/page';

/**
 * The dashboard in a real browser (headless Chromium from the npm registry, see ../support/browser.ts,
 * driven by playwright-core) over the local gateway, DynamoDB Local and the fake upstream: invite ->
 * set password -> sign in -> create a key -> call the data API with it -> last used and usage update ->
 * rename -> revoke -> 401 -> sign out. Every state-changing request the dashboard sends carries this
 * site's Origin, and the same request forged from another origin on the same host (which the
 * SameSite=Strict cookie does not stop) is refused. Screenshots of every page go to .local/screenshots/
 * (git-ignored).
 */
// Hang guards only: on a busy machine the walk takes longer, never differently.
jest.setTimeout(300_000);

const CLIP = operation('livestream-clip');
const clip = scenarios['livestream-clip']!;

let h: Harness;
let browser: Browser;
/** Another origin on the same host (another port: same site, so the session cookie still goes along). */
let elsewhere: http.Server;
let elsewhereUrl: string;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  h = await startHarness();
  browser = await launchBrowser();
  elsewhere = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>'));
  await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
  elsewhereUrl = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await browser?.close();
  await h?.stop();
  if (elsewhere) await new Promise((resolve) => elsewhere.close(resolve));
});

/** What the gateway itself received of each state-changing account request, and what it answered. */
interface Seen {
  method: string;
  path: string;
  origin?: string;
  sessionCookie: boolean;
  status?: number;
  body?: string;
}
function watchAccountRequests(server: http.Server): Seen[] {
  const seen: Seen[] = [];
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.method === 'GET' || !req.url?.startsWith('/v1/account/')) return;
    const entry: Seen = { method: req.method ?? '', path: req.url, origin: req.headers.origin, sessionCookie: /(^|;\s*)sda_session=/.test(req.headers.cookie ?? '') };
    seen.push(entry);
    const end = res.end.bind(res) as (chunk?: unknown) => http.ServerResponse;
    res.end = ((chunk?: unknown) => {
      entry.status = res.statusCode;
      entry.body = chunk === undefined ? '' : String(chunk);
      return end(chunk);
    }) as typeof res.end;
  });
  return seen;
}

/**
 * A page on another origin of the same host posts a new key to the account API, as a cross-site
 * request forgery would (a "simple" text/plain request: no CORS preflight stops it from being sent).
 */
async function forgeKeyFromElsewhere(context: BrowserContext) {
  const evil = await context.newPage();
  await evil.goto(elsewhereUrl);
  await evil.evaluate(
    (url) => fetch(url, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ name: 'forged' }) }),
    `${h.gateway.url}/v1/account/keys`,
  );
  await evil.close();
}

test('invite -> set password -> sign in -> create key -> use it -> last used and usage -> rename -> revoke -> 401 -> sign out', async () => {
  const team = await h.team(50);
  const lines: string[] = [];
  await run(['member', 'invite', '--team', team.teamId, '--email', 'grace@example.com', '--base', h.gateway.url], (l) => lines.push(l));
  const link = lines.join('\n').match(/(http:\/\/\S+\/dashboard\/set-password\?token=\S+)/)![1]!;

  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.gateway.url });
  const page = await context.newPage();
  const seen = watchAccountRequests(h.gateway.server);
  const failedRequests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !/401|Unauthorized/.test(m.text())) failedRequests.push(m.text());
  });

  // Set the password from the invitation link.
  await page.goto(link);
  await heading(page, 'Set your password');
  expect(await unlabelled(page)).toEqual([]);
  await shot(page, '1-set-password');
  await page.getByLabel('New password').fill('a very long passphrase');
  await page.getByLabel('Repeat the password').fill('a very long passphrase');
  await page.getByRole('button', { name: 'Set password' }).click();

  // Sign in, by keyboard: the e-mail is filled in from the link's answer.
  await heading(page, 'Sign in');
  await hasText(page.getByRole('status'), 'Your password is set');
  expect(await page.getByLabel('E-mail').inputValue()).toBe('grace@example.com');
  await shot(page, '2-sign-in');
  await page.getByLabel('Password').fill('wrong passphrase!!');
  await page.getByLabel('Password').press('Enter');
  await hasText(page.getByRole('alert'), 'Sign-in failed');
  await page.getByLabel('Password').fill('a very long passphrase');
  await page.getByLabel('Password').press('Enter');

  // Keys: the team's first key (made by the harness), then a new one whose secret is shown once.
  await heading(page, 'API keys');
  expect(await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Keys' }).getAttribute('aria-current')).toBe('page');
  await page.getByLabel('Name of the new key').fill('e2e key');
  await page.getByRole('button', { name: 'Create key' }).click();
  const secretBox = page.getByLabel('Secret of key e2e key');
  await until('the new secret to have focus', () => secretBox.evaluate((el) => el === document.activeElement));
  const secret = await secretBox.inputValue();
  expect(secret).toMatch(/^[A-Za-z0-9]{28}$/);
  await visible(page.getByText('This secret is shown once and cannot be shown again'));
  await page.getByRole('button', { name: 'Copy', exact: true }).click();
  await visible(page.getByText('Copied to the clipboard.'));
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
  expect(await unlabelled(page)).toEqual([]);
  await shot(page, '3-keys-new-secret');
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await until('the secret to be gone', async () => (await page.getByLabel('Secret of key e2e key').count()) === 0);
  const row = page.locator('tr', { has: page.getByRole('cell', { name: 'e2e key', exact: true }) });
  await hasText(row.locator('td[data-label="Last used"]'), 'never');

  // The same request forged from another origin carries the session cookie but is refused for its Origin.
  await forgeKeyFromElsewhere(context);
  const forged = seen.filter((r) => r.origin === elsewhereUrl);
  expect(forged).toEqual([{ method: 'POST', path: '/v1/account/keys', origin: elsewhereUrl, sessionCookie: true, status: 400, body: expect.any(String) }]);
  expect(JSON.parse(forged[0]!.body!).error).toMatchObject({ code: 'BAD_REQUEST', message: BAD_ORIGIN });
  await page.reload();
  await visible(page.getByRole('cell', { name: 'e2e key', exact: true }));
  expect(await page.getByRole('cell', { name: 'forged', exact: true }).count()).toBe(0);

  // The data API with the new key: one live request and one cache hit, then a 404, a 422 and an upstream 503 (free).
  clip.routes(h.fake);
  const live = await h.call(CLIP.path, clip.query, { key: secret });
  expect(live.status).toBe(200);
  expect((await h.call(CLIP.path, { ...clip.query, cache_max_age: '1d' }, { key: secret })).body.meta.cached).toBe(true);
  h.fake.reset();
  clip.routes(h.fake);
  clip.notFound!.routes!(h.fake);
  expect((await h.call(CLIP.path, clip.query, { key: secret })).status).toBe(404);
  expect((await h.call(CLIP.path, { url: 'not a clip' }, { key: secret })).status).toBe(422);
  h.fake.reset();
  clip.routes(h.fake);
  clip.unavailable!.routes!(h.fake);
  const failed = await h.call(CLIP.path, clip.query, { key: secret });
  expect(failed.status).toBe(503);
  h.fake.reset();
  clip.routes(h.fake);

  await page.reload();
  await hasText(row.locator('td[data-label="Last used"]'), /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  await shot(page, '4-keys');

  // Credits: balance and the charge with its request id.
  await page.getByRole('link', { name: 'Credits' }).click();
  await heading(page, 'Credits');
  await hasText(page.locator('.balance'), '49 credits left');
  await visible(page.getByRole('cell', { name: live.body.meta.requestId }));
  await shot(page, '5-credits');

  // Usage: 5 requests (a live result, a cache hit and 3 errors), 1 credit, half of the results from the cache; the chart is drawn.
  await page.getByRole('link', { name: 'Usage' }).click();
  await heading(page, 'Usage');
  const totals = page.locator('dl.totals');
  await hasText(totals, 'Requests, 30 days5');
  await hasText(totals, 'Live results1');
  await hasText(totals, 'Cache hits1');
  await hasText(totals, 'Errors3');
  await hasText(totals, 'Credits used1');
  await hasText(totals, 'Cache-hit share50 %');
  await visible(page.getByRole('img', { name: 'Requests per day over the last 30 days: 1 live results, 1 cache hits and 3 errors' }));
  const drawn = await page.evaluate(() => {
    const c = document.querySelector('canvas')!;
    const px = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    let painted = 0;
    for (let i = 3; i < px.length; i += 4) if (px[i]! > 0) painted++;
    return painted;
  });
  expect(drawn).toBeGreaterThan(1000);
  await visible(page.getByRole('row', { name: 'livestream-clip 5 1 1 3 50 % 1' }));
  for (const row of ['NOT_FOUND 404 1', 'VALIDATION_ERROR 422 1', 'PLATFORM_UNAVAILABLE 503 1']) await visible(page.getByRole('row', { name: new RegExp(`^${row} Show`) }));
  await shot(page, '6-usage');

  // Requests: the five, newest first, with the key's name; filtered to the errors; the link from the usage page.
  await page.getByRole('link', { name: 'The failed requests of the last 7 days' }).click();
  await heading(page, 'Requests');
  const statuses = () => page.locator('table.requests td[data-label="Status"]').allTextContents();
  await until('the three errors', async () => (await statuses()).join() === '503,422,404');
  expect(await page.getByLabel('Status').inputValue()).toBe('error');
  await page.getByLabel('Status').selectOption('');
  await page.getByRole('button', { name: 'Show' }).click();
  await until('all five requests', async () => (await statuses()).join() === '503,422,404,200,200');
  const failedRow = page.locator('tr', { has: page.getByRole('cell', { name: failed.body.error.requestId }) });
  await hasText(failedRow.locator('td[data-label="Error code"]'), 'PLATFORM_UNAVAILABLE');
  await hasText(failedRow.locator('td[data-label="Key"]'), 'e2e key');
  await hasText(failedRow.locator('td[data-label="Credits"]'), '0');
  const liveRow = page.locator('tr', { has: page.getByRole('cell', { name: live.body.meta.requestId }) });
  await hasText(liveRow.locator('td[data-label="Credits"]'), '1');
  await hasText(liveRow.locator('td[data-label="Cached"]'), 'no');
  expect(await unlabelled(page)).toEqual([]);
  expect(await tooWide(page)).toEqual([]);
  await shot(page, '6b-requests');
  await page.getByLabel('Operation').selectOption('livestream-clip');
  await page.getByLabel('Status').selectOption('404');
  await page.getByRole('button', { name: 'Show' }).click();
  await until('the one 404', async () => (await statuses()).join() === '404');
  await page.setViewportSize({ width: 360, height: 780 });
  expect(await tooWide(page)).toEqual([]);
  await shot(page, '6c-requests-360');
  await page.getByRole('link', { name: 'Usage' }).click();
  await heading(page, 'Usage');

  // Narrow phone width: no sideways scrolling on any page.
  await page.setViewportSize({ width: 360, height: 780 });
  await shot(page, '7-usage-360');
  expect(await tooWide(page)).toEqual([]);
  await page.getByRole('link', { name: 'Keys' }).click();
  await heading(page, 'API keys');
  await shot(page, '8-keys-360');
  expect(await tooWide(page)).toEqual([]);
  await page.getByRole('link', { name: 'Credits' }).click();
  await heading(page, 'Credits');
  expect(await tooWide(page)).toEqual([]);
  await page.getByRole('link', { name: 'Keys' }).click();
  await page.setViewportSize({ width: 1200, height: 900 });

  // Rename, then revoke with a confirmation; the very next data request with the key is 401.
  await page.getByRole('button', { name: 'Rename key e2e key' }).click();
  await page.getByLabel('New name for key e2e key').fill('nightly');
  await page.getByLabel('New name for key e2e key').press('Enter');
  await visible(page.getByRole('cell', { name: 'nightly', exact: true }));
  await page.getByRole('button', { name: 'Revoke key nightly' }).click();
  const dialog = page.getByRole('dialog', { name: 'Revoke key “nightly”?' });
  await visible(dialog);
  await shot(page, '9-revoke-confirm');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await hidden(dialog);
  expect((await h.call(CLIP.path, clip.query, { key: secret })).status).toBe(200);
  // By keyboard: Enter opens the confirmation, Escape closes it, nothing revoked.
  await page.getByRole('button', { name: 'Revoke key nightly' }).press('Enter');
  await visible(dialog);
  await page.keyboard.press('Escape');
  await hidden(dialog);
  expect((await h.call(CLIP.path, clip.query, { key: secret })).status).toBe(200);
  await page.getByRole('button', { name: 'Revoke key nightly' }).click();
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await hasText(page.getByRole('status'), 'is revoked');
  await hasText(page.locator('tr', { has: page.getByRole('cell', { name: 'nightly', exact: true }) }).locator('.status'), 'Revoked');
  const refused = await h.call(CLIP.path, clip.query, { key: secret });
  expect(refused.status).toBe(401);
  expect((await h.call(CLIP.path, clip.query, { key: team.key })).status).toBe(200);

  // Sign out: the session ends at once, even for a request that still carried the cookie.
  const cookies = await context.cookies();
  const session = cookies.find((c) => c.name === 'sda_session')!;
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/v1' });
  await page.getByRole('button', { name: 'Sign out' }).click();
  await heading(page, 'Sign in');
  await hasText(page.getByRole('status'), 'You are signed out');
  const after = await fetch(`${h.gateway.url}/v1/account/me`, { headers: { cookie: `sda_session=${session.value}` } });
  expect(after.status).toBe(401);
  await page.goto(`${h.gateway.url}/dashboard/keys`);
  await heading(page, 'Sign in');
  expect(failedRequests).toEqual([]);
  // Everything else the dashboard changed (password, 2 sign-ins, create, rename, revoke, sign-out) came with this site's Origin.
  const own = seen.filter((r) => r.origin !== elsewhereUrl);
  expect(own.map((r) => `${r.method} ${r.path.replace(/keys\/[^/?]+/, 'keys/{keyId}')}`)).toEqual([
    'POST /v1/account/password',
    'POST /v1/account/sign-in',
    'POST /v1/account/sign-in',
    'POST /v1/account/keys',
    'PATCH /v1/account/keys/{keyId}',
    'DELETE /v1/account/keys/{keyId}',
    'POST /v1/account/sign-out',
  ]);
  for (const r of own) expect(r.origin).toBe(h.gateway.url);
  await context.close();
});

