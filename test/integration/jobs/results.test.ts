import { type ChildProcess, spawn } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { CreateBucketCommand, GetObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { parse as parseCsv } from 'csv-parse/sync';
import { freePort } from '../../../dev/dynamo';
import { type Operation, operation } from '../../../shared/operations';
import { logger } from '../../../shared/runtime/log';
import { deliver } from '../../../shared/jobs/destination';
import { files, partKey, resultKey } from '../../../shared/jobs/files';
import { type Part, RESULT_FILES, invalidKey, writePart, writeResults } from '../../../shared/jobs/results';

/**
 * The result files of a large job, written as streams (shared/jobs/results.ts): in the local
 * directory and, on the AWS code path, to S3 (moto_server) as multipart uploads, each read back by a
 * standard CSV parser (csv-parse) and compared; a part that cannot be read leaves no file at all,
 * locally and on S3 (no object, no multipart upload left open); the delivery to a customer's bucket
 * streams the same bytes.
 */
jest.setTimeout(180_000);

const op = operation('microblog-a-user-posts') as Operation;
const TEAM = 'team-results';
/** Every awkward character for CSV: commas, quotes, a lone LF, CRLF, a lone CR; and non-ASCII. */
const TEXT = 'comma, "quoted", and\nLF alone\r\nthen CRLF\rand CR — ünïcödé';
/**
 * The two jobs' shapes: far more parts than are read ahead (16), and files of several megabytes. The
 * bytes, not the number of parts, are what the files' sizes need, and every part costs a write and a
 * read (on moto, a PUT and a GET each, the slowest step of this file): so a part holds many items.
 */
const LOCAL = { parts: 300, perPart: 25 };
/** On S3, as many bytes as it takes to pass 5 MB per file (several upload parts of 5 MB), in 240 parts. */
const S3 = { parts: 240, perPart: 25 };
type Shape = typeof LOCAL;
/** About 1 KB of text an item. */
const FILLER = ' lorem ipsum'.repeat(80);

/** Input i, from line 2i + 1: `perPart` posts, but every 97th input failed (404) and has none. */
const partOf = (index: number, perPart: number): Part => {
  const input = `user${index}.bsky.social`;
  if (index % 97 === 5) return { index, line: 2 * index + 1, input, items: [], pages: 0, error: { status: 404, code: 'NOT_FOUND', message: `No account "${input}"` } };
  const items = Array.from({ length: perPart }, (_, k) => ({ id: `at://${input}/post/${k}`, text: `${TEXT}${FILLER} #${index}.${k}`, author: { handle: input, displayName: `User, "${index}"` }, likeCount: k, tags: ['a', 'b,c'] }));
  return { index, line: 2 * index + 1, input, items, pages: 1 };
};
const indicesOf = (n: number) => Array.from({ length: n }, (_, i) => i);
/** Invalid inputs (skipInvalid), unsorted: lines before, between and after the parts'. */
const invalid = [4_000, 2, 20_000, 11].map((line) => ({ line, input: `bad ${line}`, details: [{ path: 'handle', message: 'Not a handle' }] }));

async function writeParts(jobId: string, { parts, perPart }: Shape): Promise<void> {
  const indices = indicesOf(parts);
  for (let i = 0; i < parts; i += 200) await Promise.all(indices.slice(i, i + 200).map((index) => writePart(TEAM, jobId, partOf(index, perPart))));
  await files().put(invalidKey(TEAM, jobId), JSON.stringify(invalid), 'application/json');
}

const read = async (jobId: string) => Object.fromEntries(await Promise.all(RESULT_FILES.map(async (name) => [name, (await files().get(resultKey(TEAM, jobId, name))) ?? '<absent>'] as const))) as Record<(typeof RESULT_FILES)[number], string>;

/** What the four files of the synthetic job must hold, read back by csv-parse and JSON.parse. */
function expectWhole(f: Record<(typeof RESULT_FILES)[number], string>, written: { items: number; errors: number }, { parts: n, perPart }: Shape) {
  const indices = indicesOf(n);
  const failed = indices.filter((i) => partOf(i, perPart).error).length;
  const items = (n - failed) * perPart;
  expect(written).toEqual({ items, errors: failed + invalid.length });
  const jsonl = f['items.jsonl'].split('\n');
  expect(jsonl.pop()).toBe('');
  expect(jsonl).toHaveLength(items);
  const first = JSON.parse(jsonl[0]!) as Record<string, unknown>;
  expect(Object.keys(first)[0]).toBe('input');
  expect(first).toMatchObject({ input: 'user0.bsky.social', text: `${TEXT}${FILLER} #0.0` });
  // items.csv: every row as wide as the header, the text intact, CRLF between records.
  const rows = parseCsv(f['items.csv'], { relax_column_count: false }) as string[][];
  expect(rows).toHaveLength(items + 1);
  const header = rows[0]!;
  expect(header[0]).toBe('input');
  for (const r of rows) expect(r).toHaveLength(header.length);
  const text = header.indexOf('text');
  expect(rows.slice(1).every((r, n) => r[text]!.startsWith(TEXT) && r[0] === JSON.parse(jsonl[n]!).input)).toBe(true);
  expect(rows.at(-1)![text]).toBe(`${TEXT}${FILLER} #${n - 1}.${perPart - 1}`);
  expect(f['items.csv'].endsWith('\r\n')).toBe(true);
  // errors: the failed parts and the invalid inputs, in line order.
  const errors = parseCsv(f['errors.csv'], { columns: true }) as Record<string, string>[];
  expect(errors.map((e) => Number(e.line))).toEqual([...indices.filter((i) => partOf(i, perPart).error).map((i) => 2 * i + 1), ...invalid.map((x) => x.line)].sort((a, b) => a - b));
  expect(errors.at(-1)).toMatchObject({ input: 'bad 20000', status: '422', code: 'VALIDATION_ERROR', message: 'handle: Not a handle' });
  expect(f['errors.jsonl'].trim().split('\n').map((l) => JSON.parse(l).line)).toEqual(errors.map((e) => Number(e.line)));
}

describe('in the local directory', () => {
  test(`${LOCAL.parts} parts of ${LOCAL.perPart} items: the four files whole, read back by csv-parse, in input order`, async () => {
    await writeParts('job-local', LOCAL);
    const written = await writeResults(op, TEAM, 'job-local', indicesOf(LOCAL.parts));
    expectWhole(await read('job-local'), written, LOCAL);
    // Written again (a retried end of job): the same bytes.
    const before = await read('job-local');
    await writeResults(op, TEAM, 'job-local', indicesOf(LOCAL.parts));
    expect(await read('job-local')).toEqual(before);
  });

  test('a part that cannot be read: no file written, not even in part, and no temporary file left', async () => {
    await writeParts('job-broken', LOCAL);
    await files().put(partKey(TEAM, 'job-broken', 240), '{"index": 240, "items": [', 'application/json');
    await expect(writeResults(op, TEAM, 'job-broken', indicesOf(LOCAL.parts))).rejects.toThrow(SyntaxError);
    for (const name of RESULT_FILES) expect(await files().size(resultKey(TEAM, 'job-broken', name))).toBeNull();
    const dir = path.join(process.env.JOB_FILES_DIR!, 'jobs', TEAM, 'job-broken', 'results');
    expect(await readdir(dir).catch(() => [])).toEqual([]);
  });
});

describe('on S3 (moto_server): multipart uploads from the streams', () => {
  let moto: ChildProcess;
  let endpoint = '';
  let s3: S3Client;
  const saved = { ...process.env };
  beforeAll(async () => {
    const port = await freePort();
    moto = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
    endpoint = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100 && !(await fetch(`${endpoint}/moto-api/`).then(() => true, () => false)); i++) await new Promise((r) => setTimeout(r, 200));
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'testing', AWS_SECRET_ACCESS_KEY: 'testing', JOBS_S3_ENDPOINT: endpoint, JOBS_BUCKET: 'results-bucket' });
    s3 = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true });
    for (const Bucket of ['results-bucket', 'customer-exports']) await s3.send(new CreateBucketCommand({ Bucket }));
  }, 60_000);
  afterAll(async () => {
    moto?.kill();
    process.env = saved;
    await rm(process.env.JOB_FILES_DIR!, { recursive: true, force: true });
  });

  test(`${S3.parts} parts of ${S3.perPart} items: the same bytes as the directory's, items.jsonl and items.csv in several parts (over 5 MB)`, async () => {
    await writeParts('job-s3', S3);
    const written = await writeResults(op, TEAM, 'job-s3', indicesOf(S3.parts));
    const got = await read('job-s3');
    expectWhole(got, written, S3);
    expect(Buffer.byteLength(got['items.jsonl'])).toBeGreaterThan(5 * 1024 * 1024);
    expect(Buffer.byteLength(got['items.csv'])).toBeGreaterThan(5 * 1024 * 1024);
    // A multipart object's ETag ends with its number of parts.
    const head = await s3.send(new GetObjectCommand({ Bucket: 'results-bucket', Key: resultKey(TEAM, 'job-s3', 'items.jsonl') }));
    expect(head.ETag).toMatch(/-\d+"$/);
    // The directory's files of the same parts: byte for byte the same.
    delete process.env.JOBS_BUCKET;
    await writeParts('job-s3', S3);
    await writeResults(op, TEAM, 'job-s3', indicesOf(S3.parts));
    const local = await read('job-s3');
    process.env.JOBS_BUCKET = 'results-bucket';
    expect(got).toEqual(local);

    // Delivered to the customer's bucket (the role assumed at moto's STS): streamed, the same bytes.
    const delivery = await deliver(TEAM, 'job-s3', { type: 's3', bucket: 'customer-exports', prefix: 'exports', roleArn: 'arn:aws:iam::123456789012:role/delivery', externalId: 'sda-0123' }, logger);
    expect(delivery).toMatchObject({ state: 'delivered', keys: RESULT_FILES.map((n) => `exports/job-s3/${n}`) });
    for (const name of RESULT_FILES) {
      const obj = await s3.send(new GetObjectCommand({ Bucket: 'customer-exports', Key: `exports/job-s3/${name}` }));
      expect(await obj.Body!.transformToString('utf8')).toBe(got[name]);
    }
  });

  test('a part that cannot be read: no object, no multipart upload left open', async () => {
    await writeParts('job-s3-broken', S3);
    // Past the first 5 MB of items.jsonl: its multipart upload has begun when the part fails.
    await files().put(partKey(TEAM, 'job-s3-broken', S3.parts - 2), 'not json', 'application/json');
    await expect(writeResults(op, TEAM, 'job-s3-broken', indicesOf(S3.parts))).rejects.toThrow(SyntaxError);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'results-bucket', Prefix: `jobs/${TEAM}/job-s3-broken/results/` }));
    expect(listed.Contents ?? []).toEqual([]);
    const open = await s3.send(new ListMultipartUploadsCommand({ Bucket: 'results-bucket' }));
    expect(open.Uploads ?? []).toEqual([]);
  });
});
