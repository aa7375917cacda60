import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { config } from '../runtime/config';
import { logger } from '../runtime/log';
import { MetricUnit, publishMetrics } from '../runtime/metrics';

/**
 * A monitor's signing secret. We sign every delivery with it, so it cannot be a one-way hash: it is
 * stored sealed (AES-256-GCM), and shown to the caller once (create, rotate), never logged. A copy
 * of the events table alone (backup, export, read-only leak) reveals no secret, and the functions
 * that sign never hold the key pepper API keys are hashed with. Two ways, by where it runs:
 *
 * - **On AWS: envelope encryption under the stack's KMS key** (MONITOR_KMS_KEY_ID, usable only by
 *   the monitors API, which seals, and the delivery worker, which signs: infra/monitors.ts). Once per
 *   container a data key is made by KMS GenerateDataKey (AES-256) and kept in memory with its
 *   encrypted copy; a secret is sealed under it as `v2.<encrypted data key>.<iv>.<tag>.<ciphertext>`
 *   (base64url each), the encrypted data key beside the sealed value. Opening one sealed under this
 *   container's data key needs no call; under another's (another container, an earlier one) one KMS
 *   Decrypt of that encrypted data key, then kept (at most DATA_KEYS_KEPT).
 * - **Locally** (`npm start`, `npm run demo`, the tests): `v1.<iv>.<tag>.<ciphertext>` under a key
 *   derived by HMAC-SHA256 from MONITOR_KEY, made once under .local/monitor-key (mode 0600: dev/env.ts)
 *   or set by the tests (test/support/per-file-env.ts).
 *
 * There is no fallback. A function deployed on Lambda seals and opens only through KMS: without
 * MONITOR_KMS_KEY_ID, or when KMS does not answer (no network path, no grant, the key disabled), it
 * refuses to seal, open or sign; locally, without MONITOR_KEY, the same. Each refusal logs an error
 * line (MONITOR_KEY_MISSING, or `monitor key unavailable …` with the KMS error's name), publishes
 * the metric `monitorKeyUnavailable` (the stack alarms on it: infra/monitors.ts) and throws.
 */
const PREFIX = 'whsec_';
/** After a rotation the previous secret signs too (a second signature), this long: receivers switch meanwhile. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;
const KEY_BYTES = 24;
/** Data keys of other containers kept after their Decrypt (each 32 bytes): a delivery worker meets a few per API container. */
const DATA_KEYS_KEPT = 1000;
/** The metric counted at every refusal (namespace METRICS_NAMESPACE): the stack's alarm on monitor sealing. */
export const MONITOR_KEY_METRIC = 'monitorKeyUnavailable';

export const MONITOR_KEY_MISSING = 'monitor key missing: refusing to seal, open or sign a monitor secret (MONITOR_KMS_KEY_ID unset on AWS, or MONITOR_KEY unset locally)';
export const MONITOR_KEY_UNAVAILABLE = 'monitor key unavailable: KMS refused or did not answer; refusing to seal, open or sign a monitor secret';

/** Logged (never a value), counted, thrown. */
function refuse(message: string, error?: unknown): never {
  logger.error(message, error ? { error: (error as Error).name } : {});
  publishMetrics([{}], [[MONITOR_KEY_METRIC, MetricUnit.Count, 1]]);
  throw new Error(message);
}

const onLambda = () => config.onLambda;

/** A new secret as shown to the caller: `whsec_` + base64 of the key. */
export function newSecret(): string {
  return PREFIX + randomBytes(KEY_BYTES).toString('base64');
}

function encrypt(key: Buffer, secret: string): Buffer[] {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body];
}

function decrypt(key: Buffer, [iv, tag, body]: string[]): string {
  if (!iv || !tag || !body) throw new Error('unreadable monitor secret');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

const b64 = (parts: Buffer[]) => parts.map((p) => p.toString('base64url')).join('.');

// ---- locally: MONITOR_KEY ----

function localKey(): Buffer {
  const material = config.monitorKey;
  if (!material || onLambda()) refuse(MONITOR_KEY_MISSING);
  return createHmac('sha256', material).update('monitor-signing-secret/v1').digest();
}

/** The local form, `v1.…` (what tests that store a monitor directly use). */
export function sealLocalSecret(secret: string): string {
  return `v1.${b64(encrypt(localKey(), secret))}`;
}

// ---- on AWS: KMS envelope encryption ----

interface DataKey {
  plain: Buffer;
  encrypted: string;
}
type Kms = { generate(keyId: string): Promise<{ plain: Uint8Array; encrypted: Uint8Array }>; decrypt(encrypted: Uint8Array, keyId: string): Promise<Uint8Array> };
let kms: Promise<Kms> | undefined;
/** The KMS client, loaded on first use (only the monitors API and the delivery worker ever seal or open). */
function kmsClient(): Promise<Kms> {
  kms ??= import('@aws-sdk/client-kms').then(({ KMSClient, GenerateDataKeyCommand, DecryptCommand }) => {
    const client = new KMSClient({ region: config.region });
    return {
      async generate(keyId) {
        const res = await client.send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256' }));
        return { plain: res.Plaintext!, encrypted: res.CiphertextBlob! };
      },
      async decrypt(encrypted, keyId) {
        return (await client.send(new DecryptCommand({ CiphertextBlob: encrypted, KeyId: keyId }))).Plaintext!;
      },
    };
  });
  return kms;
}

let current: Promise<DataKey> | undefined;
const opened = new Map<string, Buffer>();

/** This container's data key: GenerateDataKey once (a failed call is tried again at the next seal). */
function dataKey(keyId: string): Promise<DataKey> {
  current ??= kmsClient()
    .then((k) => k.generate(keyId))
    .then(({ plain, encrypted }) => {
      const key = { plain: Buffer.from(plain), encrypted: Buffer.from(encrypted).toString('base64url') };
      opened.set(key.encrypted, key.plain);
      return key;
    })
    .catch((err: unknown) => {
      current = undefined;
      return refuse(MONITOR_KEY_UNAVAILABLE, err);
    });
  return current;
}

async function openDataKey(keyId: string, encrypted: string): Promise<Buffer> {
  const known = opened.get(encrypted);
  if (known) return known;
  let plain: Buffer;
  try {
    plain = Buffer.from(await (await kmsClient()).decrypt(Buffer.from(encrypted, 'base64url'), keyId));
  } catch (err) {
    return refuse(MONITOR_KEY_UNAVAILABLE, err);
  }
  if (opened.size >= DATA_KEYS_KEPT) opened.delete(opened.keys().next().value as string);
  opened.set(encrypted, plain);
  return plain;
}

/** For tests: forget the data keys and the client (a new container). */
export function resetMonitorKeys(): void {
  current = undefined;
  kms = undefined;
  opened.clear();
}

// ---- either ----

/** The stored form: `v2.…` under the KMS key where one is configured (always on AWS), else `v1.…` under the local key. */
export async function sealSecret(secret: string): Promise<string> {
  const keyId = config.monitorKmsKeyId;
  if (!keyId) return sealLocalSecret(secret);
  const key = await dataKey(keyId);
  return `v2.${key.encrypted}.${b64(encrypt(key.plain, secret))}`;
}

export async function openSecret(sealed: string): Promise<string> {
  const [version, ...parts] = sealed.split('.');
  if (version === 'v1') return decrypt(localKey(), parts);
  if (version !== 'v2' || parts.length !== 4) throw new Error('unreadable monitor secret');
  const keyId = config.monitorKmsKeyId;
  if (!keyId) refuse(MONITOR_KEY_MISSING);
  const [encrypted, ...rest] = parts;
  return decrypt(await openDataKey(keyId, encrypted!), rest);
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the base64-decoded secret. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}
