import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { config } from '../runtime/config';

/**
 * Passwords are kept only as scrypt hashes: `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>`, a random
 * 16-byte salt each, compared in constant time. The parameters travel with the hash, so a hash made
 * with older (weaker) ones still verifies and is replaced by one with today's at the next
 * successful sign-in (needsRehash).
 *
 * Today's parameters: N = 2^17, r = 8, p = 1 (OWASP's password storage recommendation for scrypt):
 * 128 * N * r = 128 MiB of memory and a few hundred milliseconds of one core per hash.
 */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}
export const RECOMMENDED_PARAMS: Readonly<ScryptParams> = Object.freeze({ N: 2 ** 17, r: 8, p: 1 });
const KEY_BYTES = 32;
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 200;

/**
 * Test suites hash hundreds of passwords; PASSWORD_HASH_TEST_LOG2N lowers N for them. It is read
 * only under NODE_ENV=test (jest sets it), and only ever lowers the cost: anywhere else the
 * recommended parameters hold whatever the environment says.
 */
export function currentParams(): ScryptParams {
  const log2 = config.passwordHashTestLog2n;
  if (log2 !== undefined && log2 >= 1 && 2 ** log2 < RECOMMENDED_PARAMS.N) return { ...RECOMMENDED_PARAMS, N: 2 ** log2 };
  return { ...RECOMMENDED_PARAMS };
}

/** OpenSSL needs 128 * r * (N + p + 2) bytes; Node refuses anything above maxmem (32 MiB by default). */
const memoryFor = ({ N, r, p }: ScryptParams) => 128 * r * (N + p + 2);

function derive(password: string, salt: Buffer, o: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { N: o.N, r: o.r, p: o.p, maxmem: memoryFor(o) + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

export async function hashPassword(password: string, params: ScryptParams = currentParams()): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, params);
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** The parameters of a stored hash; null for anything that is not one of ours (or would cost absurd memory). */
function parse(stored: string): { params: ScryptParams; salt: Buffer; hash: Buffer } | null {
  const [kind, n, r, p, salt, hash, extra] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash || extra !== undefined) return null;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const powerOfTwo = Number.isInteger(params.N) && params.N > 1 && (params.N & (params.N - 1)) === 0;
  if (!powerOfTwo || params.N > 2 ** 20 || !Number.isInteger(params.r) || params.r < 1 || params.r > 32 || !Number.isInteger(params.p) || params.p < 1 || params.p > 16) return null;
  return { params, salt: Buffer.from(salt, 'base64'), hash: Buffer.from(hash, 'base64') };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const key = await derive(password, parsed.salt, parsed.params);
  return key.length === parsed.hash.length && timingSafeEqual(key, parsed.hash);
}

/** Whether a stored hash was made with other parameters than today's (so is replaced after a successful sign-in). */
export function needsRehash(stored: string): boolean {
  const parsed = parse(stored);
  const now = currentParams();
  return !parsed || parsed.params.N !== now.N || parsed.params.r !== now.r || parsed.params.p !== now.p;
}

/**
 * Verifying against this when the e-mail is unknown (or has no password yet) keeps the answer's
 * timing the same: a hash of today's parameters with a random salt and a random digest, which no
 * password matches. Verifying costs one scrypt of those parameters, as for a member; making it costs
 * nothing (no scrypt), so the first unknown e-mail of a container takes no longer than the next.
 */
export function decoyHash(): string {
  const { N, r, p } = currentParams();
  return ['scrypt', N, r, p, randomBytes(16).toString('base64'), randomBytes(KEY_BYTES).toString('base64')].join('$');
}

/** null when acceptable, else why not (shown to the member). */
export function passwordProblem(password: unknown): string | null {
  if (typeof password !== 'string') return 'The password is required';
  if (password.length < MIN_PASSWORD_LENGTH) return `The password must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `The password must have at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}
