import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { loaded } from '../runtime/secrets';

/**
 * Opaque, authenticated tokens: the cursors the service issues (shortvideo hashtag videos, a team's
 * request history). Form: base64url(text) "." base64url(HMAC-SHA256(CURSOR_SECRET, text)[0..16]).
 * Deployed, the secret is read at cold start from CURSOR_SECRET_ARN (shared/runtime/secrets.ts); CURSOR_SECRET
 * sets it locally; without either (npm start, tests) a random secret
 * of this process is used, so tokens stay valid for the life of the process only.
 */
const MAC_BYTES = 16;

let processSecret: Buffer | undefined;
function secret(): Buffer {
  const configured = process.env.CURSOR_SECRET || loaded.cursorSecret;
  if (configured) return Buffer.from(configured, 'utf8');
  return (processSecret ??= randomBytes(32));
}

const mac = (text: string) => createHmac('sha256', secret()).update(text).digest().subarray(0, MAC_BYTES);

export function seal(text: string): string {
  return `${Buffer.from(text).toString('base64url')}.${mac(text).toString('base64url')}`;
}

/** The sealed text, or null when the token is too long, malformed, tampered with, or signed with another secret. */
export function unseal(raw: string, maxChars: number): string | null {
  if (raw.length > maxChars) return null;
  const m = raw.match(/^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{22})$/);
  if (!m) return null;
  const textBytes = Buffer.from(m[1]!, 'base64url');
  const given = Buffer.from(m[2]!, 'base64url');
  // Only the canonical encoding is accepted: base64's spare trailing bits cannot make a second
  // spelling of the same token.
  if (textBytes.toString('base64url') !== m[1] || given.toString('base64url') !== m[2]) return null;
  const text = textBytes.toString('utf8');
  if (given.length !== MAC_BYTES || !timingSafeEqual(given, mac(text))) return null;
  return text;
}

/** A sealed JSON object, or null (see `unseal`; also null when the text is not a JSON object). */
export function unsealJson(raw: string, maxChars: number): Record<string, unknown> | null {
  const text = unseal(raw, maxChars);
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
