import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse as parseCsv } from 'csv-parse/sync';
import { Webhook } from 'standardwebhooks';
import { invokeInProcess } from '../../../dev/monitors';
import { runDue } from '../../../shared/monitors/scheduler';
import { logger } from '../../../shared/runtime/log';
import { startLocalStack, type LocalStack } from '../../../dev/stack';
import { startLocalJobs } from '../../../dev/jobs';
import type { LocalQueue } from '../../../shared/jobs/local-queue';
import { teamWithKey } from '../../../dev/teams';
import { MICROBLOG_A, replayAll } from '../../../dev/upstream/replay';
import { fixture } from '../../../dev/upstream/fake';
import { ledger } from '../../../shared/accounting/ledger';
import { addCredits, balance } from '../../../shared/accounting/teams';
import { requestHistory } from '../../../shared/accounting/request-history';
import { type Invoke, pageRequestId } from '../../../shared/jobs/engine';
import { inputRecords } from '../../../shared/jobs/store';
import { randomUUID } from 'node:crypto';
import { operation } from '../../../shared/operations';
import { operationGetEvent } from '../../../shared/http/proxy-event';
import { config } from '../../../shared/runtime/config';
import { dbSends, type Rewrite } from '../../support/db-sends';

/**
 * Bulk jobs end to end on DynamoDB Local with the replay upstream (every handle answers the recorded
 * feed, but one that does not exist), through the local gateway and the in-process queue: the same
 * engine, pipeline and files as deployed (docs/jobs.md).
 */
process.env.JOB_INPUTS_PER_TEAM = '8';
process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
/** A local receiver of the team's webhook endpoint: every body with its headers. */
const received: { headers: Record<string, string>; body: string }[] = [];
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => (received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') }), res.writeHead(200).end()));
});
let hookUrl = '';
/** The events the receiver got signed with `secret`, verified by the standardwebhooks package. */
const verified = (secret: string) =>
  received.flatMap((r) => {
    try {
      return [{ id: r.headers['webhook-id'], ...(new Webhook(secret).verify(r.body, r.headers) as { type: string; data: Record<string, any> }) }]; // eslint-disable-line @typescript-eslint/no-explicit-any
    } catch {
      return [];
    }
  });
/** Two runs of due work (the local scheduler's): a team event expanded into its deliveries, then attempted. */
const deliverAll = async () => {
  await runDue(Date.now() + 1000, logger, invokeInProcess);
  await runDue(Date.now() + 2000, logger, invokeInProcess);
};
const MISSING = 'nobody-here.bsky.social';
let stack: LocalStack;
/** The in-process queue the jobs API hands inputs to now (a test may put its own in place). */
let queue: LocalQueue;
beforeAll(async () => {
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  stack = await startLocalStack({ upstream: 'fake' });
  queue = stack.jobs;
  replayAll(stack.upstream!, { anyInput: true });
  const notFound = { status: 400, body: JSON.stringify(fixture('microblog-a/error-not-found.json')), headers: { 'content-type': 'application/json' } };
  stack.upstream!.intercept = (req) => (req.query.actor === MISSING && (req.path === MICROBLOG_A.feed || req.path === MICROBLOG_A.profile) ? notFound : undefined);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await new Promise((r) => receiver.close(r));
});
afterEach(() => {
  queue = startLocalJobs(invokeInProcess, { retryDelayMs: 10 });
  stack.upstream!.delayMs = 0;
  stack.upstream!.rewrite = undefined;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function api(method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(stack.gateway.url + path, { method, headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Until the in-process queue is idle and the job has ended (or `until` holds). */
async function settled(key: string, id: string, until = (j: { state: string }) => ['succeeded', 'failed', 'cancelled', 'paused'].includes(j.state), idle = true) {
  for (let i = 0; i < 600; i++) {
    if (idle) await queue.idle();
    const j = (await api('GET', `/v1/jobs/${id}`, key)).body.data.job;
    if (until(j)) return j;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('job did not settle');
}

async function download(key: string, id: string): Promise<Record<string, string>> {
  const res = await api('GET', `/v1/jobs/${id}/results`, key);
  expect(res.status).toBe(200);
  const out: Record<string, string> = {};
  for (const f of res.body.data.files as { name: string; url: string }[]) {
    const got = await fetch(f.url);
    expect(got.status).toBe(200);
    out[f.name] = await got.text();
  }
  return out;
}

const jobLedger = async (teamId: string, jobId: string) => (await ledger(teamId)).filter((e) => e.jobId === jobId);

test('200 inputs: three spellings run once, the 404 and the invalid line in the errors file, credits equal to the live pages', async () => {
  const { teamId, key } = await teamWithKey('jobs-200', 1000);
  const endpoint = await api('POST', '/v1/webhooks', key, { url: hookUrl, types: ['job.succeeded', 'job.failed'] });
  expect(endpoint.status).toBe(201);
  const handles = Array.from({ length: 195 }, (_, i) => `user${i}.bsky.social`);
  const inputs: unknown[] = ['@marlowe-tern.bsky.social', { handle: 'marlowe-tern.bsky.social' }, 'https://bsky.app/profile/marlowe-tern.bsky.social', MISSING, { handle: 'not a handle!' }, ...handles];
  expect(inputs).toHaveLength(200);

  // Without skipInvalid: 422, the line and field of the problem, nothing created.
  const refused = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs });
  expect(refused.status).toBe(422);
  expect(refused.body.error.details).toEqual([expect.objectContaining({ path: 'line 5.handle' })]);
  expect((await api('GET', '/v1/jobs', key)).body.data.jobs).toEqual([]);

  const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs, skipInvalid: true }, { 'idempotency-key': 'two-hundred' });
  expect(made.status).toBe(201);
  const id = made.body.data.job.id as string;
  expect(made.body.data.job.inputs).toMatchObject({ total: 197, duplicates: 2, invalid: 1 });
  // The same POST again (a retry) is the same job.
  const again = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs, skipInvalid: true }, { 'idempotency-key': 'two-hundred' });
  expect(again).toMatchObject({ status: 200, body: { data: { job: { id } } } });

  const job = await settled(key, id);
  expect(job).toMatchObject({ state: 'succeeded', inputs: { total: 197, done: 196, failed: 1, left: 0 }, pages: 196 });
  // Credits: one per live page; the 404 and the invalid input cost nothing; the ledger agrees.
  expect(job.creditsCharged).toBe(196);
  expect(await jobLedger(teamId, id)).toHaveLength(196);
  expect(await balance(teamId)).toBe(1000 - 196);
  // Request history marks each page as the job's.
  const history = await requestHistory(teamId, { source: 'job', limit: 100 });
  expect(history.requests.length).toBe(100);
  expect(history.requests.every((r) => r.source === 'job' && r.jobId === id)).toBe(true);

  const f = await download(key, id);
  const rows = f['items.jsonl']!.trim().split('\n').map((l) => JSON.parse(l) as { input: string; id: string });
  const perInput = new Map<string, string[]>();
  for (const r of rows) perInput.set(r.input, [...(perInput.get(r.input) ?? []), r.id]);
  expect(perInput.size).toBe(196);
  // Once each: no input lists an item twice; the three spellings of one account ran once, as the first.
  for (const ids of perInput.values()) expect(new Set(ids).size).toBe(ids.length);
  expect(perInput.has('@marlowe-tern.bsky.social')).toBe(true);
  expect(perInput.has('marlowe-tern.bsky.social')).toBe(false);
  expect(job.items).toBe(rows.length);
  const errors = parseCsv(f['errors.csv']!, { columns: true }) as Record<string, string>[];
  expect(errors).toEqual([
    expect.objectContaining({ line: '4', input: MISSING, status: '404', code: 'NOT_FOUND' }),
    expect.objectContaining({ line: '5', input: 'not a handle!', status: '422', code: 'VALIDATION_ERROR' }),
  ]);
  const csv = parseCsv(f['items.csv']!, { relax_column_count: false }) as string[][];
  expect(csv.length).toBe(rows.length + 1);
  expect(csv[0]![0]).toBe('input');

  // job.succeeded, at the team's endpoint, signed: verified by the standardwebhooks package, once.
  await deliverAll();
  const events = verified(endpoint.body.data.endpoint.secret).filter((e) => e.data.jobId === id);
  expect(events.map((e) => e.type)).toEqual(['job.succeeded']);
  expect(events[0]!.data).toMatchObject({ state: 'succeeded', counts: { inputs: 197, succeeded: 196, failed: 1, credits: 196 } });

  // Another team does not see it.
  const other = await teamWithKey('jobs-other', 10);
  expect((await api('GET', `/v1/jobs/${id}`, other.key)).status).toBe(404);
}, 120_000);

test('the items CSV with commas, quotes and line breaks (a lone \\n too) reads back as wide as its header', async () => {
  const { key } = await teamWithKey('jobs-csv', 100);
  const text = 'comma, "quoted", and\nLF alone\r\nthen CRLF\rand CR';
  stack.upstream!.rewrite = (req, reply) => {
    if (req.path !== MICROBLOG_A.feed || typeof reply.body !== 'string') return reply;
    const feed = JSON.parse(reply.body) as { feed: { post: { record: { text: string } } }[] };
    for (const f of feed.feed) f.post.record.text = text;
    return { ...reply, body: JSON.stringify(feed) };
  };
  const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: ['csv-one.bsky.social', 'csv-two.bsky.social'] });
  const job = await settled(key, made.body.data.job.id);
  expect(job.state).toBe('succeeded');
  const f = await download(key, job.id);
  const rows = parseCsv(f['items.csv']!) as string[][];
  const header = rows[0]!;
  expect(rows.length).toBeGreaterThan(2);
  for (const r of rows) expect(r).toHaveLength(header.length);
  const textColumn = header.indexOf('text');
  expect(textColumn).toBeGreaterThan(0);
  expect(rows.slice(1).every((r) => r[textColumn] === text)).toBe(true);
  // RFC 4180: CRLF between records; the lone LF only inside a quoted field.
  expect(f['items.csv']!.split('\r\n').length).toBeGreaterThan(rows.length - 1);
});

test('a cancelled job charges nothing after the cancel', async () => {
  const { teamId, key } = await teamWithKey('jobs-cancel', 1000);
  stack.upstream!.delayMs = 150;
  const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: Array.from({ length: 60 }, (_, i) => `cancel${i}.bsky.social`) });
  const id = made.body.data.job.id as string;
  await settled(key, id, (j) => (j as unknown as { inputs: { done: number } }).inputs.done >= 5, false);
  const cancelled = await api('POST', `/v1/jobs/${id}/cancel`, key);
  const cancelAt = Date.now();
  expect(cancelled.body.data.job.state).toBe('cancelled');
  const job = await settled(key, id, (j: { state: string; resultsReady?: boolean }) => j.resultsReady === true);
  expect(job.state).toBe('cancelled');
  expect(job.inputs.left).toBeGreaterThan(0);
  const charges = await jobLedger(teamId, id);
  // Every charge was reserved before the cancel answered (a page already in flight may finish; none starts after).
  for (const c of charges) expect(Date.parse(c.time) - 5_000).toBeLessThan(cancelAt);
  const reservedAfter = (await ledger(teamId)).filter((e) => e.jobId === id && Date.parse(e.time) > cancelAt + 1000);
  expect(reservedAfter).toEqual([]);
  expect(job.creditsCharged).toBe(charges.length);
  expect(await balance(teamId)).toBe(1000 - charges.length);
  // A second cancel is refused, and the job's files hold what ran.
  expect((await api('POST', `/v1/jobs/${id}/cancel`, key)).status).toBe(400);
  const f = await download(key, id);
  expect(f['items.jsonl']!.trim().split('\n').length).toBe(job.items);
}, 60_000);

test('a worker failing mid-input: no duplicate item, no second charge', async () => {
  const { teamId, key } = await teamWithKey('jobs-fault', 100);
  let failed = 0;
  // The first attempt of every input fails after its second page was charged (the worker dies there).
  const dying: Invoke = async (id, event) => {
    const res = await invokeInProcess(id, event);
    if (event.queryStringParameters?.cursor && failed < 3) {
      failed += 1;
      throw new Error('worker died after the charge');
    }
    return res;
  };
  queue = startLocalJobs(dying, { retryDelayMs: 10 });
  const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: ['f1.bsky.social', 'f2.bsky.social', 'f3.bsky.social'], pages: 2 });
  const id = made.body.data.job.id as string;
  const job = await settled(key, id);
  expect(failed).toBe(3);
  expect(job).toMatchObject({ state: 'succeeded', pages: 6, inputs: { done: 3 } });
  // 2 live pages per input, each charged once although asked twice.
  const charges = await jobLedger(teamId, id);
  expect(charges).toHaveLength(6);
  expect(new Set(charges.map((c) => c.requestId))).toEqual(new Set([0, 1, 2].flatMap((i) => [0, 1].map((p) => pageRequestId(id, i, p)))));
  expect(job.creditsCharged).toBe(6);
  expect(await balance(teamId)).toBe(94);
  const rows = (await download(key, id))['items.jsonl']!.trim().split('\n').map((l) => JSON.parse(l) as { input: string; id: string; repostedAt?: string });
  const keys = rows.map((r) => `${r.input} ${r.id} ${r.repostedAt ?? ''}`);
  expect(new Set(keys).size).toBe(keys.length);
  expect((await inputRecords(id)).map((r) => r.result)).toEqual(['succeeded', 'succeeded', 'succeeded']);
}, 60_000);

test('a team at zero credits has its job paused, and a resume after a top-up finishes it', async () => {
  const { teamId, key } = await teamWithKey('jobs-broke', 3);
  const endpoint = await api('POST', '/v1/webhooks', key, { url: hookUrl, types: ['job.paused', 'job.succeeded'] });
  const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: Array.from({ length: 10 }, (_, i) => `broke${i}.bsky.social`) });
  const id = made.body.data.job.id as string;
  const paused = await settled(key, id);
  expect(paused).toMatchObject({ state: 'paused', pausedReason: 'no_credits', creditsCharged: 3 });
  expect(await balance(teamId)).toBe(0);
  expect((await api('GET', `/v1/jobs/${id}/results`, key)).status).toBe(400);
  // One job.paused, however many inputs met the 402.
  await deliverAll();
  expect(verified(endpoint.body.data.endpoint.secret).filter((e) => e.data.jobId === id).map((e) => e.type)).toEqual(['job.paused']);
  await addCredits(teamId, 20);
  expect((await api('POST', `/v1/jobs/${id}/resume`, key)).status).toBe(200);
  const done = await settled(key, id);
  expect(done).toMatchObject({ state: 'succeeded', creditsCharged: 10, inputs: { done: 10, left: 0 } });
  expect(await jobLedger(teamId, id)).toHaveLength(10);
  expect(await balance(teamId)).toBe(13);
}, 60_000);

/** Every settle transaction that carries a cache entry is refused (as DynamoDB refuses an entry too large): the charge is written alone. */
const cacheWriteFails = (count: { n: number }): Rewrite => async (call, answer) => {
  if (call.name === 'TransactWriteCommand' && (call.input.TransactItems as { Put?: { TableName?: string } }[]).some((t) => t.Put?.TableName === config.cacheTable)) {
    count.n += 1;
    throw Object.assign(new Error('Item size has exceeded the maximum allowed size'), { name: 'ValidationException' });
  }
  return answer();
};
const OP = operation('microblog-a-user-posts');
/** A live request of the team's own (not the job's): its reservation removes the settled reservations' marks, as the team's traffic does. */
const otherRequest = (teamId: string, handle: string) => invokeInProcess(OP.id, operationGetEvent(OP.path, { handle }, { requestId: randomUUID(), authorizer: { teamId, keyId: '' } }));

test('a worker dying after the charge and before the cache write: the retry is not charged again, and the job\'s credits are the ledger\'s', async () => {
  const { teamId, key } = await teamWithKey('jobs-nocache', 100);
  const refused = { n: 0 };
  let died = 0;
  const diedAt = new Set<string>();
  // Every page is charged without its cache entry; the first attempt of each input dies after its second
  // page, once the team's other traffic has removed the marks of the reservations it settled.
  const dying: Invoke = async (id, event) => {
    const res = await invokeInProcess(id, event);
    if (event.queryStringParameters?.cursor && !diedAt.has(event.requestContext.requestId)) {
      diedAt.add(event.requestContext.requestId);
      died += 1;
      expect((await otherRequest(teamId, `other${died}.bsky.social`)).statusCode).toBe(200);
      throw new Error('worker died after the charge, before its cache entry');
    }
    return res;
  };
  queue = startLocalJobs(dying, { retryDelayMs: 10 });
  const { result: job } = await dbSends(async () => {
    const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: ['nc1.bsky.social', 'nc2.bsky.social', 'nc3.bsky.social'], pages: 2 });
    return settled(key, made.body.data.job.id as string);
  }, cacheWriteFails(refused));
  expect(died).toBe(3);
  expect(refused.n).toBeGreaterThanOrEqual(6);
  expect(job).toMatchObject({ state: 'succeeded', pages: 6, inputs: { done: 3 } });
  // Each page charged once, although its first attempt's charge left no cache entry and its mark was gone.
  const charges = await jobLedger(teamId, job.id);
  expect(charges.map((c) => c.requestId).sort()).toEqual([0, 1, 2].flatMap((i) => [0, 1].map((p) => pageRequestId(job.id, i, p))).sort());
  expect(job.creditsCharged).toBe(charges.length);
  // The job's 6 and the three requests of the team's own: nothing else.
  expect(await balance(teamId)).toBe(100 - 6 - 3);
  expect((await ledger(teamId)).length).toBe(6 + 3);
}, 60_000);

test('a job page asked again under a new reservation (no cache entry, no mark, not flagged a retry): the charge is refused by the page\'s request id and the credit given back', async () => {
  const { teamId } = await teamWithKey('jobs-pagecharge', 10);
  const jobId = 'job_pagecharge';
  const requestId = pageRequestId(jobId, 0, 0);
  const page = () => invokeInProcess(OP.id, operationGetEvent(OP.path, { handle: 'pc.bsky.social' }, { requestId, authorizer: { teamId, keyId: '', jobId, jobMaxAgeSeconds: 0, jobRetry: false } }));
  const first = (await dbSends(page, cacheWriteFails({ n: 0 }))).result;
  expect(first.statusCode).toBe(200);
  expect(first.headers).toMatchObject({ 'x-credits-charged': '1', 'x-job-page-charged': '1' });
  expect((await otherRequest(teamId, 'pc-other.bsky.social')).statusCode).toBe(200); // its reservation removes the page's mark
  const again = await page();
  expect(again.statusCode).toBe(200);
  expect(again.headers).toMatchObject({ 'x-credits-charged': '0', 'x-job-page-charged': '1' });
  expect((await ledger(teamId)).filter((e) => e.requestId === requestId)).toHaveLength(1);
  expect(await balance(teamId)).toBe(10 - 2);
  // Its request record says it was free.
  const history = await requestHistory(teamId, { source: 'job', limit: 10 });
  expect(history.requests.map((r) => r.credits ?? 0).sort()).toEqual([0, 1]);
});

test('a page paid for by a dead attempt, whose account is gone when the retry scrapes it again: the input fails (404) and its charge is still the job\'s', async () => {
  const { teamId, key } = await teamWithKey('jobs-paidgone', 20);
  const handle = 'gone-later.bsky.social';
  const diedAt = new Set<string>();
  const dying: Invoke = async (id, event) => {
    const res = await invokeInProcess(id, event);
    if (!diedAt.has(event.requestContext.requestId)) {
      diedAt.add(event.requestContext.requestId);
      expect((await otherRequest(teamId, 'gone-other.bsky.social')).statusCode).toBe(200);
      throw new Error('worker died after the charge, before its cache entry');
    }
    return res;
  };
  queue = startLocalJobs(dying, { retryDelayMs: 10 });
  const intercept = stack.upstream!.intercept;
  const notFound = { status: 400, body: JSON.stringify(fixture('microblog-a/error-not-found.json')), headers: { 'content-type': 'application/json' } };
  // Once the first attempt has died, the account answers 404.
  stack.upstream!.intercept = (req) => (diedAt.size && req.query.actor === handle ? notFound : intercept?.(req));
  try {
    const { result: job } = await dbSends(async () => {
      const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: [handle] });
      return settled(key, made.body.data.job.id as string);
    }, cacheWriteFails({ n: 0 }));
    expect(job).toMatchObject({ state: 'failed', inputs: { failed: 1 } });
    expect(await jobLedger(teamId, job.id)).toHaveLength(1);
    expect(job.creditsCharged).toBe(1);
    expect(await balance(teamId)).toBe(20 - 1 - 1);
  } finally {
    stack.upstream!.intercept = intercept;
  }
}, 60_000);
