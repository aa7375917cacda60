import { cacheKey } from '../../../shared/result-cache';
import { operation } from '../../../shared/operations';
import { UPSTREAM, parseHandle, parseNoteUrl } from '../../../shared/platforms/microblog-b/site';
import { isPlatformHost, resolveUpstream } from '../../../shared/scrape/upstream';
import { validateQuery } from '../../../shared/http/validation';

function rejection(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

/** microblog-b parameter forms: handles, profile URLs and note permalinks, and the hosts requests may reach. */

describe('handle', () => {
  test.each([
    ['HarborKite', 'HarborKite'],
    ['@HarborKite', 'HarborKite'],
    [' harbor_kite_1 ', 'harbor_kite_1'],
    ['https://x.com/HarborKite', 'HarborKite'],
    ['https://twitter.com/HarborKite/', 'HarborKite'],
    ['https://www.x.com/HarborKite/media', 'HarborKite'],
    ['https://mobile.twitter.com/HarborKite/status/1934000000000000100', 'HarborKite'],
    ['http://x.com/HarborKite?lang=en', 'HarborKite'],
    ['abcdefghijklmno', 'abcdefghijklmno'],
  ])('%s -> %s', (raw, name) => {
    expect(parseHandle(raw)).toBe(name);
  });

  test.each([
    '', '@', 'abcdefghijklmnop', 'harbor-kite', 'harbor.kite', '@@HarborKite',
    'https://evil.example/HarborKite', 'https://x.com.evil.example/HarborKite', 'https://x.com:8443/HarborKite',
    'https://user:pw@x.com/HarborKite', 'https://x.com/', 'https://x.com/home', 'https://x.com/i/flow/login',
    'https://x.com/search?q=tides', 'https://x.com/explore', 'ftp://x.com/HarborKite', 'https://abs.twimg.com/HarborKite',
  ])('refused: %j', (raw) => {
    expect(parseHandle(raw)).toBeNull();
  });

  test('the parameter lower-cases (one cache entry per account) and says what it wants', () => {
    const op = operation('microblog-b-profile');
    expect(validateQuery(op, { handle: '@HarborKite' }).values).toEqual({ handle: 'harborkite' });
    expect(validateQuery(op, { handle: 'https://x.com/HarborKite' }).values).toEqual({ handle: 'harborkite' });
    const err = rejection(() => validateQuery(op, { handle: 'not a handle' }));
    expect(err).toMatchObject({ status: 422, details: [{ path: 'handle', message: expect.stringContaining('1-15') }] });
  });
});

describe('note URL', () => {
  test.each([
    'https://x.com/HarborKite/status/1934000000000000100',
    'https://twitter.com/HarborKite/status/1934000000000000100/',
    'https://www.x.com/HarborKite/status/1934000000000000100?s=20&t=abc',
    'https://mobile.twitter.com/HarborKite/status/1934000000000000100/photo/1',
    'https://x.com/HarborKite/status/1934000000000000100/video/2',
    'https://x.com/i/web/status/1934000000000000100',
    'https://x.com/HarborKite/statuses/1934000000000000100',
  ])('%s -> the id', (raw) => {
    expect(parseNoteUrl(raw)).toBe('1934000000000000100');
  });

  test.each([
    'https://x.com/HarborKite',
    'https://x.com/HarborKite/status/',
    'https://x.com/HarborKite/status/abc',
    'https://x.com/HarborKite/status/1934000000000000100abc',
    'https://x.com/HarborKite/status/1934000000000000100/photo/1/extra',
    'https://evil.example/HarborKite/status/1934000000000000100',
    'https://x.com.evil.example/HarborKite/status/1934000000000000100',
    'https://x.com:444/HarborKite/status/1934000000000000100',
    '1934000000000000100',
    'javascript:alert(1)',
  ])('refused: %s', (raw) => {
    expect(parseNoteUrl(raw)).toBeNull();
  });

  test('the cache key is the note id (whatever handle the URL names); trim is a parameter of its own', () => {
    const op = operation('microblog-b-note');
    const a = validateQuery(op, { url: 'https://x.com/HarborKite/status/1934000000000000100' }).values;
    const b = validateQuery(op, { url: 'https://twitter.com/someoneelse/status/1934000000000000100/photo/1' }).values;
    expect(a).toEqual(b);
    expect(validateQuery(op, { url: 'https://x.com/a/status/1', trim: 'true' }).values).toEqual({ url: { noteId: '1' }, trim: true });
    // trim=false is the default: the same cache entry as no trim at all.
    expect(cacheKey(op.id, validateQuery(op, { url: 'https://x.com/a/status/1', trim: 'false' }).values)).toBe(cacheKey(op.id, validateQuery(op, { url: 'https://x.com/b/status/1' }).values));
    expect(rejection(() => validateQuery(op, { url: 'https://x.com/a/status/1', trim: 'yes' }))).toMatchObject({ status: 422, details: [{ path: 'trim', message: 'Must be true or false' }] });
  });
});

describe('upstream hosts', () => {
  test('api, web and bundle hosts are the platform; nothing else is', () => {
    for (const host of ['x.com', 'api.x.com', 'twitter.com', 'api.twitter.com', 'abs.twimg.com', 'pbs.twimg.com']) expect(isPlatformHost(UPSTREAM, host)).toBe(true);
    for (const host of ['evilx.com', 'x.com.evil.example', 'twimg.com.evil.example', 'example.com']) expect(isPlatformHost(UPSTREAM, host)).toBe(false);
  });

  test('UPSTREAM_MICROBLOG_B_URL replaces every origin, keeping path and query', () => {
    const before = process.env.UPSTREAM_MICROBLOG_B_URL;
    process.env.UPSTREAM_MICROBLOG_B_URL = 'http://127.0.0.1:4567';
    try {
      for (const u of ['https://api.x.com/1.1/guest/activate.json', 'https://x.com/i/api/graphql/abc/UserTweets?variables=%7B%7D', 'https://abs.twimg.com/x-web/x-web/assets/a-b.js']) {
        const r = resolveUpstream(UPSTREAM, u)!;
        const real = new URL(u);
        expect(r.target.toString()).toBe(`http://127.0.0.1:4567${real.pathname}${real.search}`);
      }
      expect(resolveUpstream(UPSTREAM, 'https://example.com/x')).toBeNull();
    } finally {
      process.env.UPSTREAM_MICROBLOG_B_URL = before;
    }
  });
});
