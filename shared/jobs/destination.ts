import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { EXTERNAL_ID_PREFIX, SESSION_PREFIX } from '../api/job-routes';
import { db } from '../db/client';
import { JOB_DESTINATION_SK, teamPk } from '../db/tables';
import type { ValidationDetail } from '../http/errors';
import { config } from '../runtime/config';
import type { Log } from '../runtime/log';
import { files, resultKey, uploadStream } from './files';
import { CONTENT_TYPES, RESULT_FILES } from './results';

/**
 * Delivery of a job's result files to the customer's own bucket (docs/jobs.md, "Your own bucket"):
 * `destination: {type: "s3", bucket, prefix, roleArn, externalId}` on POST /v1/jobs. When the job
 * ends, the worker assumes the customer's role with STS AssumeRole (the team's external ID, a
 * 15-minute session named after the job: `sda-<jobId>`) and PUTs the same files under
 * `<prefix>/<jobId>/`. The files stay in the results bucket either way; a destination that cannot
 * be written is the job's `destination.state: "failed"` with a code and a message.
 *
 * The external ID is the team's, made once (random, stored in the jobs table) and the same every
 * time (GET /v1/jobs/destination): the customer's trust policy requires it, so another customer of
 * this service cannot have us write with that customer's role (the confused deputy). A job naming
 * another external ID is a 422.
 *
 * Off AWS (npm start, the demo, the tests) the same code runs when JOBS_S3_ENDPOINT names an S3 (and
 * STS) endpoint, such as moto_server; else a destination is a 422. The STS client is imported only
 * here, lazily: the operations' bundles never reach it.
 */
export { EXTERNAL_ID_PREFIX, SESSION_PREFIX };
/** The customer's role's session: a delivery cannot still be writing after its credentials expired. */
export const SESSION_SECONDS = 900;

export interface Destination {
  type: 's3';
  bucket: string;
  /** Without leading or trailing slash; '' for the bucket's root. */
  prefix: string;
  roleArn: string;
  externalId: string;
}

export interface Delivery {
  /** `retrying` while a POST /v1/jobs/{id}/destination/retry writes the files again (its claim's `token`). */
  state: 'delivered' | 'failed' | 'retrying';
  token?: string;
  code?: string;
  message?: string;
  at: number;
  /** The keys written in the customer's bucket. */
  keys?: string[];
}

const bucketRule = (b: string) =>
  !b.includes('..') && !b.includes('.-') && !b.includes('-.') && !/^\d+\.\d+\.\d+\.\d+$/.test(b) && !b.startsWith('xn--') && !b.startsWith('sthree-') && !b.endsWith('-s3alias') && !b.endsWith('--ol-s3');

/** S3's bucket naming rules (general purpose buckets). */
const Bucket = v.pipe(
  v.string('A bucket name'),
  v.minLength(3, 'A bucket name is 3 to 63 characters'),
  v.maxLength(63, 'A bucket name is 3 to 63 characters'),
  v.regex(/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/, 'Lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit'),
  v.check(bucketRule, 'Not a valid S3 bucket name (no "..", ".-" or "-.", not an IP address, not a reserved prefix or suffix)'),
);

/** A key prefix: S3's safe characters, no leading slash, no "." or ".." part, no empty part; a trailing slash is dropped. */
const Prefix = v.pipe(
  v.optional(v.string('A key prefix'), ''),
  v.maxLength(512, 'At most 512 characters'),
  v.regex(/^[A-Za-z0-9!_.*'()/=-]*$/, "Letters, digits and ! _ . * ' ( ) = - / only"),
  v.check((p) => !p.startsWith('/'), 'No leading slash'),
  v.transform((p) => p.replace(/\/$/, '')),
  v.check((p) => p === '' || p.split('/').every((part) => part !== '' && part !== '.' && part !== '..'), 'No "..", "." or empty part'),
);

/** An IAM role ARN (any partition's account; paths allowed). */
const RoleArn = v.pipe(v.string('An IAM role ARN'), v.regex(/^arn:aws(?:-cn|-us-gov)?:iam::\d{12}:role\/(?:[\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/, 'An IAM role ARN: arn:aws:iam::<account>:role/<name>'));

export const DestinationSchema = v.strictObject(
  {
    type: v.literal('s3', 'Only "s3"'),
    bucket: Bucket,
    prefix: Prefix,
    roleArn: RoleArn,
    externalId: v.pipe(v.string('Your team\'s external ID (GET /v1/jobs/destination)'), v.maxLength(1224)),
  },
  (issue) => (issue.expected === 'never' ? 'Unknown field' : 'An object: {type: "s3", bucket, prefix, roleArn, externalId}'),
);

/** Whether a destination can be written here: on AWS, or off it with JOBS_S3_ENDPOINT. */
export const destinationsAvailable = () => Boolean(config.jobsBucket || config.jobsS3Endpoint);

/** The destination parsed by its rules, or its problems (paths under `destination`). */
export function parseDestination(raw: unknown): { destination?: Destination; problems: ValidationDetail[] } {
  const res = v.safeParse(DestinationSchema, raw);
  if (res.success) return { destination: res.output as Destination, problems: [] };
  return { problems: res.issues.map((i) => ({ path: ['destination', v.getDotPath(i)].filter(Boolean).join('.'), message: i.message })) };
}

const key = (teamId: string) => ({ pk: teamPk(teamId), sk: JOB_DESTINATION_SK });

/** The team's external ID, made on first ask and the same ever after (one conditional write). */
export async function teamExternalId(teamId: string): Promise<string> {
  const res = await db().send(
    new UpdateCommand({
      TableName: config.jobsTable,
      Key: key(teamId),
      UpdateExpression: 'SET externalId = if_not_exists(externalId, :id), createdAt = if_not_exists(createdAt, :now)',
      ExpressionAttributeValues: { ':id': `${EXTERNAL_ID_PREFIX}${randomBytes(16).toString('hex')}`, ':now': Date.now() },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return String(res.Attributes!.externalId);
}

/** The team's external ID if it was ever shown, else null (a job cannot name one the team never saw). */
export async function storedExternalId(teamId: string): Promise<string | null> {
  const res = await db().send(new GetCommand({ TableName: config.jobsTable, Key: key(teamId), ConsistentRead: true }));
  return res.Item ? String(res.Item.externalId) : null;
}

/** Where the files go in the customer's bucket: `<prefix>/<jobId>/<name>`. */
export const destinationKey = (d: Pick<Destination, 'prefix'>, jobId: string, name: string) => `${d.prefix ? `${d.prefix}/` : ''}${jobId}/${name}`;

const short = (err: unknown) => {
  const e = err as { name?: string; message?: string };
  return `${e.name ?? 'Error'}: ${String(e.message ?? '').slice(0, 300)}`;
};

/**
 * Writes the job's result files (already in the results bucket) to its destination; never throws:
 * what could not be written is a failed delivery with its code. Writing again is harmless (the same
 * keys, the same bytes), so a retried end of job may deliver twice.
 */
export async function deliver(teamId: string, jobId: string, d: Destination, log: Log): Promise<Delivery> {
  const failed = (code: string, message: string): Delivery => {
    log.warn('job destination not written', { jobId, code, bucket: d.bucket });
    return { state: 'failed', code, message, at: Date.now() };
  };
  const [{ STSClient, AssumeRoleCommand }, { S3Client }] = await Promise.all([import('@aws-sdk/client-sts'), import('@aws-sdk/client-s3')]);
  const endpoint = config.jobsS3Endpoint;
  const stsEndpoint = config.jobsStsEndpoint;
  let credentials;
  try {
    const sts = new STSClient({ region: config.region, ...(stsEndpoint ? { endpoint: stsEndpoint } : {}), maxAttempts: 2 });
    const res = await sts.send(new AssumeRoleCommand({ RoleArn: d.roleArn, RoleSessionName: `${SESSION_PREFIX}${jobId}`, ExternalId: d.externalId, DurationSeconds: SESSION_SECONDS }));
    const c = res.Credentials;
    if (!c?.AccessKeyId || !c.SecretAccessKey) throw new Error('AssumeRole returned no credentials');
    credentials = { accessKeyId: c.AccessKeyId, secretAccessKey: c.SecretAccessKey, sessionToken: c.SessionToken };
  } catch (err) {
    return failed('ROLE_NOT_ASSUMABLE', `Could not assume ${d.roleArn} with your team's external ID (${short(err)}). Check the role's trust policy (docs/jobs.md). The files are in the results bucket (GET /v1/jobs/{id}/results).`);
  }
  const s3 = new S3Client({ region: config.region, credentials, followRegionRedirects: true, maxAttempts: 2, ...(endpoint ? { endpoint, forcePathStyle: true } : {}) });
  const keys: string[] = [];
  try {
    // Each file streamed from the results bucket into the customer's (a multipart upload past 5 MB), never
    // whole in memory. Not CopyObject: the customer's role cannot read our bucket (nor decrypt with our key).
    for (const name of RESULT_FILES) {
      const body = (await files().getStream(resultKey(teamId, jobId, name))) ?? Readable.from([]);
      const k = destinationKey(d, jobId, name);
      await uploadStream(s3, { Bucket: d.bucket, Key: k, ContentType: CONTENT_TYPES[name] }, body);
      keys.push(k);
    }
  } catch (err) {
    const name = (err as { name?: string }).name ?? '';
    const code = name === 'NoSuchBucket' ? 'BUCKET_NOT_FOUND' : name === 'AccessDenied' || name === 'Forbidden' ? 'WRITE_DENIED' : 'DELIVERY_FAILED';
    return failed(code, `Could not write s3://${d.bucket}/${destinationKey(d, jobId, '')} as ${d.roleArn} (${short(err)}). The files are in the results bucket (GET /v1/jobs/{id}/results).`);
  }
  log.info('job destination written', { jobId, bucket: d.bucket, files: keys.length });
  return { state: 'delivered', at: Date.now(), keys };
}
