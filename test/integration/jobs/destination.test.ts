import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { startLocalStack, type LocalStack } from '../../../dev/stack';
import { teamWithKey } from '../../../dev/teams';
import { replayAll } from '../../../dev/upstream/replay';
import { db } from '../../../shared/db/client';
import { jobSk, teamPk } from '../../../shared/db/tables';
import { config } from '../../../shared/runtime/config';
import { type Moto, startMoto } from '../../support/moto';

/**
 * Delivery of a job's files to the customer's own bucket (issue 40 part 4; docs/jobs.md, "Your own
 * bucket"), on the AWS code path against moto_server (Python's moto, on this machine; started here on
 * a free loopback port) as S3 and STS: the worker assumes the customer's role with STS AssumeRole (the
 * team's external ID, a session named after the job) and PUTs the files under <prefix>/<jobId>/. STS
 * goes through a recording proxy in front of moto (../../support/moto.ts), which also answers
 * AccessDenied for the roles it is told to, as AWS does when the role's trust policy refuses us (moto
 * itself does not check trust policies). A failed delivery is retried by POST
 * /v1/jobs/{id}/destination/retry once the role is fixed.
 */
jest.setTimeout(90_000);

const ROLE = 'arn:aws:iam::123456789012:role/social-data-delivery';
const REFUSING_ROLE = 'arn:aws:iam::123456789012:role/trusts-someone-else';
/** A role the proxy refuses until the test "fixes its trust policy", as the customer would. */
const FIXABLE_ROLE = 'arn:aws:iam::123456789012:role/fixed-later';
const BUCKET = 'customer-exports';
let moto: Moto;
let stack: LocalStack;
const saved = { ...process.env };
let assumed: Record<string, string>[] = [];
let s3: S3Client;

beforeAll(async () => {
  moto = await startMoto();
  assumed = moto.assumed;
  moto.refusing.add(REFUSING_ROLE).add(FIXABLE_ROLE);
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', AWS_REGION: 'us-east-1', JOBS_S3_ENDPOINT: moto.endpoint, JOBS_STS_ENDPOINT: moto.stsEndpoint });
  s3 = new S3Client({ region: 'us-east-1', endpoint: moto.endpoint, forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  stack = await startLocalStack({ upstream: 'fake' });
  replayAll(stack.upstream!, { anyInput: true });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
  await moto?.stop();
  process.env = saved;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function api(method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(stack.gateway.url + path, { method, headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function settled(key: string, id: string): Promise<any> {
  for (let i = 0; i < 600; i++) {
    await stack.jobs.idle();
    const j = (await api('GET', `/v1/jobs/${id}`, key)).body.data.job;
    if (['succeeded', 'failed', 'cancelled'].includes(j.state)) return j;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('job did not settle');
}

async function results(key: string, id: string): Promise<Record<string, string>> {
  const res = await api('GET', `/v1/jobs/${id}/results`, key);
  expect(res.status).toBe(200);
  const out: Record<string, string> = {};
  for (const f of res.body.data.files as { name: string; url: string }[]) out[f.name] = await (await fetch(f.url)).text();
  return out;
}

const inputs = ['user1.bsky.social', 'user2.bsky.social', 'user3.bsky.social'];

test('the external ID is the team\'s, the same every time; a malformed destination or another external ID is a 422 naming each field, and nothing is created', async () => {
  const { key } = await teamWithKey('dest-422', 100);
  const first = await api('GET', '/v1/jobs/destination', key);
  expect(first.status).toBe(200);
  const externalId = first.body.data.destination.externalId as string;
  expect(externalId).toMatch(/^sda-[0-9a-f]{32}$/);
  expect(first.body.data.destination).toMatchObject({ type: 's3', available: true, sessionNamePrefix: 'sda-job_', principals: [], trustPolicy: null });
  expect((await api('GET', '/v1/jobs/destination', key)).body.data.destination.externalId).toBe(externalId);
  expect((await api('GET', '/v1/jobs/destination', (await teamWithKey('dest-other', 1)).key)).body.data.destination.externalId).not.toBe(externalId);

  const bad = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs, destination: { type: 's3', bucket: 'Bad_Bucket', prefix: '/exports/../x', roleArn: 'arn:aws:iam::123456789012:user/someone', externalId } });
  expect(bad.status).toBe(422);
  expect(bad.body.error.code).toBe('VALIDATION_ERROR');
  expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['destination.bucket', 'destination.prefix', 'destination.roleArn']);
  const dots = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs, destination: { type: 's3', bucket: 'ok-bucket', prefix: 'a/../b', roleArn: ROLE, externalId } });
  expect(dots.body.error.details).toEqual([expect.objectContaining({ path: 'destination.prefix' })]);
  const extra = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs, destination: { type: 'gcs', bucket: 'ok-bucket', roleArn: ROLE, externalId, region: 'x' } });
  expect(extra.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['destination.region', 'destination.type']);
  const other = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs, destination: { type: 's3', bucket: BUCKET, prefix: 'x', roleArn: ROLE, externalId: 'sda-00000000000000000000000000000000' } });
  expect(other.status).toBe(422);
  expect(other.body.error.details).toEqual([expect.objectContaining({ path: 'destination.externalId' })]);
  // Without an S3 endpoint off AWS: a clear 422, not a job whose delivery is bound to fail.
  delete process.env.JOBS_S3_ENDPOINT;
  try {
    const local = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs, destination: { type: 's3', bucket: BUCKET, roleArn: ROLE, externalId } });
    expect(local.status).toBe(422);
    expect(local.body.error.details[0].message).toMatch(/needs the service on AWS/);
  } finally {
    process.env.JOBS_S3_ENDPOINT = moto.endpoint;
  }
  expect((await api('GET', '/v1/jobs', key)).body.data.jobs).toEqual([]);
});

test('a job with a destination writes its four files under <prefix>/<jobId>/ of the bucket, as the role assumed with the team\'s external ID and a session named after the job', async () => {
  const { key } = await teamWithKey('dest-ok', 100);
  const externalId = (await api('GET', '/v1/jobs/destination', key)).body.data.destination.externalId as string;
  const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs, destination: { type: 's3', bucket: BUCKET, prefix: 'exports/social/', roleArn: ROLE, externalId } });
  expect(made.status).toBe(201);
  const id = made.body.data.job.id as string;
  expect(made.body.data.job.destination).toMatchObject({ type: 's3', bucket: BUCKET, prefix: 'exports/social', roleArn: ROLE });
  const job = await settled(key, id);
  expect(job.state).toBe('succeeded');
  const names = ['items.jsonl', 'items.csv', 'errors.jsonl', 'errors.csv'];
  expect(job.destination).toMatchObject({ state: 'delivered', keys: names.map((n) => `exports/social/${id}/${n}`) });
  expect(job.destination.code).toBeUndefined();

  const call = assumed.find((a) => a.RoleSessionName === `sda-${id}`);
  expect(call).toMatchObject({ RoleArn: ROLE, ExternalId: externalId, DurationSeconds: '900' });

  const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `exports/social/${id}/` }));
  expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual(names.map((n) => `exports/social/${id}/${n}`).sort());
  // The same bytes as the results location (which keeps them too).
  const kept = await results(key, id);
  for (const n of names) {
    const obj = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `exports/social/${id}/${n}` }));
    expect(await obj.Body!.transformToString('utf8')).toBe(kept[n]);
  }
  expect(kept['items.jsonl']!.trim().split('\n').length).toBeGreaterThan(0);
});

test('a bucket that does not exist, or a role that refuses us: the job ends as it would, its destination failed with a code and a message, the files in the results location', async () => {
  const { key } = await teamWithKey('dest-fail', 100);
  const externalId = (await api('GET', '/v1/jobs/destination', key)).body.data.destination.externalId as string;
  const cases = [
    { destination: { type: 's3', bucket: 'no-such-bucket-here', prefix: 'x', roleArn: ROLE, externalId }, code: 'BUCKET_NOT_FOUND', message: /no-such-bucket-here.*NoSuchBucket/ },
    { destination: { type: 's3', bucket: BUCKET, prefix: 'refused', roleArn: REFUSING_ROLE, externalId }, code: 'ROLE_NOT_ASSUMABLE', message: /trusts-someone-else.*AccessDenied.*trust policy/ },
  ];
  for (const c of cases) {
    const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs, destination: c.destination });
    expect(made.status).toBe(201);
    const id = made.body.data.job.id as string;
    const job = await settled(key, id);
    expect(job.state).toBe('succeeded');
    expect(job.destination).toMatchObject({ state: 'failed', code: c.code });
    expect(job.destination.message).toMatch(c.message);
    expect(job.destination.message).toMatch(/results bucket/);
    expect(job.resultsReady).toBe(true);
    const kept = await results(key, id);
    expect(kept['items.jsonl']!.trim().split('\n').length).toBeGreaterThan(0);
  }
  // Nothing was written for the refused role.
  expect((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'refused/' }))).Contents ?? []).toEqual([]);
});

test('a job cancelled with nothing in flight (ended by the jobs API, not a worker) delivers the files of what ran too', async () => {
  const { key } = await teamWithKey('dest-cancel', 1000);
  const externalId = (await api('GET', '/v1/jobs/destination', key)).body.data.destination.externalId as string;
  // Long enough that none of the first job's inputs ends (and frees a slot) before the second job is
  // posted, on a machine as busy as a full test run makes it (200 ms was not: 2 runs in 5 failed).
  stack.upstream!.delayMs = 5000;
  try {
    // The first job takes every slot of the team (20): the second waits, queued, nothing of it in flight.
    const busy = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: Array.from({ length: 30 }, (_, i) => `busy${i}.bsky.social`) });
    expect(busy.status).toBe(201);
    const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs, destination: { type: 's3', bucket: BUCKET, prefix: 'cancelled', roleArn: ROLE, externalId } });
    expect(made.body.data.job).toMatchObject({ state: 'queued', inputs: { inFlight: 0 } });
    const id = made.body.data.job.id as string;
    const cancelled = await api('POST', `/v1/jobs/${id}/cancel`, key, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data.job).toMatchObject({ state: 'cancelled', destination: { state: 'delivered' } });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `cancelled/${id}/` }));
    expect((listed.Contents ?? []).map((o) => o.Key!.split('/').pop()).sort()).toEqual(['errors.csv', 'errors.jsonl', 'items.csv', 'items.jsonl']);
    await api('POST', `/v1/jobs/${busy.body.data.job.id}/cancel`, key, {});
    await settled(key, busy.body.data.job.id);
  } finally {
    stack.upstream!.delayMs = 0;
  }
});

test('a failed delivery is retried by POST /v1/jobs/{id}/destination/retry once the role is fixed: one retry at a time (a second meanwhile is a 400), then delivered; a delivered, unfinished or destination-less job is a 400, another team\'s a 404', async () => {
  const { key } = await teamWithKey('dest-retry', 1000);
  const externalId = (await api('GET', '/v1/jobs/destination', key)).body.data.destination.externalId as string;
  const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs, destination: { type: 's3', bucket: BUCKET, prefix: 'retried', roleArn: FIXABLE_ROLE, externalId } });
  expect(made.status).toBe(201);
  const id = made.body.data.job.id as string;
  const job = await settled(key, id);
  expect(job.destination).toMatchObject({ state: 'failed', code: 'ROLE_NOT_ASSUMABLE' });

  // Still refused: the retry answers the job, failed again, with the same code; nothing written.
  const again = await api('POST', `/v1/jobs/${id}/destination/retry`, key, {});
  expect(again.status).toBe(200);
  expect(again.body.data.job.destination).toMatchObject({ state: 'failed', code: 'ROLE_NOT_ASSUMABLE' });
  expect(Date.parse(again.body.data.job.destination.at)).toBeGreaterThanOrEqual(Date.parse(job.destination.at));
  expect((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `retried/${id}/` }))).Contents ?? []).toEqual([]);

  // The customer fixes the trust policy. A retry under way (held at STS) shows `retrying`; a second one meanwhile is refused and assumes nothing.
  moto.refusing.delete(FIXABLE_ROLE);
  const release = moto.hold(FIXABLE_ROLE);
  const before = assumed.filter((a) => a.RoleSessionName === `sda-${id}`).length;
  const first = api('POST', `/v1/jobs/${id}/destination/retry`, key, {});
  for (let i = 0; i < 100 && (await api('GET', `/v1/jobs/${id}`, key)).body.data.job.destination.state !== 'retrying'; i++) await new Promise((r) => setTimeout(r, 50));
  expect((await api('GET', `/v1/jobs/${id}`, key)).body.data.job.destination).toMatchObject({ state: 'retrying' });
  const second = await api('POST', `/v1/jobs/${id}/destination/retry`, key, {});
  expect(second.status).toBe(400);
  expect(second.body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/under way/) });
  release();
  const delivered = await first;
  expect(delivered.status).toBe(200);
  const names = ['items.jsonl', 'items.csv', 'errors.jsonl', 'errors.csv'];
  expect(delivered.body.data.job.destination).toMatchObject({ state: 'delivered', keys: names.map((n) => `retried/${id}/${n}`) });
  expect(delivered.body.data.job.destination.code).toBeUndefined();
  expect(delivered.body.data.job.state).toBe('succeeded');
  expect(assumed.filter((a) => a.RoleSessionName === `sda-${id}`).length).toBe(before + 1);
  expect(assumed.find((a) => a.RoleSessionName === `sda-${id}` && a.RoleArn === FIXABLE_ROLE)).toMatchObject({ ExternalId: externalId, DurationSeconds: '900' });
  const kept = await results(key, id);
  for (const n of names) {
    const obj = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: `retried/${id}/${n}` }));
    expect(await obj.Body!.transformToString('utf8')).toBe(kept[n]);
  }

  // Delivered: nothing to retry. Another team's job: 404. A job without a destination, or not ended: 400.
  const done = await api('POST', `/v1/jobs/${id}/destination/retry`, key, {});
  expect(done.status).toBe(400);
  expect(done.body.error.message).toMatch(/delivered already/);
  expect((await api('POST', `/v1/jobs/${id}/destination/retry`, (await teamWithKey('dest-retry-other', 1)).key, {})).status).toBe(404);
  const plain = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: ['plain1.bsky.social'] });
  await settled(key, plain.body.data.job.id);
  const none = await api('POST', `/v1/jobs/${plain.body.data.job.id}/destination/retry`, key, {});
  expect(none.status).toBe(400);
  expect(none.body.error.message).toMatch(/no destination/);
  stack.upstream!.delayMs = 300;
  try {
    const slow = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs: ['slow1.bsky.social'], destination: { type: 's3', bucket: BUCKET, prefix: 'slow', roleArn: ROLE, externalId } });
    const early = await api('POST', `/v1/jobs/${slow.body.data.job.id}/destination/retry`, key, {});
    expect(early.status).toBe(400);
    expect(early.body.error.message).toMatch(/when the job ends; it is (queued|running)/);
    await settled(key, slow.body.data.job.id);
  } finally {
    stack.upstream!.delayMs = 0;
  }
});

test('a retry after the files\' 7 days is a 404 (nothing left to deliver), and the delivery stays failed', async () => {
  const { key, teamId } = await teamWithKey('dest-expired', 100);
  const externalId = (await api('GET', '/v1/jobs/destination', key)).body.data.destination.externalId as string;
  const made = await api('POST', '/v1/jobs', key, { operation: 'microblog-a-user-posts', inputs, destination: { type: 's3', bucket: BUCKET, prefix: 'old', roleArn: REFUSING_ROLE, externalId } });
  const id = made.body.data.job.id as string;
  expect((await settled(key, id)).destination).toMatchObject({ state: 'failed' });
  await db().send(new UpdateCommand({ TableName: config.jobsTable, Key: { pk: teamPk(teamId), sk: jobSk(id) }, UpdateExpression: 'SET finishedAt = :old', ExpressionAttributeValues: { ':old': Date.now() - 8 * 86_400_000 } }));
  const res = await api('POST', `/v1/jobs/${id}/destination/retry`, key, {});
  expect(res.status).toBe(404);
  expect(res.body.error).toMatchObject({ code: 'NOT_FOUND', message: expect.stringMatching(/kept 7 days/) });
  expect((await api('GET', `/v1/jobs/${id}`, key)).body.data.job.destination).toMatchObject({ state: 'failed', code: 'ROLE_NOT_ASSUMABLE' });
});
