import path from 'node:path';
import type { Locator, Page } from 'playwright-core';

/**
 * What the browser tests of the dashboard (test/e2e/) ask of a page. playwright-core has no locator
 * assertions (those are @playwright/test's): `until` polls, 30 s at most.
 */
export const SHOTS = path.join(__dirname, '..', '..', '.local', 'screenshots');

export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const matches = (text: string | null, want: string | RegExp) => text !== null && (typeof want === 'string' ? text.includes(want) : want.test(text));
export const hasText = (l: Locator, want: string | RegExp) => until(`${String(l)} to contain ${String(want)}`, async () => matches(await l.first().textContent({ timeout: 200 }), want));
export const heading = (page: Page, text: string) => until(`h1 "${text}"`, async () => (await page.locator('h1').textContent({ timeout: 200 })) === text);
export const visible = (l: Locator) => l.first().waitFor({ state: 'visible', timeout: 30_000 });
export const hidden = (l: Locator) => l.first().waitFor({ state: 'hidden', timeout: 30_000 });

/** A full-page screenshot into .local/screenshots/ (git-ignored). */
export const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

/** Every form control has a label, every button a name: the accessible basics the page promises. */
export async function unlabelled(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const bad: string[] = [];
    for (const el of Array.from(document.querySelectorAll('input, select, textarea'))) {
      const i = el as HTMLInputElement;
      if (!i.labels?.length && !i.getAttribute('aria-label')) bad.push(i.outerHTML);
    }
    for (const b of Array.from(document.querySelectorAll('button'))) if (!(b.textContent ?? '').trim() && !b.getAttribute('aria-label')) bad.push(b.outerHTML);
    return bad;
  });
}

/** The elements reaching past the right edge of the viewport (none, when nothing scrolls sideways). */
export const tooWide = async (page: Page) => {
  await page.waitForTimeout(100); // the charts resize on the next frame
  return page.evaluate(() => [
    ...Array.from(document.querySelectorAll('body *'))
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`),
    ...(document.documentElement.scrollWidth > window.innerWidth ? [`document ${document.documentElement.scrollWidth}px`] : []),
  ]);
};

/**
 * Signs a member in on the dashboard's sign-in page (the Keys page is where a session lands), then,
 * when `to` names one, opens that page from the dashboard's navigation.
 */
export async function signIn(page: Page, base: string, m: { email: string; password: string }, to?: string): Promise<void> {
  await page.goto(`${base}/dashboard/sign-in`);
  await page.getByLabel('E-mail').fill(m.email);
  await page.getByLabel('Password').fill(m.password);
  await page.getByLabel('Password').press('Enter');
  await heading(page, 'API keys');
  if (!to) return;
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: to }).click();
  await heading(page, to);
}

/** The page's console errors as they come, but for the sign-in page's GET /me before a session (a 401): nothing else may fail. */
export function consoleErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/\b401\b/.test(msg.text())) errors.push(msg.text());
  });
  return errors;
}
