import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { invite, setPassword } from '../../shared/auth/members';
import { AccountClient } from '../support/account';
import { launchBrowser } from '../support/browser';
import { startHarness, type Harness } from '../support/harness';

/**
 * The dashboard's member lifecycle in a real browser: who created each key, the Members page (the
 * team's members, a member's sessions ended one by one and all at once, removing a member behind a
 * confirmation), changing one's own password (one's other sessions end), and the sign-in throttle's
 * answer. The API behind it is tested in test/gateway/account.test.ts; this proves the page drives it.
 */
jest.setTimeout(120_000);

const SHOTS = path.join(__dirname, '..', '..', '.local', 'screenshots');
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

let h: Harness;
let browser: Browser;
beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  process.env.SIGN_IN_ATTEMPTS_PER_PAIR = '3';
  h = await startHarness();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await h?.stop();
});

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const hasText = (l: Locator, want: string) => until(`${String(l)} to contain ${want}`, async () => ((await l.first().textContent({ timeout: 200 })) ?? '').includes(want));
const heading = (page: Page, text: string) => until(`h1 "${text}"`, async () => (await page.locator('h1').textContent({ timeout: 200 })) === text);
const gone = (l: Locator) => until(`${String(l)} to be gone`, async () => (await l.count()) === 0);

async function member(teamId: string, email: string, password: string) {
  const { token } = await invite(teamId, email);
  expect(await setPassword(token, password)).toBe(email);
}
async function signedIn(email: string, password: string) {
  const c = new AccountClient(h);
  expect((await c.post('/v1/account/sign-in', { email, password })).status).toBe(200);
  return c;
}

test('keys show their creator; members, sessions, removal and password change from the Members page', async () => {
  const team = await h.team(10);
  await member(team.teamId, 'ada@example.com', 'ada long password');
  await member(team.teamId, 'bob@example.com', 'bob long password');
  const bob1 = await signedIn('bob@example.com', 'bob long password');
  const bob2 = await signedIn('bob@example.com', 'bob long password');
  const adaElsewhere = await signedIn('ada@example.com', 'ada long password');

  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${h.gateway.url}/dashboard/sign-in`);
  await heading(page, 'Sign in');
  await page.getByLabel('E-mail').fill('ada@example.com');
  await page.getByLabel('Password').fill('ada long password');
  await page.getByLabel('Password').press('Enter');

  // Keys: the harness's key was made by the CLI, a new one by Ada.
  await heading(page, 'API keys');
  await hasText(page.locator('tr', { has: page.getByRole('cell', { name: 'test', exact: true }) }).locator('td[data-label="Created by"]'), 'the operator (admin CLI)');
  await page.getByLabel('Name of the new key').fill('ada key');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('button', { name: 'I have stored it' }).click();
  await hasText(page.locator('tr', { has: page.getByRole('cell', { name: 'ada key', exact: true }) }).locator('td[data-label="Created by"]'), 'ada@example.com');

  // Members: both listed; no Remove button for oneself.
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members' }).click();
  await heading(page, 'Members');
  await hasText(page.locator('tr[data-member]').first(), 'ada@example.com (you)');
  expect(await page.getByRole('button', { name: 'Remove ada@example.com' }).count()).toBe(0);

  // Bob's sessions: two; end one, then the rest.
  await page.getByRole('button', { name: 'Sessions of bob@example.com' }).click();
  await until('two sessions of bob', async () => (await page.locator('tr[data-session]').count()) === 2);
  await shot(page, 'members-1-sessions');
  await page.locator('tr[data-session]').first().getByRole('button', { name: /^End the session of bob@example.com/ }).click();
  await hasText(page.getByRole('status'), 'The session has ended.');
  await until('one session of bob', async () => (await page.locator('tr[data-session]').count()) === 1);
  expect([(await bob1.get('/v1/account/me')).status, (await bob2.get('/v1/account/me')).status].sort()).toEqual([200, 401]);
  await page.getByRole('button', { name: 'End all sessions' }).click();
  const endAll = page.getByRole('dialog', { name: 'End every session of bob@example.com?' });
  await endAll.getByRole('button', { name: 'End sessions' }).click();
  await hasText(page.getByRole('status'), 'Every session of bob@example.com has ended.');
  expect((await bob1.get('/v1/account/me')).status).toBe(401);
  expect((await bob2.get('/v1/account/me')).status).toBe(401);

  // Remove Bob behind a confirmation: gone from the list, and his new session ends at once.
  const bob3 = await signedIn('bob@example.com', 'bob long password');
  await page.getByRole('button', { name: 'Remove bob@example.com' }).click();
  const remove = page.getByRole('dialog', { name: 'Remove bob@example.com?' });
  await remove.getByRole('button', { name: 'Cancel' }).click();
  expect((await bob3.get('/v1/account/me')).status).toBe(200);
  await page.getByRole('button', { name: 'Remove bob@example.com' }).click();
  await remove.getByRole('button', { name: 'Remove member' }).click();
  await hasText(page.getByRole('status'), 'bob@example.com is removed');
  await gone(page.getByRole('button', { name: 'Remove bob@example.com' }));
  expect((await bob3.get('/v1/account/me')).status).toBe(401);

  // Own password: a wrong current one is refused; then changed, and Ada's other session ends, not this one.
  await page.getByLabel('Current password').fill('not the password');
  await page.getByLabel('New password', { exact: true }).fill('ada newer password');
  await page.getByLabel('Repeat the new password').fill('ada newer password');
  await page.getByRole('button', { name: 'Change password' }).click();
  await hasText(page.getByRole('alert'), 'The current password is wrong');
  await page.getByLabel('Current password').fill('ada long password');
  await page.getByRole('button', { name: 'Change password' }).click();
  await hasText(page.getByRole('status'), 'Your password is changed');
  expect((await adaElsewhere.get('/v1/account/me')).status).toBe(401);
  await page.reload();
  await heading(page, 'Members');

  // Narrow screens: nothing scrolls sideways on the Members page.
  await page.getByRole('button', { name: 'Sessions of ada@example.com' }).click();
  await until('ada sessions', async () => (await page.locator('tr[data-session]').count()) === 1);
  await page.setViewportSize({ width: 360, height: 780 });
  await page.waitForTimeout(100);
  const tooWide = await page.evaluate(() => [
    ...Array.from(document.querySelectorAll('body *'))
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} ${(el.textContent ?? '').slice(0, 40)}`),
    ...(document.documentElement.scrollWidth > window.innerWidth ? [`document ${document.documentElement.scrollWidth}px`] : []),
  ]);
  await shot(page, 'members-2-360');
  expect(tooWide).toEqual([]);
  await context.close();
});

test('throttled sign-in: the page says how long to wait', async () => {
  const team = await h.team(1);
  await member(team.teamId, 'cy@example.com', 'cy long password!');
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${h.gateway.url}/dashboard/sign-in`);
  await heading(page, 'Sign in');
  await page.getByLabel('E-mail').fill('cy@example.com');
  for (let i = 0; i < 3; i++) {
    await page.getByLabel('Password').fill(`wrong password ${i}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await hasText(page.getByRole('alert'), 'Sign-in failed');
    await until('the form to be enabled', () => page.getByRole('button', { name: 'Sign in' }).isEnabled());
  }
  await page.getByLabel('Password').fill('cy long password!');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await hasText(page.getByRole('alert'), 'Too many attempts. Try again in 60 seconds.');
  await context.close();
});
