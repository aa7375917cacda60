import type { ErrorCode } from '../../shared/http/errors';
import type { FakeReply } from '../../dev/upstream/fake';
import type { CallResult } from './harness';

/**
 * Upstream answers every platform must turn into a 503 with Retry-After (gateway tests): a
 * challenge page (`challenge`: the platform's own) whatever its status, a sign-in page where JSON
 * was expected (blocked) and another HTML page there (no evidence of a wall: EXTRACTION_FAILED), a
 * rate limit with the upstream's Retry-After, and a plain 5xx.
 */
export function upstreamFailures(challenge: string): [string, FakeReply, ErrorCode][] {
  return [
    ['a Cloudflare challenge (403)', { status: 403, body: challenge }, 'UPSTREAM_BLOCKED'],
    ['a Cloudflare challenge (200)', { status: 200, body: challenge }, 'UPSTREAM_BLOCKED'],
    ['a sign-in page (200)', { status: 200, body: '<!doctype html><html><head><title>Sign in</title></head><body><form action="/login"><input type="password"></form></body></html>' }, 'UPSTREAM_BLOCKED'],
    // No evidence of a wall: a page without the data, not a block.
    ['an HTML page (404)', { status: 404, body: '<!doctype html><html><body>Not here</body></html>' }, 'EXTRACTION_FAILED'],
    ['429', { status: 429, headers: { 'retry-after': '90' }, body: { error: 'Too many requests' } }, 'UPSTREAM_BLOCKED'],
    ['a plain 5xx', { status: 502, body: { error: 'bad gateway' } }, 'PLATFORM_UNAVAILABLE'],
  ];
}

/** A 503 with the code, a Retry-After (the upstream's own when it gave one). */
export function expect503(res: CallResult, code: ErrorCode, reply: FakeReply) {
  expect(res.status).toBe(503);
  expect(res.body.error.code).toBe(code);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  const upstreamRetryAfter = reply.headers?.['retry-after'];
  if (upstreamRetryAfter) expect(res.headers['retry-after']).toBe(upstreamRetryAfter);
}
