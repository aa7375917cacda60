import { mkdirSync } from 'node:fs';
import http from 'node:http';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Browser, Page } from 'playwright-core';
import { microblogA } from '../../dev/upstream/replay';
import { signedInMember } from '../support/account';
import { launchBrowser } from '../support/browser';
import { startHarness, type Harness } from '../support/harness';
import { type Moto, startMoto } from '../support/moto';
import { SHOTS, consoleErrors, hasText, heading, shot, tooWide, unlabelled, until, visible, signIn } from '../support/page';

/**
 * The dashboard's Jobs page in a real browser (../support/browser.ts) over the local gateway (jobs
 * run in process on DynamoDB Local, the platform a fake upstream replaying its recordings): sign in,
 * submit a job from a CSV file through the page's file input (one input valid, one the platform does
 * not have, one invalid and skipped), watch its progress bar reach the end, open its files: signed
 * links whose files download (items.jsonl's first line read here; an altered signature is a 403),
 * and the errors list showing the 404 and the invalid line. Then a job whose delivery to the
 * customer's bucket failed (moto_server as S3 and STS, ../support/moto.ts: the role refuses us) shows
 * it with its code, and "Retry delivery" delivers once the role is fixed. Screenshots go to
 * .local/screenshots/jobs-files-*.png.
 */
jest.setTimeout(300_000);

const HANDLE = 'marlowe-tern.bsky.social'; // the replay's recorded account
const MISSING = 'nobody-here.bsky.social'; // not recorded: the platform's "not found"

const ROLE = 'arn:aws:iam::123456789012:role/social-data-delivery';
const BUCKET = 'customer-exports';
let h: Harness;
let browser: Browser;
let moto: Moto;
const saved = { ...process.env };

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  moto = await startMoto();
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_REGION: 'us-east-1', JOBS_S3_ENDPOINT: moto.endpoint, JOBS_STS_ENDPOINT: moto.stsEndpoint });
  h = await startHarness();
  microblogA(h.fake);
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await h?.stop();
  await moto?.stop();
  process.env = saved;
});


/** What the gateway received of each /v1/jobs request: whether the browser sent the cookie, and its Origin. */
function watchJobRequests(server: http.Server) {
  const seen: { method: string; path: string; origin?: string; cookie: boolean }[] = [];
  server.on('request', (req: http.IncomingMessage) => {
    if (req.url?.startsWith('/v1/jobs')) seen.push({ method: req.method ?? '', path: req.url, origin: req.headers.origin, cookie: /(^|;\s*)sda_session=/.test(req.headers.cookie ?? '') });
  });
  return seen;
}

test('submit a CSV file -> the progress bar reaches the end -> signed links download the files -> the errors list shows the 404 and the invalid line', async () => {
  const m = await signedInMember(h);
  const seen = watchJobRequests(h.gateway.server);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = consoleErrors(page);

  await signIn(page, h.gateway.url, m, 'Jobs');
  await visible(page.getByText('No job yet: submit a file of inputs below.'));
  expect(await unlabelled(page)).toEqual([]);
  expect(await tooWide(page)).toEqual([]);
  await shot(page, 'jobs-files-1-empty');
  // The page's own address serves the page too (a reload, a bookmark), not only the link in the header.
  await page.reload();
  await heading(page, 'Jobs');

  // A CSV file with a header row naming the parameter: the recorded account, one the platform does not have, one invalid.
  await page.getByLabel('Operation').selectOption('microblog-a-user-posts');
  await page.getByLabel('Inputs', { exact: true }).setInputFiles({ name: 'handles.csv', mimeType: 'text/csv', buffer: Buffer.from(`handle\r\n${HANDLE}\r\n${MISSING}\r\nnot a handle!\r\n`) });
  await page.getByLabel(/Run the valid inputs/).check();
  await page.getByRole('button', { name: 'Submit' }).click();
  await hasText(page.getByRole('status'), /^Job job_\w+ submitted: 2 inputs, 1 invalid skipped\.$/);
  const row = page.locator('tr[data-job]');
  expect(await row.count()).toBe(1);
  const id = (await row.getAttribute('data-job'))!;
  expect(id).toMatch(/^job_/);

  // The page reads the job again every 3 s while it runs: the bar reaches its end, the state says succeeded.
  const bar = row.locator('progress');
  expect(await bar.getAttribute('aria-label')).toBe(`Progress of ${id}`);
  await until('the progress bar at its end', async () => (await bar.getAttribute('value')) === '2' && (await bar.getAttribute('max')) === '2');
  await hasText(row.locator('td[data-label="State"]'), 'succeeded');
  await hasText(row.locator('td[data-label="Progress"]'), '2 of 2 inputs (1 failed), 10 items');
  await hasText(row.locator('td[data-label="Credits"]'), '1');

  // The files: four signed links (short-lived, this process's HMAC locally; S3's pre-signed URLs on AWS).
  await row.getByRole('button', { name: `Files of ${id}` }).click();
  const links = page.getByRole('list', { name: `Files of ${id}` }).getByRole('link');
  await until('four links', async () => (await links.count()) === 4);
  expect(await links.allTextContents()).toEqual(['items.jsonl', 'items.csv', 'errors.jsonl', 'errors.csv']);
  const hrefs = await links.evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
  for (const href of hrefs) expect(href).toMatch(new RegExp(`^${h.gateway.url}/local-files/.+\\?.*expires=\\d+&signature=[\\w-]+`));
  const items = await fetch(hrefs[0]!);
  expect(items.status).toBe(200);
  const first = JSON.parse((await items.text()).split('\n')[0]!) as { input: string; id: string };
  expect(first.input).toBe(HANDLE);
  expect(first.id).toEqual(expect.any(String));
  const csv = await (await fetch(hrefs[1]!)).text();
  expect(csv.split('\r\n')[0]!.startsWith('input,')).toBe(true);
  // An altered signature is refused, as S3 refuses one.
  expect((await fetch(hrefs[0]!.replace(/signature=([\w-])/, (_s, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`))).status).toBe(403);

  // The errors list: the account the platform does not have (404) and the invalid line (422), by line of the file.
  const errorRows = page.locator(`tr[data-files-of="${id}"] table.errors tbody tr`);
  await until('two error rows', async () => (await errorRows.count()) === 2);
  expect(await errorRows.evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent!.trim())))).toEqual([
    ['3', MISSING, '404 NOT_FOUND', expect.any(String)],
    ['4', 'not a handle!', '422 VALIDATION_ERROR', expect.stringMatching(/handle/i)],
  ]);
  await hasText(page.locator(`tr[data-files-of="${id}"] table.errors caption`), 'Errors (2)');
  expect(await unlabelled(page)).toEqual([]);
  expect(await tooWide(page)).toEqual([]);
  await shot(page, 'jobs-files-2-files-1280');

  // Narrow phone width: one card per row, nothing scrolls sideways.
  await page.setViewportSize({ width: 360, height: 780 });
  expect(await tooWide(page)).toEqual([]);
  await shot(page, 'jobs-files-3-360');

  // The browser sent the session cookie to every /v1/jobs request, and this site's Origin with each change.
  for (const r of seen) expect(r.cookie).toBe(true);
  const changes = seen.filter((r) => r.method !== 'GET');
  expect(changes.map((r) => `${r.method} ${r.path.replace(/job_\w+/, '{id}')}`)).toEqual(['POST /v1/jobs/uploads', 'POST /v1/jobs']);
  for (const r of changes) expect(r.origin).toBe(h.gateway.url);
  expect(errors).toEqual([]);
  await context.close();
});

test('a delivery to the customer\'s bucket that failed (the role refuses us): shown with its code; "Retry delivery" fails again, then delivers once the role is fixed', async () => {
  const s3 = new S3Client({ region: 'us-east-1', endpoint: moto.endpoint, forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  moto.refusing.add(ROLE);
  const m = await signedInMember(h);
  const externalId = (await m.client.request('GET', '/v1/jobs/destination')).body.data.destination.externalId as string;
  const made = await m.client.request('POST', '/v1/jobs', { operation: 'microblog-a-user-posts', inputs: [HANDLE], destination: { type: 's3', bucket: BUCKET, prefix: 'exports', roleArn: ROLE, externalId } });
  expect(made.status).toBe(201);
  const id = made.body.data.job.id as string;
  await until('the job to end', async () => (await m.client.request('GET', `/v1/jobs/${id}`)).body.data.job.state === 'succeeded');

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const errors = consoleErrors(page);
  await signIn(page, h.gateway.url, m, 'Jobs');
  const row = page.locator(`tr[data-job="${id}"]`);
  const state = row.locator('td[data-label="State"]');
  await hasText(state, `not delivered to s3://${BUCKET}/exports/${id}/`);
  await hasText(state, 'ROLE_NOT_ASSUMABLE: what AWS answered');
  // What AWS answered, behind a disclosure (the message is long): opened, it names the role.
  await state.getByText('what AWS answered').click();
  await visible(state.getByText(/^Could not assume arn:aws:iam::123456789012:role\/social-data-delivery with your team's external ID \(AccessDenied/));
  const retry = row.getByRole('button', { name: `Retry the delivery of ${id} to your bucket` });
  await visible(retry);
  expect(await tooWide(page)).toEqual([]);
  await shot(page, 'jobs-files-4-delivery-failed');

  // Still refused: the page says so, the button stays.
  await retry.click();
  await hasText(page.getByRole('alert'), `Job ${id}: still not delivered (ROLE_NOT_ASSUMABLE)`);
  await visible(retry);

  // The customer fixes the role's trust policy: the retry delivers, the button goes.
  moto.refusing.delete(ROLE);
  await retry.click();
  await hasText(page.getByRole('status'), `Job ${id}: its files are delivered to your bucket.`);
  expect(await page.getByRole('alert').filter({ hasText: 'still not delivered' }).count()).toBe(0);
  await hasText(state, `delivered to s3://${BUCKET}/exports/${id}/`);
  expect(await retry.count()).toBe(0);
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `exports/${id}/` }));
  expect((listed.Contents ?? []).map((o) => o.Key!.split('/').pop()).sort()).toEqual(['errors.csv', 'errors.jsonl', 'items.csv', 'items.jsonl']);
  expect(moto.assumed.filter((a) => a.RoleSessionName === `sda-${id}`).map((a) => a.ExternalId)).toEqual([externalId, externalId, externalId]);
  await shot(page, 'jobs-files-5-delivered');
  expect(errors).toEqual([]);
  await context.close();
});
