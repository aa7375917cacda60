import { mkdirSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { SocialDataClient } from '../../client/index';
import { PALETTE } from '../../dashboard/lib/colours';
import { invokeInProcess } from '../../dev/monitors';
import { fixture } from '../../dev/upstream/fake';
import { runDue } from '../../shared/monitors/scheduler';
import { operations } from '../../shared/operations';
import { logger } from '../../shared/runtime/log';
import { scenarios } from '../contract/scenarios';
import { signedInMember } from '../support/account';
import { launchBrowser } from '../support/browser';
import { startHarness, type Harness } from '../support/harness';
import { SHOTS, hasText, heading, shot, tooWide, unlabelled, until, visible } from '../support/page';

/**
 * Every page of the dashboard as a person sees it, at 1280 px and at 390 px wide: nothing reaches
 * past the window's edge, the header is one line at 1280 px, the Status table has the thirteen
 * operations with paths unbroken inside a segment and latencies on one line, Requests and Credits
 * tell (and filter) a monitor's poll from the team's own request, Usage gives each operation its
 * colour over the days there is data for, and the Monitors form gives handle/userId as one choice
 * and shows every problem of a 422 under its field. Screenshots: .local/screenshots/page-<name>-<width>.png (and the first screen at 390 px: -390-top).
 */
jest.setTimeout(300_000);
process.env.MONITOR_MIN_INTERVAL_SECONDS = '1';

const WIDE = { width: 1280, height: 900 };
const NARROW = { width: 390, height: 844 };
const HANDLE = 'marlowe-tern.bsky.social';

let h: Harness;
let browser: Browser;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200).end());
});
let hookUrl: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  h = await startHarness();
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => receiver.close(r));
  await h?.stop();
});

/** The page at both widths: nothing wider than the window, a screenshot of each. */
async function bothWidths(page: Page, name: string, wide?: () => Promise<void>) {
  await page.setViewportSize(WIDE);
  await shot(page, `page-${name}-1280`);
  await wide?.();
  expect({ name, width: 1280, tooWide: await tooWide(page) }).toEqual({ name, width: 1280, tooWide: [] });
  await page.setViewportSize(NARROW);
  await shot(page, `page-${name}-390`);
  await page.screenshot({ path: path.join(SHOTS, `page-${name}-390-top.png`) });
  expect({ name, width: 390, tooWide: await tooWide(page) }).toEqual({ name, width: 390, tooWide: [] });
  await page.setViewportSize(WIDE);
}

/** How many lines each matching element's text takes (distinct tops of its text boxes). */
const lines = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    return Array.from(document.querySelectorAll(sel)).map((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      // Boxes whose tops lie within 6 px of the previous line's are on that line.
      const tops = Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => r.top).sort((a, b) => a - b);
      return tops.filter((top, i) => i === 0 || top > tops[i - 1]! + 6).length;
    });
  }, selector);

/** Each text node of the matching elements stays on one line (a path may wrap only between its segments). */
const segmentsBroken = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    const broken: string[] = [];
    for (const el of Array.from(document.querySelectorAll(sel))) {
      const texts = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = texts.nextNode(); node; node = texts.nextNode()) {
        if (!node.textContent?.trim()) continue;
        const range = document.createRange();
        range.selectNodeContents(node);
        if (new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size > 1) broken.push(`${el.textContent}: ${node.textContent}`);
      }
    }
    return broken;
  }, selector);

test('every page at 1280 and 390 px; status, sources, usage colours and range, the monitor form', async () => {
  const m = await signedInMember(h, 100);
  // Traffic of the team's key: two operations live, one cached, one 404.
  const clip = scenarios['livestream-clip']!;
  const profile = scenarios['microblog-b-profile']!;
  clip.routes(h.fake);
  profile.routes(h.fake);
  expect((await h.call('/v1/livestream/clip', clip.query, { key: m.key })).status).toBe(200);
  expect((await h.call('/v1/livestream/clip', { ...clip.query, cache_max_age: '1d' }, { key: m.key })).body.meta.cached).toBe(true);
  expect((await h.call('/v1/microblog-b/profile', profile.query, { key: m.key })).status).toBe(200);
  h.fake.reset();
  clip.routes(h.fake);
  clip.notFound!.routes!(h.fake);
  expect((await h.call('/v1/livestream/clip', clip.query, { key: m.key })).status).toBe(404);
  // A monitor, and its first poll: a live answer charged to the team, whose source is the monitor.
  h.fake.on('/xrpc/app.bsky.actor.getProfile', { body: fixture('microblog-a/profile.json') });
  h.fake.on('/xrpc/app.bsky.feed.getAuthorFeed', { body: fixture('microblog-a/feed-page1.json') });
  const client = new SocialDataClient({ baseUrl: h.gateway.url, apiKey: m.key, retry: false });
  const { monitor } = (await client.monitors.create({ operation: 'microblog-a-user-posts', params: { handle: HANDLE }, intervalSeconds: 600, webhookUrl: hookUrl })).data;
  await runDue(Date.now(), logger, invokeInProcess);
  await until('the poll in the history', async () => (await client.account.requests({ source: 'monitor' })).data.requests.length === 1);
  const ownRequests = (await client.account.requests({ source: 'request' })).data.requests;
  expect(ownRequests).toHaveLength(4);
  // The API's source filter: anything but request or monitor is a 422, and a cursor is bound to it.
  await expect(client.account.requests({ source: 'bogus' as never })).rejects.toMatchObject({ status: 422, details: [{ path: 'source', message: expect.stringContaining('monitor') }] });
  const firstPage = (await client.account.requests({ source: 'request', limit: 1 })).data;
  expect(firstPage.cursor).not.toBeNull();
  await expect(client.account.requests({ source: 'monitor', limit: 1, cursor: firstPage.cursor! })).rejects.toMatchObject({ status: 400 });
  expect((await client.account.requests({ source: 'request', limit: 1, cursor: firstPage.cursor! })).data.requests[0]!.source).toBeUndefined();

  const context = await browser.newContext({ viewport: WIDE });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/\b(401|422)\b/.test(msg.text())) errors.push(msg.text());
  });

  await page.goto(`${h.gateway.url}/dashboard/set-password?token=shown-only`);
  await heading(page, 'Set your password');
  await bothWidths(page, 'set-password');
  await page.goto(`${h.gateway.url}/dashboard/sign-in`);
  await heading(page, 'Sign in');
  await bothWidths(page, 'sign-in');
  await page.getByLabel('E-mail').fill(m.email);
  await page.getByLabel('Password').fill(m.password);
  await page.getByLabel('Password').press('Enter');
  await heading(page, 'API keys');
  const nav = page.getByRole('navigation', { name: 'Dashboard' });
  // The API reference (GET /docs) is one link away, beside the pages (no stage locally).
  expect(await nav.getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe('/docs');
  await bothWidths(page, 'keys', async () => {
    // The header on one line: its parts side by side, none taller than one line.
    const tops = await page.locator('.bar > *').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().top + e.getBoundingClientRect().height / 2)));
    expect(Math.max(...tops) - Math.min(...tops)).toBeLessThanOrEqual(4);
    expect(await page.locator('.top').evaluate((e) => e.getBoundingClientRect().height)).toBeLessThan(64);
  });

  // Status: the thirteen operations; a path breaks only at a "/", latencies on one line; "unknown" with a few answers says so.
  await nav.getByRole('link', { name: 'Status' }).click();
  await heading(page, 'Status');
  const rows = page.locator('table.status tbody tr');
  await until('thirteen operations', async () => (await rows.count()) === 13);
  expect(operations).toHaveLength(13);
  await hasText(rows.filter({ hasText: '/v1/livestream/clip' }).locator('.state'), /^too few answers to judge \(\d\)$/);
  await bothWidths(page, 'status', async () => {
    expect(await lines(page, 'table.status code.path')).toEqual(Array(13).fill(1));
    expect(await lines(page, 'table.status td[data-label^="p50"], table.status td[data-label="p95 24 h"]')).toEqual(Array(26).fill(1));
  });
  await page.setViewportSize(NARROW);
  expect(await segmentsBroken(page, 'table.status code.path')).toEqual([]);
  await page.setViewportSize(WIDE);

  // Requests: each answer's source, and the source filter.
  await nav.getByRole('link', { name: 'Requests' }).click();
  await heading(page, 'Requests');
  const sources = () => page.locator('table.requests td[data-label="Source"]').allTextContents();
  await until('five requests', async () => (await sources()).length === 5);
  expect((await sources()).filter((s) => s.startsWith('Monitor'))).toEqual([`Monitor ${monitor.id}`]);
  await page.getByLabel('Source').selectOption('monitor');
  await page.getByRole('button', { name: 'Show' }).click();
  await until('the monitor poll alone', async () => (await sources()).join() === `Monitor ${monitor.id}`);
  expect(page.url()).toContain('source=monitor');
  await page.getByLabel('Source').selectOption('request');
  await page.getByRole('button', { name: 'Show' }).click();
  await until('the four own requests', async () => (await sources()).join() === Array(4).fill('Your request').join());
  await page.getByLabel('Source').selectOption('');
  await page.getByRole('button', { name: 'Show' }).click();
  await until('all five again', async () => (await sources()).length === 5);
  expect(await unlabelled(page)).toEqual([]);
  await bothWidths(page, 'requests');

  // Credits: three charges (two own live requests, one poll), told apart and filtered.
  await nav.getByRole('link', { name: 'Credits' }).click();
  await heading(page, 'Credits');
  await hasText(page.locator('.balance'), '97 credits left');
  const chargeSources = () => page.locator('td[data-label="Source"]').allTextContents();
  await until('three charges', async () => (await chargeSources()).length === 3);
  expect((await chargeSources()).sort()).toEqual([`Monitor ${monitor.id}`, 'Your request', 'Your request']);
  await page.getByLabel('Source').selectOption('monitor');
  await until('the poll charge alone', async () => (await chargeSources()).join() === `Monitor ${monitor.id}`);
  await page.getByLabel('Source').selectOption('');
  await bothWidths(page, 'credits');

  // Usage: a colour per operation (thirteen distinct in all), the chart over the one day there is data for.
  await nav.getByRole('link', { name: 'Usage' }).click();
  await heading(page, 'Usage');
  await hasText(page.locator('dl.totals'), 'Requests, 30 days5');
  expect(new Set(PALETTE.map((c) => c.toLowerCase())).size).toBe(13);
  const swatches = await page.locator('.swatch').evaluateAll((els) => els.map((e) => getComputedStyle(e).backgroundColor));
  expect(swatches).toHaveLength(3);
  expect(new Set(swatches).size).toBe(3);
  expect(await page.locator('.chart').evaluateAll((els) => els.map((e) => e.getAttribute('data-days')))).toEqual(['1', '1']);
  await bothWidths(page, 'usage');

  // Members.
  await nav.getByRole('link', { name: 'Members' }).click();
  await heading(page, 'Members');
  await visible(page.locator('tr[data-member]'));
  await bothWidths(page, 'members');

  // Monitors: listed above the form, with what they may cost a day; the pair handle/userId as one choice; every problem at its field.
  await nav.getByRole('link', { name: 'Monitors' }).click();
  await heading(page, 'Monitors');
  const row = page.locator(`tr[data-monitor="${monitor.id}"]`);
  await hasText(row.locator('td[data-label="Interval"]'), 'every 10 minup to 144 credits/day');
  expect(await page.locator('section[aria-label="Monitors"]').evaluate((list) => !!(list.compareDocumentPosition(document.querySelector('form.monitor')!) & Node.DOCUMENT_POSITION_FOLLOWING))).toBe(true);
  await hasText(row.locator('td[data-label="Polls"]'), /Last: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(200\)/);
  await hasText(page.locator('#mon-interval-hint'), 'From 1 s');
  await page.getByLabel('Interval in seconds').fill('60');
  await hasText(page.locator('#mon-interval-hint'), 'up to 1,440 credits/day');
  await visible(page.getByLabel('handle', { exact: true }));
  expect(await page.getByLabel('userId', { exact: true }).count()).toBe(0);
  await page.getByLabel('By userId').check();
  await visible(page.getByLabel('userId', { exact: true }));
  expect(await page.getByLabel('handle', { exact: true }).count()).toBe(0);
  expect(await unlabelled(page)).toEqual([]);
  // Two problems in one submission: a userId that is not a DID and a webhook that is not https.
  await page.getByLabel('userId', { exact: true }).fill('not-a-did');
  await page.getByLabel('Webhook URL').fill('ftp://example.com/hook');
  const answer = page.waitForResponse((r) => r.url().endsWith('/v1/monitors') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Create monitor' }).click();
  const body = (await (await answer).json()) as { error: { details: { path: string; message: string }[] } };
  expect((await answer).status()).toBe(422);
  const details = body.error.details;
  expect(details.map((d) => d.path)).toContain('params.userId');
  await hasText(page.locator('form.monitor > p.error'), 'Check the marked fields.');
  const errorOf: Record<string, string> = { 'params.userId': '#mon-param-userId-error', webhookUrl: '#mon-webhook-error', intervalSeconds: '#mon-interval-error' };
  for (const d of details) await hasText(page.locator(errorOf[d.path] ?? 'form.monitor > p.error'), d.message);
  expect(await page.locator('.field-error').count()).toBe(new Set(details.map((d) => d.path)).size);
  await shot(page, 'page-monitors-422-1280');
  await page.getByRole('button', { name: `Deliveries of microblog-a-user-posts monitor ${monitor.id}` }).click();
  await until('the ready event under its monitor', async () => (await page.locator('tr.opened tr[data-event]').count()) === 1);
  await bothWidths(page, 'monitors');

  expect(errors).toEqual([]);
  await context.close();
});
