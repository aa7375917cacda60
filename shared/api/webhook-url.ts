import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { config } from '../runtime/config';
import { isPublicAddress, lookupWith } from '../scrape/address';

/**
 * Where a webhook may go: https on a public address, checked when the URL is set (after name
 * resolution) and again at every delivery, where the connection itself resolves through the same
 * guard (so a name rebound to a private address meanwhile is refused before connecting). No
 * private, loopback, link-local or metadata address (shared/scrape/address.ts, the SSRF guard of
 * upstream URLs); redirects are not followed.
 *
 * WEBHOOK_ALLOW_LOOPBACK=1 (local runs and tests only; the stack never sets it) also allows plain
 * http to a loopback address.
 */
export const allowLoopback = () => config.webhookAllowLoopback;

const isLoopback = (address: string) => {
  const a = address.replace(/^\[|\]$/g, '');
  return a === '::1' || a.startsWith('127.') || a === '::ffff:127.0.0.1' || /^::ffff:127\./.test(a);
};
const allowed = (address: string) => isPublicAddress(address) || (allowLoopback() && isLoopback(address));

/** The connection's lookup: only addresses `allowed` now. */
export const webhookLookup = lookupWith(allowed);

const MAX_URL = 2048;

/** Why a URL is refused (a message for the caller), or null when it may be used. Resolves the name. */
export async function webhookUrlProblem(raw: unknown): Promise<string | null> {
  if (typeof raw !== 'string' || !raw.trim()) return 'A webhook URL is required';
  if (raw.length > MAX_URL) return `At most ${MAX_URL} characters`;
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return 'Must be an absolute URL';
  }
  if (u.username || u.password) return 'Must not carry credentials';
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (u.protocol !== 'https:' && !(u.protocol === 'http:' && allowLoopback())) return 'Must be https';
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await resolveAll(host);
  } catch {
    return 'The host name does not resolve';
  }
  if (!addresses.length || !addresses.every(allowed)) return 'Must be on a public address (no private, loopback, link-local or metadata address)';
  if (u.protocol === 'http:' && !addresses.every(isLoopback)) return 'Must be https';
  return null;
}

function resolveAll(host: string): Promise<string[]> {
  // Through the guard's resolver (tests replace it with resolveNamesWith), accepting every address, then judged above.
  const any = lookupWith(() => true);
  return new Promise((resolve, reject) =>
    any(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve((addresses as LookupAddress[]).map((a) => a.address)))),
  );
}

export interface PostResult {
  status: number | null;
  ms: number;
  error?: string;
}

export const DELIVERY_TIMEOUT_MS = 10_000;

/** One POST, no redirects followed, 10 s for the whole answer; the address checked at connection. */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, timeoutMs = DELIVERY_TIMEOUT_MS): Promise<PostResult> {
  const started = Date.now();
  const problem = await webhookUrlProblem(url);
  if (problem) return { status: null, ms: Date.now() - started, error: `refused: ${problem}` };
  const u = new URL(url);
  const client = u.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = client.request(
      u,
      { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'monitors-webhook/1' }, lookup: webhookLookup as never, timeout: timeoutMs, signal: AbortSignal.timeout(timeoutMs) },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? null, ms: Date.now() - started }));
        res.on('error', () => resolve({ status: res.statusCode ?? null, ms: Date.now() - started }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => resolve({ status: null, ms: Date.now() - started, error: (err as NodeJS.ErrnoException).code ?? err.message }));
    req.end(body);
  });
}
