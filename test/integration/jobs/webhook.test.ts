import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { OPENAPI_FILE } from '../../../scripts/openapi';
import { Webhook } from 'standardwebhooks';
import { invokeInProcess } from '../../../dev/monitors';
import { runDue } from '../../../shared/monitors/scheduler';
import { logger } from '../../../shared/runtime/log';
import { resolveNamesWith } from '../../../shared/scrape/address';
import { startLocalStack, type LocalStack } from '../../../dev/stack';
import { teamWithKey } from '../../../dev/teams';
import { replayAll } from '../../../dev/upstream/replay';
import { getJobWebhook } from '../../../shared/webhooks/store';

/**
 * A job's own webhook (POST /v1/jobs `webhook`, docs/jobs.md) end to end on DynamoDB Local, through
 * the local gateway, the in-process job queue and the delivery engine (runDue): its events reach a
 * local receiver signed with the job's secret (verified by the standardwebhooks package), the secret
 * is shown once, and a URL that is not public https is refused as a team endpoint's is.
 */
process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}
const received: Received[] = [];
let status = 200;
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => (received.push({ path: req.url ?? '', headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') }), res.writeHead(status).end()));
});
let base = '';
/** What reached `path`, verified with `secret` (a body that does not verify is left out). */
const verified = (secret: string, path: string) =>
  received
    .filter((r) => r.path === path)
    .flatMap((r) => {
      try {
        return [{ id: r.headers['webhook-id']!, ...(new Webhook(secret).verify(r.body, r.headers) as { type: string; data: Record<string, any> }) }]; // eslint-disable-line @typescript-eslint/no-explicit-any
      } catch {
        return [];
      }
    });
/** The answers as docs/openapi.json describes them (the same check as test/contract/openapi-examples.test.ts). */
// Unoptimized validators (code.optimize off): the same verdicts, a third less CPU to compile (test/support/openapi-check.ts).
const ajv = new Ajv2020({ strict: false, allErrors: true, code: { optimize: false } });
addFormats(ajv);
ajv.addSchema(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')), 'openapi');
const asDocumented = (path: string, method: string, status: number, body: unknown) => {
  const validate = ajv.getSchema(`openapi#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/responses/${status}/content/application~1json/schema`)!;
  return validate(body) ? [] : validate.errors;
};
let clock = Date.now();
/** Two runs of due work: the job's event expanded into its deliveries, then attempted. */
const deliverAll = async () => {
  await runDue((clock = Math.max(clock, Date.now()) + 1000), logger, invokeInProcess);
  await runDue((clock += 1000), logger, invokeInProcess);
};
let stack: LocalStack;
beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stack = await startLocalStack({ upstream: 'fake' });
  replayAll(stack.upstream!, { anyInput: true });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await new Promise((r) => receiver.close(r));
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function api(method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(stack.gateway.url + path, { method, headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function ended(key: string, id: string): Promise<any> {
  for (let i = 0; i < 600; i++) {
    await stack.jobs.idle();
    const j = (await api('GET', `/v1/jobs/${id}`, key)).body.data.job;
    if (['succeeded', 'failed', 'cancelled', 'paused'].includes(j.state)) return j;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('job did not end');
}

const INPUTS = ['marlowe-tern.bsky.social', 'user1.bsky.social'];

test('a job with a webhook URL delivers a verified job.succeeded there; the secret is shown once; GET shows the url and the delivery, never the secret', async () => {
  const { teamId, key } = await teamWithKey('jobhook-ok', 100);
  const url = `${base}/job-a`;
  const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: INPUTS, webhook: url }, { 'idempotency-key': 'hook-once' });
  expect(made.status).toBe(201);
  const id = made.body.data.job.id as string;
  const secret = made.body.data.job.webhook.secret as string;
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
  expect(made.body.data.job.webhook).toMatchObject({ url, events: ['job.succeeded', 'job.failed', 'job.paused'] });
  expect(asDocumented('/v1/jobs', 'post', 201, made.body)).toEqual([]);

  // Stored sealed: the webhook's item holds no form of the secret a reader could use as it is.
  const stored = await getJobWebhook(teamId, id);
  expect(stored?.secret).toMatch(/^v1\./);
  expect(JSON.stringify(stored)).not.toContain(secret.slice(6));

  // The Idempotency-Key replay answers the same job, without the secret.
  const again = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: INPUTS, webhook: url }, { 'idempotency-key': 'hook-once' });
  expect(again.status).toBe(200);
  expect(again.body.data.job.id).toBe(id);
  expect(again.body.data.job.webhook).toEqual({ url, events: ['job.succeeded', 'job.failed', 'job.paused'], deliveries: expect.any(Array) });
  expect(JSON.stringify(again.body)).not.toContain(secret);

  const job = await ended(key, id);
  expect(job.state).toBe('succeeded');
  await deliverAll();
  const events = verified(secret, '/job-a');
  expect(events.map((e) => e.type)).toEqual(['job.succeeded']);
  expect(events[0]!.data).toMatchObject({ jobId: id, state: 'succeeded', counts: { inputs: 2, succeeded: 2 } });
  // Nothing else reached the job's URL (no unsigned or wrongly signed body).
  expect(received.filter((r) => r.path === '/job-a')).toHaveLength(1);
  expect(events[0]!.id).toMatch(/^evt_[0-9a-f]{24}$/);

  // GET: the url, events and the delivery's state from the engine; never the secret.
  const got = await api('GET', `/v1/jobs/${id}`, key);
  expect(got.body.data.job.webhook).toEqual({
    url,
    events: ['job.succeeded', 'job.failed', 'job.paused'],
    deliveries: [expect.objectContaining({ eventId: events[0]!.id, type: 'job.succeeded', state: 'delivered', attempts: 1, lastStatus: 200, recentAttempts: [expect.objectContaining({ status: 200, error: null })] })],
  });
  expect(JSON.stringify(got.body)).not.toContain(secret);
  expect(asDocumented('/v1/jobs/{jobId}', 'get', 200, got.body)).toEqual([]);
  // The document's check can fail: a delivery's state it does not know is refused.
  expect(asDocumented('/v1/jobs/{jobId}', 'get', 200, { ...got.body, data: { job: { ...got.body.data.job, webhook: { ...got.body.data.job.webhook, deliveries: [{ ...got.body.data.job.webhook.deliveries[0], state: 'lost' }] } } } })).not.toEqual([]);
  expect(JSON.stringify((await api('GET', '/v1/jobs', key)).body)).not.toContain(secret);

  // Delivered once: another run of due work sends nothing again.
  await deliverAll();
  expect(received.filter((r) => r.path === '/job-a')).toHaveLength(1);
}, 120_000);

test('the same event reaches the team endpoint and the job webhook with one webhook-id, each signed with its own secret; `events` filters', async () => {
  const { key } = await teamWithKey('jobhook-both', 100);
  const endpoint = await api('POST', '/v1/webhooks', key, { url: `${base}/team`, types: ['job.succeeded'] });
  expect(endpoint.status).toBe(201);
  const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: INPUTS, webhook: { url: `${base}/job-b`, events: ['job.succeeded'] } });
  expect(made.status).toBe(201);
  const id = made.body.data.job.id as string;
  const filtered = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: INPUTS, webhook: { url: `${base}/job-c`, events: ['job.failed'] } });
  expect(filtered.status).toBe(201);
  await ended(key, id);
  await ended(key, filtered.body.data.job.id);
  await deliverAll();
  const team = verified(endpoint.body.data.endpoint.secret, '/team').filter((e) => e.data.jobId === id);
  const own = verified(made.body.data.job.webhook.secret, '/job-b');
  expect(own.map((e) => e.type)).toEqual(['job.succeeded']);
  expect(team.map((e) => e.id)).toEqual(own.map((e) => e.id));
  // The team's secret does not verify the job's deliveries, nor the reverse.
  expect(verified(endpoint.body.data.endpoint.secret, '/job-b')).toEqual([]);
  // A job whose webhook wants only job.failed got nothing for its success.
  expect(received.filter((r) => r.path === '/job-c')).toEqual([]);
  expect((await api('GET', `/v1/jobs/${filtered.body.data.job.id}`, key)).body.data.job.webhook.deliveries).toEqual([]);
}, 120_000);

test('a job paused for want of credits tells its webhook once (job.paused, verified)', async () => {
  const { key } = await teamWithKey('jobhook-paused', 0);
  const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: INPUTS, webhook: `${base}/job-p` });
  expect(made.status).toBe(201);
  const job = await ended(key, made.body.data.job.id);
  expect(job).toMatchObject({ state: 'paused', pausedReason: 'no_credits' });
  await deliverAll();
  await deliverAll();
  const events = verified(made.body.data.job.webhook.secret, '/job-p');
  expect(events.map((e) => e.type)).toEqual(['job.paused']);
  expect(events[0]!.data).toMatchObject({ jobId: job.id, state: 'paused' });
}, 120_000);

test('a failing receiver: the delivery stays pending with its attempt recorded, GET shows it', async () => {
  const { key } = await teamWithKey('jobhook-500', 100);
  status = 500;
  try {
    const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: INPUTS, webhook: `${base}/job-d` });
    const id = made.body.data.job.id as string;
    await ended(key, id);
    await deliverAll();
    const d = (await api('GET', `/v1/jobs/${id}`, key)).body.data.job.webhook.deliveries;
    expect(d).toEqual([expect.objectContaining({ type: 'job.succeeded', state: 'pending', attempts: 1, lastStatus: 500, nextRetryAt: expect.any(String), recentAttempts: [expect.objectContaining({ status: 500 })] })]);
  } finally {
    status = 200;
  }
}, 120_000);

test('a webhook that is not public https is 422 in the spec shape, and nothing is created', async () => {
  const { key } = await teamWithKey('jobhook-bad', 100);
  const refused = async (webhook: unknown, path: string) => {
    const res = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: INPUTS, webhook });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [expect.objectContaining({ path })] });
  };
  await refused('https://10.0.0.1/hook', 'webhook');
  await refused('https://169.254.169.254/latest', 'webhook');
  await refused({ url: 'https://[::ffff:7f00:1]/hook' }, 'webhook.url');
  await refused('http://93.184.216.34/hook', 'webhook');
  await refused('not a url', 'webhook');
  await refused({ url: `${base}/x`, events: ['job.started'] }, 'webhook.events');
  await refused({ url: `${base}/x`, headers: {} }, 'webhook.headers');
  await refused(42, 'webhook');
  // A name that resolves to a private address: refused after resolution, as a team endpoint's.
  const restore = resolveNamesWith((_host, _o, cb) => cb(null, [{ address: '192.168.1.5', family: 4 }]));
  try {
    await refused('https://hooks.example.com/in', 'webhook');
  } finally {
    restore();
  }
  // Plain http to loopback only while WEBHOOK_ALLOW_LOOPBACK is set (local runs and tests; never the stack).
  process.env.WEBHOOK_ALLOW_LOOPBACK = '';
  try {
    await refused(`${base}/x`, 'webhook');
  } finally {
    process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  }
  expect((await api('GET', '/v1/jobs', key)).body.data.jobs).toEqual([]);
}, 60_000);
