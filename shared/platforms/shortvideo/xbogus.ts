import { createHash } from 'node:crypto';

/**
 * The X-Bogus request signature of the platform's web app (the published algorithm: RC4 + MD5 +
 * a custom base64 alphabet; described by public reverse-engineering write-ups and ports). Written
 * here from that description; no other project's code is copied.
 *
 * 19 bytes are signed: a header (64 and the three bytes of the User-Agent key, 0, 1, 12), the last two bytes of md5(md5(query)),
 * md5(md5(body)) and md5(base64(rc4([0,1,12], userAgent))), the unix time and a canvas
 * fingerprint (big-endian), and the XOR of all of them. They are RC4-encrypted with the key [255],
 * prefixed with (2, 255) and written in the custom base64 alphabet: 28 characters.
 */
const ALPHABET = 'Dkdpgh4ZKsQB80/Mfvw36XI1R25-WUAlEi7NLboqYTOPuzmFjJnryx9HVGcaStCe';
/**
 * The RC4 key of the User-Agent digest, also written as bytes 2..4 of the signed header: [0, 1, 12]
 * in the web SDK builds public TikTok ports describe; older Douyin builds used [0, 0, 0].
 */
export const DEFAULT_UA_KEY: readonly [number, number, number] = [0, 1, 12];
/** The canvas fingerprint public implementations send; any 32-bit value is accepted by the format. */
export const DEFAULT_CANVAS = 536919696;

const md5 = (data: Uint8Array | string) => createHash('md5').update(data).digest();

function rc4(key: readonly number[], data: Uint8Array): Uint8Array {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i]! + key[i % key.length]!) % 256;
    [s[i], s[j]] = [s[j]!, s[i]!];
  }
  const out = new Uint8Array(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) % 256;
    j = (j + s[i]!) % 256;
    [s[i], s[j]] = [s[j]!, s[i]!];
    out[n] = data[n]! ^ s[(s[i]! + s[j]!) % 256]!;
  }
  return out;
}

function encode(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += ALPHABET[(n >> 18) & 63]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  return out;
}

function decode(sig: string): Uint8Array | null {
  if (sig.length % 4 !== 0) return null;
  const out: number[] = [];
  for (let i = 0; i < sig.length; i += 4) {
    const idx = [...sig.slice(i, i + 4)].map((c) => ALPHABET.indexOf(c));
    if (idx.some((x) => x < 0)) return null;
    const n = (idx[0]! << 18) | (idx[1]! << 12) | (idx[2]! << 6) | idx[3]!;
    out.push((n >> 16) & 255, (n >> 8) & 255, n & 255);
  }
  return Uint8Array.from(out);
}

const be32 = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];

export interface XBogusInput {
  /** The query string exactly as sent, without the leading "?" and without X-Bogus. */
  query: string;
  userAgent: string;
  /** The request body (GET: empty). */
  body?: string;
  /** Unix seconds (default: now). */
  time?: number;
  canvas?: number;
  uaKey?: readonly [number, number, number];
}

export function xBogus({ query, userAgent, body = '', time = Math.floor(Date.now() / 1000), canvas = DEFAULT_CANVAS, uaKey = DEFAULT_UA_KEY }: XBogusInput): string {
  const q = md5(md5(query));
  const b = md5(md5(body));
  const ua = md5(Buffer.from(rc4(uaKey, Buffer.from(userAgent, 'latin1'))).toString('base64'));
  const signed = [64, ...uaKey, q[14]!, q[15]!, b[14]!, b[15]!, ua[14]!, ua[15]!, ...be32(time), ...be32(canvas)];
  signed.push(signed.reduce((x, y) => x ^ y, 0));
  return encode(Uint8Array.from([2, 255, ...rc4([255], Uint8Array.from(signed))]));
}

/** The fields a signature carries (for checks and tests): null when it is not an X-Bogus value. */
export function readXBogus(sig: string): { uaKey: [number, number, number]; queryTail: number[]; bodyTail: number[]; uaTail: number[]; time: number; canvas: number } | null {
  const bytes = decode(sig);
  if (!bytes || bytes.length !== 21 || bytes[0] !== 2 || bytes[1] !== 255) return null;
  const s = rc4([255], bytes.slice(2));
  if (s.slice(0, 18).reduce((x, y) => x ^ y, 0) !== s[18]) return null;
  const u32 = (o: number) => ((s[o]! << 24) | (s[o + 1]! << 16) | (s[o + 2]! << 8) | s[o + 3]!) >>> 0;
  return { uaKey: [s[1]!, s[2]!, s[3]!], queryTail: [s[4]!, s[5]!], bodyTail: [s[6]!, s[7]!], uaTail: [s[8]!, s[9]!], time: u32(10), canvas: u32(14) };
}
