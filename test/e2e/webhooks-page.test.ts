import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { signedInMember } from '../support/account';
import { launchBrowser } from '../support/browser';
import { startHarness, type Harness } from '../support/harness';
import { deliverUntilReceived, startReceiver, type Received } from '../support/receiver';
import { SHOTS, hasText, heading, shot, unlabelled, visible, signIn } from '../support/page';

/**
 * The dashboard's Webhooks page in a real browser over the local gateway: sign in, create an endpoint
 * for key.revoked (the secret shown once), revoke a key on the Keys page, and see key.revoked arrive
 * at a local receiver, verified by standardwebhooks with that secret, and listed under the endpoint's
 * deliveries; then the credits.low threshold saved. Screenshots: .local/screenshots/webhooks-*.png.
 */
jest.setTimeout(300_000);

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let hooks: Received[];
let h: Harness;
let browser: Browser;
let hookUrl: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  h = await startHarness();
  receiver = await startReceiver();
  hooks = receiver.hooks;
  hookUrl = receiver.url('/hook');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await h?.stop();
});

test('create an endpoint (secret once) -> revoke a key -> key.revoked delivered, verified, listed -> threshold saved', async () => {
  const m = await signedInMember(h);
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  await signIn(page, h.gateway.url, m);
  await page.getByLabel('Name of the new key').fill('to-revoke');
  await page.getByRole('button', { name: 'Create key' }).click();
  await visible(page.locator('tr[data-key]'));

  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhooks' }).click();
  await heading(page, 'Webhooks');
  await visible(page.getByText('No webhook endpoints yet'));
  expect(await unlabelled(page)).toEqual([]);
  await page.getByLabel('URL', { exact: true }).fill(hookUrl);
  await page.getByLabel('key.revoked').check();
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  await hasText(page.getByRole('status'), 'endpoint is created');
  const secret = await page.getByLabel(/^Signing secret of endpoint ep_/).inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
  await visible(page.locator('tr[data-endpoint]'));
  await shot(page, 'webhooks-1-created');

  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Keys' }).click();
  await heading(page, 'API keys');
  await page.getByRole('button', { name: 'Revoke key to-revoke' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
  await hasText(page.getByRole('status'), 'is revoked');

  await deliverUntilReceived('key.revoked', hooks);
  const event = new Webhook(secret).verify(hooks[0]!.body, hooks[0]!.headers) as { type: string; data: { name: string } };
  expect(event).toMatchObject({ type: 'key.revoked', data: { name: 'to-revoke' } });

  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhooks' }).click();
  await heading(page, 'Webhooks');
  await page.getByRole('button', { name: /^Deliveries of webhook endpoint/ }).click();
  await visible(page.locator(`tr[data-event="${hooks[0]!.headers['webhook-id']}"]`));
  await hasText(page.locator(`tr[data-event="${hooks[0]!.headers['webhook-id']}"]`), 'delivered');
  await shot(page, 'webhooks-2-delivered');

  await page.getByLabel(/Send credits.low below/).fill('25');
  await page.getByRole('button', { name: 'Save' }).click();
  await hasText(page.getByRole('status'), 'falls below 25');
  await context.close();
});
