import type { Browser } from 'playwright-core';
import { fixture } from '../../dev/upstream/fake';
import { operations } from '../../shared/operations';
import { launchBrowser } from '../support/browser';
import { startHarness, type Harness } from '../support/harness';

/**
 * The dashboard's public status page (issue 20, item 2) in a real browser: reachable without a
 * session, one row per operation built from GET /v1/status, with the figures of real traffic.
 */
jest.setTimeout(180_000);

let h: Harness;
let browser: Browser;
beforeAll(async () => {
  h = await startHarness();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

test('signed out: /dashboard/status lists every operation with its state, and a 503 shows as an error by code', async () => {
  const { key } = await h.team(5);
  h.fake.on('/xrpc/app.bsky.actor.getProfile', { body: fixture('microblog-a/profile.json') });
  h.fake.on('/xrpc/app.bsky.feed.getAuthorFeed', { status: 502, body: { error: 'InternalServerError' } });
  expect((await h.call('/v1/microblog-a/user/posts', { handle: 'status-page.bsky.social' }, { key })).status).toBe(503);

  const page = await (await browser.newContext()).newPage();
  await page.goto(`${h.gateway.url}/dashboard/status`);
  await page.getByRole('heading', { name: 'Status', level: 1 }).waitFor();
  const rows = page.locator('table.status tbody tr');
  await rows.first().waitFor();
  expect(await rows.count()).toBe(operations.length);
  const row = rows.filter({ hasText: '/v1/microblog-a/user/posts' });
  await expect(row.locator('[data-label="Errors 15 min"]').textContent()).resolves.toContain('PLATFORM_UNAVAILABLE 1');
  await expect(rows.filter({ hasText: '/v1/citygame/daily' }).locator('.state').textContent()).resolves.toBe('not configured');
  // No session was needed, and none was made.
  expect(page.url()).toContain('/dashboard/status');
  await expect(page.getByRole('link', { name: 'Status' }).getAttribute('aria-current')).resolves.toBe('page');
});
