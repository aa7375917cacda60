import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { startDemo, type Demo } from '../../dev/demo';
import { OPENAPI_FILE } from '../../scripts/openapi';
import { REFERENCE_PATH } from '../../shared/public/reference-page';
import { launchBrowser } from '../support/browser';
import { SHOTS, until } from '../support/page';

/**
 * The API reference page (issue 41, item 2) in a real browser, on the demo (`npm run demo`: the
 * recorded data, the demo's team and key): GET /docs renders every operation of docs/openapi.json
 * with its example and every webhook with its delivered body, loads nothing from another origin
 * (every request the page makes is recorded), and a "Try" with the demo's key gets a 200 from this
 * deployment, the key sent as x-api-key.
 */
jest.setTimeout(300_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the document is arbitrary JSON
const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Json;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

let demo: Demo;
let browser: Browser;
let page: Page;
const requested: string[] = [];
const problems: string[] = [];
beforeAll(async () => {
  demo = await startDemo();
  browser = await launchBrowser();
  page = await (await browser.newContext({ viewport: { width: 1400, height: 1000 } })).newPage();
  page.on('request', (r) => requested.push(r.url()));
  // A CSP violation or a script error shows here.
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(`${demo.stack.gateway.url}${REFERENCE_PATH}`);
  await rapidoc().locator('#api-title').waitFor({ timeout: 60_000 });
});
afterAll(async () => {
  await browser?.close();
  await demo?.stack.stop();
});

const rapidoc = () => page.locator('rapi-doc');
const section = (id: string) => rapidoc().locator(`[id="${idOf(id)}"]`);
const shot = (name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });

/** RapiDoc's JSON view puts each key and value in an element of its own: `" name ": " value "`. */
const flatten = (t: string) => t.replace(/\s+/g, ' ').replace(/"\s+/g, '"').replace(/\s+"/g, '"').replace(/\s*:\s*/g, ':');

/**
 * The text a reader sees in each RapiDoc section asked for by id (`get-/v1/x/-id-`, `post-<type>`),
 * through RapiDoc's nested shadow roots (innerText stops at them), whitespace flattened: one pass over
 * the page for them all, the sections found by id.
 */
const sections = (ids: string[]) =>
  page
    .evaluate((wanted) => {
      const want = new Set(wanted);
      const text = (root: Node) => {
        const out: string[] = [];
        const stack: Node[] = [root];
        while (stack.length) {
          const n = stack.pop()!;
          if (n.nodeType === Node.TEXT_NODE) {
            out.push(n.textContent ?? '');
            continue;
          }
          const shadow = (n as Element).shadowRoot;
          const kids = [...(shadow ? [shadow] : []), ...Array.from(n.childNodes)];
          for (let k = kids.length - 1; k >= 0; k--) stack.push(kids[k]!);
        }
        return out.join(' ');
      };
      const found: Record<string, string> = {};
      const stack: Node[] = [document.querySelector('rapi-doc')!];
      while (stack.length) {
        const n = stack.pop()!;
        if (n instanceof Element && want.has(n.id) && !(n.id in found)) found[n.id] = text(n);
        const shadow = (n as Element).shadowRoot;
        if (shadow) stack.push(shadow);
        stack.push(...Array.from(n.childNodes));
      }
      return found;
    }, ids)
    .then((found) => Object.fromEntries(Object.entries(found).map(([id, t]) => [id, flatten(t)])));

/** RapiDoc's element id of an operation (`get-/v1/x/{id}` is `get-/v1/x/-id-`) or a webhook (`post-<type>`). */
const idOf = (id: string) => id.replace(/[{}]/g, '-');
/** The text a reader sees in one section (see `sections`). */
const seen = async (id: string) => (await sections([idOf(id)]))[idOf(id)] ?? '';

/**
 * Waits (one pass over the page a time) until every section shows every text wanted of it, and
 * answers what is still missing then: `<what>: not rendered` or `<what>: <text>`.
 */
async function shown(wanted: { what: string; id: string; texts: string[] }[]): Promise<string[]> {
  const ids = wanted.map((w) => idOf(w.id));
  let found: Record<string, string> = {};
  const lacking = () =>
    wanted.flatMap((w) => {
      const t = found[idOf(w.id)];
      return t === undefined ? [`${w.what}: not rendered`] : w.texts.filter((x) => !t.includes(x)).map((x) => `${w.what}: ${x}`);
    });
  await until('the sections and their examples', async () => ((found = await sections(ids)), lacking().length === 0)).catch(() => undefined);
  return lacking();
}

/**
 * The first named value of an example as the page's JSON shows it (`"name":value`): what proves that
 * example, not one made from the schema, is on screen. A real string where there is one, else the first value.
 */
const marker = (value: unknown): string | undefined => realString(value) ?? firstValue(value);
function firstValue(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map(firstValue).find(Boolean);
  if (!value || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    const found = v !== null && typeof v === 'object' ? firstValue(v) : `${JSON.stringify(k)}:${JSON.stringify(v)}`;
    if (found) return found;
  }
  return undefined;
}
function realString(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map(realString).find(Boolean);
  if (!value || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (v !== null && typeof v === 'object') {
      const inner = realString(v);
      if (inner) return inner;
      continue;
    }
    const shown = JSON.stringify(v);
    // A real value (not what RapiDoc would make up from the schema), printable as it is.
    if (typeof v === 'string' && v.length >= 4 && v.length <= 60 && !shown.includes('\\') && !v.includes(':')) return `${JSON.stringify(k)}:${shown}`;
  }
  return undefined;
}
const exampleOf = (media: Json | undefined) => media?.example ?? Object.values((media?.examples ?? {}) as Json)[0]?.value;

test('GET /docs renders every operation with its example, from this origin alone, under a CSP that keeps it so', async () => {
  const res = await fetch(`${demo.stack.gateway.url}${REFERENCE_PATH}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self';.*connect-src 'self'/);
  await shot('api-reference');

  const wanted: { what: string; id: string; texts: string[] }[] = [];
  const without: string[] = [];
  for (const [p, item] of Object.entries(doc.paths as Json)) {
    for (const method of METHODS.filter((m) => item[m])) {
      const op = item[method];
      // The example of its first documented answer is what the page shows first.
      const [status, first] = Object.entries(op.responses as Json)[0]!;
      const want = marker(exampleOf(first.content?.['application/json']));
      const summary = flatten(op.summary);
      if (want === undefined) without.push(`${method} ${p} ${status}`);
      wanted.push({ what: `${method} ${p} ${status}`, id: `${method}-${p}`, texts: want === undefined ? [summary] : [summary, want] });
    }
  }
  const missing = await shown(wanted);
  const checked = wanted.length - without.length;
  expect(missing).toEqual([]);
  expect(checked).toBeGreaterThan(30);
  // Without a JSON example: the MCP methods that only refuse (not JSON answers of ours to capture) and llms.txt (text).
  expect(without.sort()).toEqual(['delete /mcp 401', 'get /llms.txt 200', 'get /mcp 401']);

  // An error example by its status: the message the service answers (issue 41's wrong 404).
  const posts = section('get-/v1/microblog-a/user/posts');
  await posts.getByRole('button', { name: '404', exact: true }).click();
  await until('the 404 example', async () => (await seen('get-/v1/microblog-a/user/posts')).includes('The requested content does not exist or is not public'));
  await posts.getByRole('button', { name: '404', exact: true }).scrollIntoViewIfNeeded();
  await shot('api-reference-404-example');

  // Agents are told where it is.
  const llms = await (await fetch(`${demo.stack.gateway.url}/llms.txt`)).text();
  expect(llms).toContain(`[API reference](${demo.stack.gateway.url}${REFERENCE_PATH})`);

  const foreign = requested.filter((u) => !u.startsWith(`${demo.stack.gateway.url}/`) && !u.startsWith('data:'));
  expect(foreign).toEqual([]);
  expect(requested).toEqual(expect.arrayContaining([`${demo.stack.gateway.url}${REFERENCE_PATH}/assets/reference.js`, `${demo.stack.gateway.url}/v1/openapi.json`]));
  expect(problems).toEqual([]);
});

test('every webhook is shown with the body a receiver was sent', async () => {
  const wanted: { what: string; id: string; texts: string[] }[] = [];
  const without: string[] = [];
  for (const [type, item] of Object.entries(doc.webhooks as Json)) {
    const example = exampleOf(item.post.requestBody.content['application/json']);
    if (example === undefined) {
      without.push(type);
      continue;
    }
    // The first real value of the event's own data (a monitor's id, a team's, a job's ...): what no schema makes up.
    wanted.push({ what: type, id: `post-${type}`, texts: [`"type":"${type}"`, marker(example.data)!] });
  }
  const missing = await shown(wanted);
  expect(missing).toEqual([]);
  expect(without).toEqual([]);
  await section('post-items.new').scrollIntoViewIfNeeded();
  await shot('api-reference-webhook');
});

test('"Try" with the demo key answers 200 from this deployment, the key sent as x-api-key', async () => {
  const recorded = demo.examples.find((e) => e.path === '/v1/microblog-b/profile')!.query.handle!;
  // The key, typed as a reader would, in the page's Authentication section (the document's apiKey scheme).
  const auth = rapidoc().locator('[id="security-scheme-apiKey"]');
  await auth.locator('input').fill(demo.key);
  await auth.getByRole('button', { name: 'SET' }).click();

  const op = section('get-/v1/microblog-b/profile');
  // The handle the recordings have (the document's example is another account).
  await op.locator('input[data-pname="handle"]').fill(recorded);
  await op.scrollIntoViewIfNeeded();
  const answered = page.waitForResponse((r) => r.url().startsWith(`${demo.stack.gateway.url}/v1/microblog-b/profile?`));
  await op.getByRole('button', { name: 'TRY', exact: true }).click();
  const res = await answered;
  expect(res.status()).toBe(200);
  expect(res.request().headers()['x-api-key']).toBe(demo.key);
  const answer = (await res.json()) as Json;
  expect(answer.data.profile.screenName).toBe(recorded);
  // On the page: the status, and this answer (its own request id: no example has it).
  await until('the 200 on the page', async () => (await seen('get-/v1/microblog-b/profile')).includes('Response Status:OK:200'));
  await until('the answer on the page', async () => (await seen('get-/v1/microblog-b/profile')).includes(`"requestId":"${answer.meta.requestId}"`));
  await op.getByRole('button', { name: 'TRY', exact: true }).scrollIntoViewIfNeeded();
  await shot('api-reference-try-it');

  const foreign = requested.filter((u) => !u.startsWith(`${demo.stack.gateway.url}/`) && !u.startsWith('data:'));
  expect(foreign).toEqual([]);
});
