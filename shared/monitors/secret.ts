import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { config } from '../runtime/config';
import { logger } from '../runtime/log';

/**
 * A monitor's signing secret. We sign every delivery with it, so it cannot be a one-way hash: it is
 * stored encrypted (AES-256-GCM) under a key derived by HMAC-SHA256 with a purpose label from a
 * secret of its own (Secrets Manager, MONITOR_KEY_SECRET_ARN, readable only by the monitors API and
 * the delivery worker; locally MONITOR_KEY). A copy of the accounts table alone (backup, export,
 * read-only leak) does not reveal any secret, and the functions that sign never hold the key pepper
 * API keys are hashed with. The secret is shown to the caller once (create, rotate) and never logged.
 *
 * There is no fallback: without that key (not configured, or not loaded) nothing is sealed, opened
 * or signed; the call throws, and an error line (`monitor key missing`) is logged for the
 * metrics and alarms to count. `npm start` and `npm run demo` make a local key once, under
 * .local/monitor-key (mode 0600: dev/env.ts); the tests set their own (test/support/per-file-env.ts).
 */
const PREFIX = 'whsec_';
/** After a rotation the previous secret signs too (a second signature), this long: receivers switch meanwhile. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000;
const KEY_BYTES = 24;

export const MONITOR_KEY_MISSING = 'monitor key missing: refusing to seal, open or sign a monitor secret (MONITOR_KEY_SECRET_ARN not loaded, or MONITOR_KEY unset)';

function encryptionKey(): Buffer {
  const material = config.monitorKey;
  if (!material) {
    logger.error(MONITOR_KEY_MISSING);
    throw new Error(MONITOR_KEY_MISSING);
  }
  return createHmac('sha256', material).update('monitor-signing-secret/v1').digest();
}

/** A new secret as shown to the caller: `whsec_` + base64 of the key. */
export function newSecret(): string {
  return PREFIX + randomBytes(KEY_BYTES).toString('base64');
}

/** The stored form: `v1.<iv>.<tag>.<ciphertext>`, base64url each. */
export function sealSecret(secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', encryptionKey(), iv);
  const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), body].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
}

export function openSecret(sealed: string): string {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || !body) throw new Error('unreadable monitor secret');
  const decipher = createDecipheriv('aes-256-gcm', encryptionKey(), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the base64-decoded secret. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}
