import * as v from 'valibot';
import { cacheKey } from '../../../shared/result-cache';
import { ApiError } from '../../../shared/http/errors';
import { operation } from '../../../shared/operations';
import { MAX_CURSOR_CHARS, MAX_SEEN, decodeHashtagCursor, encodeHashtagCursor, fingerprint } from '../../../shared/platforms/shortvideo/cursor';
import { HashtagCursorRef, VideoRef, commentsCursorParam, hashtagCursorParam, hashtagParam, regionName, regionParam, videoUrlParam } from '../../../shared/platforms/shortvideo/site';
import { validateQuery } from '../../../shared/http/validation';

const ID = '7301234567890123456';

describe('video URL (operation 7)', () => {
  it.each([
    [`https://www.tiktok.com/@some.user/video/${ID}`, 'some.user'],
    [`https://tiktok.com/@Some_User/video/${ID}/`, 'some_user'],
    [`https://m.tiktok.com/@someuser/photo/${ID}`, 'someuser'],
    [`https://www.tiktok.com/@someuser/video/${ID}?is_from_webapp=1&sender_device=pc&lang=en`, 'someuser'],
    [`http://www.tiktok.com/@someuser/video/${ID}#c`, 'someuser'],
  ])('accepts %s', (raw, handle) => {
    const r = v.safeParse(videoUrlParam, raw);
    expect(r.success).toBe(true);
    const ref = r.output as VideoRef;
    expect({ id: ref.videoId, referer: ref.askedPage }).toEqual({ id: ID, referer: `https://www.tiktok.com/@${handle}/video/${ID}` });
    // Only the video id is enumerable: the cache key, and all a cached answer may depend on.
    expect(JSON.parse(JSON.stringify(ref))).toEqual({ videoId: ID });
  });

  it.each([
    ['another host', `https://example.com/@someuser/video/${ID}`],
    ['a look-alike host', `https://tiktok.com.evil.com/@someuser/video/${ID}`],
    ['a subdomain other than www/m', `https://vm.tiktok.com/@someuser/video/${ID}`],
    ['a profile', 'https://www.tiktok.com/@someuser'],
    ['no handle', `https://www.tiktok.com/video/${ID}`],
    ['a tag page', 'https://www.tiktok.com/tag/football'],
    ['letters in the id', 'https://www.tiktok.com/@someuser/video/73012a'],
    ['an id too long', `https://www.tiktok.com/@someuser/video/${ID}12`],
    ['a port', `https://www.tiktok.com:444/@someuser/video/${ID}`],
    ['not a URL', 'hello'],
  ])('rejects %s', (_what, raw) => {
    expect(v.safeParse(videoUrlParam, raw).success).toBe(false);
  });

  it('the cache key is the video id and cursor, whatever handle the URL names', () => {
    const op = operation('shortvideo-video-comments');
    const a = validateQuery(op, { url: `https://www.tiktok.com/@one/video/${ID}`, cursor: '40' });
    const b = validateQuery(op, { url: `https://m.tiktok.com/@two/video/${ID}?x=1`, cursor: '40' });
    const c = validateQuery(op, { url: `https://m.tiktok.com/@two/video/${ID}` });
    expect(cacheKey(op.id, a.values)).toBe(cacheKey(op.id, b.values));
    expect(cacheKey(op.id, a.values)).toContain(ID);
    expect(cacheKey(op.id, c.values)).not.toBe(cacheKey(op.id, a.values));
  });

  it('the cursor is 1-10 digits; anything else is a 400 BAD_REQUEST', () => {
    for (const ok of ['0', '40', '9999999999']) expect(v.safeParse(commentsCursorParam, ok).success).toBe(true);
    const op = operation('shortvideo-video-comments');
    for (const bad of ['', 'abc', '-1', '12345678901', '1.5']) {
      let err: unknown;
      try {
        validateQuery(op, { url: `https://www.tiktok.com/@one/video/${ID}`, cursor: bad });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(400);
    }
  });
});

describe('hashtag and region (operation 13)', () => {
  it.each([
    ['football', 'football'],
    ['#FootBall', 'football'],
    ['naija_music2026', 'naija_music2026'],
    ['سارائیکی', 'سارائیکی'],
    ['हिंदी', 'हिंदी'],
  ])('hashtag %s -> %s', (raw, out) => {
    expect(v.parse(hashtagParam, raw)).toBe(out);
  });
  it.each(['', '#', 'two words', 'a'.repeat(101), 'foot#ball', 'dash-tag', '<script>'])('rejects hashtag %j', (raw) => {
    expect(v.safeParse(hashtagParam, raw).success).toBe(false);
  });
  it('region: ISO 3166-1 alpha-2, case-insensitive; region names from Intl', () => {
    expect(v.parse(regionParam, 'ng')).toBe('NG');
    expect(v.parse(regionParam, 'Us')).toBe('US');
    for (const bad of ['NGA', 'N', 'XX', 'ZZ', 'EU', 'UN', '12']) expect(v.safeParse(regionParam, bad).success).toBe(false);
    expect(regionName('NG')).toBe('Nigeria');
    expect(regionName('GH')).toBe('Ghana');
    expect(regionName('XX')).toBeNull();
  });
});

describe('hashtag cursor (authenticated)', () => {
  const state = { hashtag: 'football', region: 'NG', challengeId: '42164', offset: 30, seen: new Set([fingerprint('1'), fingerprint('2')]) };

  it('round-trips what the next page needs', () => {
    const raw = encodeHashtagCursor(state);
    expect(raw).toMatch(/^[\x21-\x7e]+$/);
    expect(decodeHashtagCursor(raw)).toEqual(state);
    const ref = v.parse(hashtagCursorParam, raw) as HashtagCursorRef;
    expect(ref.state).toEqual(state);
    // The cache key names the exact cursor, briefly.
    expect(Object.keys(ref)).toEqual(['digest']);
    expect(ref.digest).toHaveLength(43);
  });

  it('a tampered cursor is refused: payload or MAC changed, truncated, or re-signed with another secret', () => {
    const raw = encodeHashtagCursor(state);
    const [payload, mac] = raw.split('.') as [string, string];
    const forged = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('"o":30', '"o":60')).toString('base64url');
    expect(decodeHashtagCursor(`${forged}.${mac}`)).toBeNull();
    expect(decodeHashtagCursor(`${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    expect(decodeHashtagCursor(payload)).toBeNull();
    expect(decodeHashtagCursor('30')).toBeNull();
    const saved = process.env.CURSOR_SECRET;
    process.env.CURSOR_SECRET = 'another deployment';
    try {
      expect(decodeHashtagCursor(raw)).toBeNull();
      const foreign = encodeHashtagCursor(state);
      process.env.CURSOR_SECRET = 'this deployment';
      expect(decodeHashtagCursor(foreign)).toBeNull();
    } finally {
      if (saved === undefined) delete process.env.CURSOR_SECRET;
      else process.env.CURSOR_SECRET = saved;
    }
  });

  it('through validation: a tampered cursor is a 400 BAD_REQUEST before any scrape', () => {
    const op = operation('shortvideo-search-hashtag');
    const raw = encodeHashtagCursor(state);
    expect(() => validateQuery(op, { hashtag: 'football', cursor: `${raw}x` })).toThrow(expect.objectContaining({ status: 400, code: 'BAD_REQUEST' }));
    const ok = validateQuery(op, { hashtag: '#Football', region: 'ng', cursor: raw });
    expect(ok.values.hashtag).toBe('football');
    expect(ok.values.region).toBe('NG');
  });

  it(`carries the ${MAX_SEEN} videos of a whole chain, with the longest hashtag, in MAX_CURSOR_CHARS; no more`, () => {
    const fingerprints = (n: number) => new Set(Array.from({ length: n }, (_, i) => fingerprint(String(7_000_000_000_000_000_000n + BigInt(i)))));
    const longest = { ...state, hashtag: 'h'.repeat(100), challengeId: '9'.repeat(20), offset: 99_999, seen: fingerprints(MAX_SEEN) };
    expect(longest.seen.size).toBe(MAX_SEEN);
    const raw = encodeHashtagCursor(longest);
    expect(raw.length).toBeLessThanOrEqual(MAX_CURSOR_CHARS);
    expect(decodeHashtagCursor(raw)?.seen.size).toBe(MAX_SEEN);
    expect(validateQuery(operation('shortvideo-search-hashtag'), { hashtag: 'h'.repeat(100), cursor: raw }).values.cursor).toBeDefined();
    expect(decodeHashtagCursor(encodeHashtagCursor({ ...state, seen: fingerprints(MAX_SEEN + 1) }))).toBeNull();
  });
});
