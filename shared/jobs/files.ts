import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { config } from '../runtime/config';

/**
 * Where a job's files live: the results bucket on AWS (JOBS_BUCKET: encrypted, public access
 * blocked, a 7-day lifecycle: infra/jobs.ts), else a directory (JOB_FILES_DIR, default .local/jobs)
 * behind the same kind of short-lived signed URL, served by the local gateway (dev/gateway.ts). The
 * job code is the same either way. Keys, all under the team:
 *
 *   uploads/<teamId>/<uploadId>            an input file uploaded to a pre-signed URL (POST /v1/jobs/uploads)
 *   jobs/<teamId>/<jobId>/parts/<index>    one input's outcome (its items or its error): written whole,
 *                                          under a key of the input, so a retried input replaces it
 *   jobs/<teamId>/<jobId>/results/<name>   the result files, assembled from the parts once the job ends
 */
export interface FileStore {
  put(key: string, body: string | Buffer, contentType: string): Promise<void>;
  /**
   * The file written from a stream of any length, whole or not at all: a multipart upload (completed
   * only when the stream ends, aborted when it fails), or a temporary file renamed when complete.
   * Rejects, leaving no file, when `body` fails.
   */
  putStream(key: string, body: Readable, contentType: string): Promise<void>;
  /** The file's text, or null when there is none. */
  get(key: string): Promise<string | null>;
  /** The file as a stream of bytes, or null when there is none. */
  getStream(key: string): Promise<Readable | null>;
  /** Its size in bytes, or null when there is none. */
  size(key: string): Promise<number | null>;
  /** A URL that reads the file for `ttlSeconds` (as an attachment named `filename`). */
  signedGet(key: string, filename: string, ttlSeconds: number): Promise<string>;
  /** A URL that writes the file once, for `ttlSeconds` (an upload). */
  signedPut(key: string, contentType: string, ttlSeconds: number): Promise<string>;
}

export const uploadKey = (teamId: string, uploadId: string) => `uploads/${teamId}/${uploadId}`;
export const partKey = (teamId: string, jobId: string, index: number) => `jobs/${teamId}/${jobId}/parts/${String(index).padStart(6, '0')}.json`;
export const resultKey = (teamId: string, jobId: string, name: string) => `jobs/${teamId}/${jobId}/results/${name}`;

let s3: S3Client | undefined;
/** Off AWS, JOBS_S3_ENDPOINT (a moto_server) serves the results bucket too, path-style, as it serves the destinations. */
const s3Client = () => (s3 ??= new S3Client({ region: config.region, ...(config.jobsS3Endpoint ? { endpoint: config.jobsS3Endpoint, forcePathStyle: true } : {}) }));

/**
 * A stream to `Key` of `Bucket` by `client`: S3's multipart upload (lib-storage), parts of 5 MB, two
 * in flight, so a file of any size holds about 15 MB of memory. S3 shows the object only when the
 * upload completes; a failed body aborts it (no parts left behind; the bucket's lifecycle rule
 * removes any an aborted abort leaves after a day).
 */
export async function uploadStream(client: S3Client, params: { Bucket: string; Key: string; ContentType: string }, body: Readable): Promise<void> {
  await new Upload({ client, params: { ...params, Body: body }, queueSize: 2, partSize: 5 * 1024 * 1024, leavePartsOnError: false }).done();
}

function bucketStore(bucket: string): FileStore {
  return {
    async put(key, body, contentType) {
      await s3Client().send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: contentType }));
    },
    putStream: (key, body, contentType) => uploadStream(s3Client(), { Bucket: bucket, Key: key, ContentType: contentType }, body),
    async get(key) {
      try {
        const res = await s3Client().send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return (await res.Body?.transformToString('utf8')) ?? '';
      } catch (err) {
        if ((err as { name?: string }).name === 'NoSuchKey') return null;
        throw err;
      }
    },
    async getStream(key) {
      try {
        return ((await s3Client().send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body as Readable | undefined) ?? null;
      } catch (err) {
        if ((err as { name?: string }).name === 'NoSuchKey') return null;
        throw err;
      }
    },
    async size(key) {
      try {
        return Number((await s3Client().send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ContentLength ?? 0);
      } catch (err) {
        if (['NotFound', 'NoSuchKey'].includes((err as { name?: string }).name ?? '')) return null;
        throw err;
      }
    },
    signedGet: (key, filename, ttlSeconds) =>
      getSignedUrl(s3Client(), new GetObjectCommand({ Bucket: bucket, Key: key, ResponseContentDisposition: `attachment; filename="${filename}"` }), { expiresIn: ttlSeconds }),
    signedPut: (key, contentType, ttlSeconds) => getSignedUrl(s3Client(), new PutObjectCommand({ Bucket: bucket, Key: key, ContentType: contentType }), { expiresIn: ttlSeconds }),
  };
}

/**
 * Local signed URLs: an HMAC (a key of this process) of the method, the file's key and the expiry,
 * checked by the local gateway, which serves GET and PUT at LOCAL_FILES_PATH. Expired or altered:
 * 403, as S3 answers.
 */
export const LOCAL_FILES_PATH = '/local-files/';
const localSecret = randomBytes(32);
const signature = (method: string, key: string, expires: number) => createHmac('sha256', localSecret).update(`${method}\n${key}\n${expires}`).digest('base64url');

/** Whether a local signed URL's query allows `method` on `key` now. */
export function localUrlAllows(method: string, key: string, query: URLSearchParams, now = Date.now()): boolean {
  const expires = Number(query.get('expires'));
  const given = Buffer.from(query.get('signature') ?? '');
  const expected = Buffer.from(signature(method, key, expires));
  return Number.isFinite(expires) && expires * 1000 > now && given.length === expected.length && timingSafeEqual(given, expected);
}

/** The file of a key under the local directory (a key never leaves it: no `..`, no absolute part). */
export function localPath(key: string): string | null {
  if (!/^[A-Za-z0-9_\-./]+$/.test(key) || key.split('/').some((p) => p === '..' || p === '.' || p === '')) return null;
  return path.join(config.jobFilesDir, key);
}

function directoryStore(): FileStore {
  const url = (method: string, key: string, ttlSeconds: number, extra = '') => {
    const expires = Math.floor(Date.now() / 1000) + ttlSeconds;
    const base = config.localFilesBaseUrl ?? 'http://127.0.0.1:3000';
    return `${base}${LOCAL_FILES_PATH}${key}?expires=${expires}&signature=${signature(method, key, expires)}${extra}`;
  };
  const fileOf = (key: string) => {
    const p = localPath(key);
    if (!p) throw new Error(`not a file key: ${key}`);
    return p;
  };
  // Written whole or not at all: a temporary file renamed once complete, so a reader never sees half a file.
  // `again`: the write can be made twice (a string or a buffer, not a stream), so the folder is made only
  // when the write finds none (a job's parts share one): one call fewer an input.
  const whole = async (key: string, write: (tmp: string) => Promise<void>, again: boolean) => {
    const file = fileOf(key);
    const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    const folder = () => mkdir(path.dirname(file), { recursive: true });
    try {
      if (!again) await folder();
      await write(tmp).catch(async (err: unknown) => {
        if (!again || !missing(err)) throw err;
        await folder();
        await write(tmp);
      });
      await rename(tmp, file);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  };
  const missing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';
  return {
    put: (key, body) => whole(key, (tmp) => writeFile(tmp, body), true),
    putStream: (key, body) => whole(key, (tmp) => pipeline(body, createWriteStream(tmp)), false),
    async get(key) {
      try {
        return await readFile(fileOf(key), 'utf8');
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
    },
    async getStream(key) {
      try {
        return (await open(fileOf(key))).createReadStream();
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
    },
    async size(key) {
      try {
        return (await stat(fileOf(key))).size;
      } catch (err) {
        if (missing(err)) return null;
        throw err;
      }
    },
    signedGet: async (key, filename, ttlSeconds) => url('GET', key, ttlSeconds, `&filename=${encodeURIComponent(filename)}`),
    signedPut: async (key, _contentType, ttlSeconds) => url('PUT', key, ttlSeconds),
  };
}

let store: FileStore | undefined;
let storeFor: string | undefined;
/** The bucket when JOBS_BUCKET names one, else the local directory. */
export function files(): FileStore {
  const where = config.jobsBucket ?? `dir:${config.jobFilesDir}`;
  if (!store || storeFor !== where) {
    store = config.jobsBucket ? bucketStore(config.jobsBucket) : directoryStore();
    storeFor = where;
  }
  return store;
}
