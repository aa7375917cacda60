import { createHash } from 'node:crypto';

/**
 * The platform's WAF proof-of-work page ("Please wait..."), served instead of an HTML page (and at
 * times an API answer). Its elements carry the puzzle in their class attributes:
 *   id="cs"  base64 JSON {v: {a: <base64 prefix>, c: <base64 sha256 digest>}, ...}
 *   id="wci" the name of the cookie that carries the answer (e.g. _wafchallengeid)
 *   id="rci" / id="rs" (optional) a second cookie's name and value
 * The answer is the decimal number i in [0, 1_000_000] with sha256(prefix ‖ String(i)) == digest;
 * the page is then requested again with cookie <wci> = base64(JSON of the puzzle with d = base64(i))
 * (and <rci> = rs). Pure node:crypto; the search stops at the request's deadline.
 */
export interface WafChallenge {
  /** The decoded puzzle object (sent back with `d` set). */
  data: Record<string, unknown> & { v: { a: string; c: string } };
  cookieName: string;
  extraCookie?: { name: string; value: string };
}

export const MAX_WAF_ANSWER = 1_000_000;

function classOf(html: string, id: string): string | undefined {
  const tag = html.match(new RegExp(`<[a-z]+\\b[^>]*\\bid\\s*=\\s*["']${id}["'][^>]*>`, 'i'))?.[0];
  return tag?.match(/\bclass\s*=\s*["']([^"']*)["']/i)?.[1];
}

/** The challenge of a WAF page, or null when the body is not one. */
export function parseWafChallenge(body: string): WafChallenge | null {
  if (body.length > 200_000 || !/\bid\s*=\s*["']cs["']/.test(body) || !/\bid\s*=\s*["']wci["']/.test(body)) return null;
  const encoded = classOf(body, 'cs');
  const cookieName = classOf(body, 'wci');
  if (!encoded || !cookieName || !/^[\w-]+$/.test(cookieName)) return null;
  let data: unknown;
  try {
    data = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch {
    return null;
  }
  const v = (data as { v?: { a?: unknown; c?: unknown } } | null)?.v;
  if (typeof v?.a !== 'string' || typeof v.c !== 'string') return null;
  const rci = classOf(body, 'rci');
  const rs = classOf(body, 'rs');
  return {
    data: data as WafChallenge['data'],
    cookieName,
    ...(rci && rs && /^[\w-]+$/.test(rci) ? { extraCookie: { name: rci, value: rs } } : {}),
  };
}

/**
 * The cookies that answer the challenge, or null when no i in range solves it or the deadline
 * (`until`, epoch ms) passes first.
 */
export function solveWafChallenge(ch: WafChallenge, until = Infinity): Record<string, string> | null {
  const expected = Buffer.from(ch.data.v.c, 'base64');
  const base = createHash('sha256').update(Buffer.from(ch.data.v.a, 'base64'));
  for (let i = 0; i <= MAX_WAF_ANSWER; i++) {
    if (i % 20_000 === 0 && Date.now() > until) return null;
    const n = String(i);
    if (base.copy().update(n).digest().equals(expected)) {
      const answer = { ...ch.data, d: Buffer.from(n).toString('base64') };
      return {
        [ch.cookieName]: Buffer.from(JSON.stringify(answer)).toString('base64'),
        ...(ch.extraCookie ? { [ch.extraCookie.name]: ch.extraCookie.value } : {}),
      };
    }
  }
  return null;
}
