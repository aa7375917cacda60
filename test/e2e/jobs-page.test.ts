import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { replayAll } from '../../dev/upstream/replay';
import { signedInMember } from '../support/account';
import { launchBrowser } from '../support/browser';
import { startHarness, type Harness } from '../support/harness';
import { deliverUntilReceived, startReceiver, type Received } from '../support/receiver';
import { SHOTS, hasText, heading, shot, unlabelled, visible, signIn } from '../support/page';

/**
 * The dashboard's Jobs page in a real browser over the local gateway: sign in, submit a file of inputs
 * with the job's own webhook (its signing secret shown once), and see job.succeeded arrive at a local
 * receiver, verified by standardwebhooks with that secret. Screenshots: .local/screenshots/jobs-*.png.
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
  replayAll(h.fake, { anyInput: true });
  receiver = await startReceiver();
  hooks = receiver.hooks;
  hookUrl = receiver.url('/job-hook');
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await h?.stop();
});

test("submit a job with its own webhook (secret once) -> job.succeeded delivered there, verified; the row names the webhook", async () => {
  const m = await signedInMember(h);
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  await signIn(page, h.gateway.url, m, 'Jobs');
  expect(await unlabelled(page)).toEqual([]);
  await page.getByLabel('Operation').selectOption('microblog-a-user-posts');
  await page.getByLabel('Inputs', { exact: true }).setInputFiles({ name: 'handles.txt', mimeType: 'text/plain', buffer: Buffer.from('marlowe-tern.bsky.social\nsecond-one.bsky.social\n') });
  await page.getByLabel('Webhook (optional)').fill(hookUrl);
  await page.getByRole('button', { name: 'Submit' }).click();
  await hasText(page.getByRole('status'), 'submitted');
  const secret = await page.getByLabel(/^Signing secret of the webhook of job job_/).inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
  await visible(page.locator('tr[data-job]'));
  await hasText(page.locator('tr[data-job]'), `webhook: ${hookUrl}`);
  await shot(page, 'jobs-1-submitted');

  await deliverUntilReceived('job.succeeded', hooks);
  const event = new Webhook(secret).verify(hooks[0]!.body, hooks[0]!.headers) as { type: string; data: { state: string } };
  expect(event).toMatchObject({ type: 'job.succeeded', data: { state: 'succeeded' } });
  await context.close();
});
