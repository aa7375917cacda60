import { createHash, createHmac } from 'node:crypto';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { config } from './runtime/config';

/**
 * One signed call to an AWS service that speaks the AWS JSON 1.1 protocol (Secrets Manager, SSM):
 * the two reads the functions make at cold start (shared/runtime/secrets.ts). The full SDK clients of those
 * services weigh about 230 KB of minified code in every bundle (the SSM client alone 204 KB), parsed
 * at every cold start for two calls; this reuses what the DynamoDB client already brings (SigV4
 * signing and the default credential chain), so a function loads nothing more for its secrets.
 *
 * Endpoints as the SDK resolves them for the standard and China partitions, and the SDK's own
 * overrides: AWS_ENDPOINT_URL_<SERVICE> (e.g. AWS_ENDPOINT_URL_SECRETS_MANAGER), then AWS_ENDPOINT_URL.
 * Errors carry the service's error type as their name (e.g. ResourceNotFoundException) and never the
 * body, which for these calls could hold a secret.
 */
export interface AwsJsonService {
  /** The SigV4 signing name and the endpoint's host prefix. */
  signingName: string;
  /** The X-Amz-Target prefix (`<prefix>.<Operation>`). */
  targetPrefix: string;
  /** The suffix of the SDK's endpoint override variable: AWS_ENDPOINT_URL_<envName>. */
  envName: string;
}

export const SECRETS_MANAGER: AwsJsonService = { signingName: 'secretsmanager', targetPrefix: 'secretsmanager', envName: 'SECRETS_MANAGER' };
export const SSM: AwsJsonService = { signingName: 'ssm', targetPrefix: 'AmazonSSM', envName: 'SSM' };

/** An AWS error answer, or a transport failure, named as the SDK would name it. */
export class AwsCallError extends Error {
  constructor(
    name: string,
    readonly status: number | undefined,
  ) {
    super(`AWS call failed: ${name}${status ? ` (HTTP ${status})` : ''}`);
    this.name = name;
  }
}

/** SHA-256 (or HMAC-SHA-256 with a secret) in the shape SigV4 signing asks for. */
class Sha256 {
  private readonly hash;
  constructor(secret?: string | Uint8Array | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | Uint8Array | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

function bytes(x: string | Uint8Array | ArrayBuffer | ArrayBufferView): Buffer {
  if (typeof x === 'string') return Buffer.from(x, 'utf8');
  if (x instanceof ArrayBuffer) return Buffer.from(x);
  return Buffer.from(x.buffer, x.byteOffset, x.byteLength);
}

let credentials: ReturnType<typeof defaultProvider> | undefined;
const signers = new Map<string, SignatureV4>();

function signer(service: AwsJsonService, region: string): SignatureV4 {
  const key = `${service.signingName} ${region}`;
  let s = signers.get(key);
  if (!s) {
    // The chain caches what it found (memoized): environment variables in Lambda.
    credentials ??= defaultProvider();
    s = new SignatureV4({ service: service.signingName, region, credentials, sha256: Sha256, applyChecksum: false });
    signers.set(key, s);
  }
  return s;
}

/** The service's regional endpoint, or the SDK's override variables. */
export function endpointOf(service: AwsJsonService, region: string): URL {
  const override = process.env[`AWS_ENDPOINT_URL_${service.envName}`] || process.env.AWS_ENDPOINT_URL;
  if (override) return new URL(override);
  const suffix = region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
  return new URL(`https://${service.signingName}.${region}.${suffix}/`);
}

const RETRYABLE = new Set(['ThrottlingException', 'TooManyUpdates', 'InternalServiceError', 'InternalFailure', 'ServiceUnavailable', 'TimeoutError', 'NetworkError']);
const ATTEMPTS = 3;

/** The error type of an AWS JSON error body ("prefix#Name" or "Name"), or a status name. */
function errorName(body: string, status: number): string {
  try {
    const type = (JSON.parse(body) as { __type?: unknown }).__type;
    if (typeof type === 'string' && type) return type.slice(type.lastIndexOf('#') + 1);
  } catch {
    /* not JSON */
  }
  return status >= 500 ? 'ServiceUnavailable' : `Http${status}`;
}

async function once(service: AwsJsonService, operation: string, payload: unknown, region: string): Promise<unknown> {
  const url = endpointOf(service, region);
  const body = JSON.stringify(payload);
  const signed = await signer(service, region).sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname || '/',
    query: {},
    headers: {
      host: url.host,
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `${service.targetPrefix}.${operation}`,
    },
    body,
  });
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: signed.headers, body, signal: AbortSignal.timeout(config.dynamoTimeoutMs * 3) });
  } catch (err) {
    throw new AwsCallError((err as Error).name === 'TimeoutError' ? 'TimeoutError' : 'NetworkError', undefined);
  }
  const text = await res.text();
  if (!res.ok) throw new AwsCallError(errorName(text, res.status), res.status);
  try {
    return JSON.parse(text);
  } catch {
    throw new AwsCallError('InvalidResponse', res.status);
  }
}

/** `operation` of `service` with `payload`; throttling, 5xx and network failures are tried up to 3 times. */
export async function awsJsonCall<T>(service: AwsJsonService, operation: string, payload: unknown, region = config.region): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await once(service, operation, payload, region)) as T;
    } catch (err) {
      const retry = err instanceof AwsCallError && (RETRYABLE.has(err.name) || (err.status ?? 0) >= 500);
      if (!retry || attempt >= ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, 50 * 2 ** attempt * (0.5 + Math.random() / 2)));
    }
  }
}
