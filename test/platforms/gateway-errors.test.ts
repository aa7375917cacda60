import { balance, ledger } from '../../shared/credits';
import { fixture, fixtureText } from '../support/fake-upstream';
import { startHarness, type Harness } from '../support/harness';

/**
 * Operations 2 and 9 end to end through the local gateway: the SSRF guard on `url`, and every
 * error path with its status, code, Retry-After, and no charge.
 */
const CLIP = '/v1/livestream/clip';
const POSTS = '/v1/microblog-c/user/posts';
const HLS_ID = 'clip_01JQ7ZK3M8W4TYV5R2N6P9XBCD';
const ACCOUNT_ID = '107830692512534674';

let h: Harness;
let key: string;
let teamId: string;
beforeAll(async () => {
  h = await startHarness();
  ({ key, teamId } = await h.team(100));
});
afterAll(async () => h.stop());
beforeEach(() => h.fake.reset());

describe('livestream clip: the url parameter is the only way in, and only for the platform host', () => {
  test.each([
    `https://kick.com/somechannel/clips/${HLS_ID}`,
    `https://www.kick.com/somechannel?clip=${HLS_ID}&t=12`,
    `http://kick.com/somechannel/clips/${HLS_ID}/`,
  ])('accepted: %s -> the clip id goes to the upstream, nothing else', async (url) => {
    h.fake.on(`/api/v2/clips/${HLS_ID}`, { body: fixture('livestream/clip-hls.json') });
    const res = await h.call(CLIP, { url }, { key });
    expect(res.status).toBe(200);
    expect(res.body.data.clip.id).toBe(HLS_ID);
    expect(h.fake.requests.map((r) => r.path)).toEqual([`/api/v2/clips/${HLS_ID}`]);
  });

  test.each([
    `https://evil.example/somechannel/clips/${HLS_ID}`,
    `https://kick.com.evil.example/somechannel/clips/${HLS_ID}`,
    `https://evilkick.com/somechannel/clips/${HLS_ID}`,
    `https://user:pw@kick.com/somechannel/clips/${HLS_ID}`,
    `https://kick.com:8443/somechannel/clips/${HLS_ID}`,
    `https://127.0.0.1/somechannel/clips/${HLS_ID}`,
    `file:///etc/passwd`,
    `javascript:alert(1)`,
    `https://kick.com/somechannel`,
    `https://kick.com/somechannel/clips/clip_notaulid`,
  ])('refused with 422 and no upstream request: %s', async (url) => {
    const res = await h.call(CLIP, { url }, { key });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual([{ path: 'url', message: expect.stringContaining('clip URL') }]);
    expect(h.fake.requests).toHaveLength(0);
  });

  test('missing url -> 422 Required', async () => {
    const res = await h.call(CLIP, {}, { key });
    expect(res.body.error.details).toEqual([{ path: 'url', message: 'Required' }]);
  });
});

const url = `https://kick.com/somechannel/clips/${HLS_ID}`;
const challenge = fixtureText('livestream/cloudflare-challenge.html');

describe.each([
  ['livestream clip', CLIP, { url }, `/api/v2/clips/${HLS_ID}`],
  ['microblog-c posts', POSTS, { userId: ACCOUNT_ID }, `/api/v1/accounts/${ACCOUNT_ID}`],
])('%s: upstream failures are 503 with Retry-After and cost nothing', (_name, path, query, upstreamPath) => {
  test.each([
    ['a Cloudflare challenge (403)', { status: 403, body: challenge }, 'UPSTREAM_BLOCKED'],
    ['a Cloudflare challenge (200)', { status: 200, body: challenge }, 'UPSTREAM_BLOCKED'],
    ['an HTML page (404)', { status: 404, body: '<!doctype html><html><body>Not here</body></html>' }, 'UPSTREAM_BLOCKED'],
    ['429', { status: 429, headers: { 'retry-after': '90' }, body: { error: 'Too many requests' } }, 'UPSTREAM_BLOCKED'],
    ['a plain 5xx', { status: 502, body: { error: 'bad gateway' } }, 'PLATFORM_UNAVAILABLE'],
  ])('%s', async (_what, reply, code) => {
    h.fake.on(upstreamPath, reply);
    h.fake.on(`${upstreamPath}/play`, reply);
    h.fake.on(`/api/v1/accounts/${ACCOUNT_ID}/statuses`, reply);
    const before = await balance(teamId);
    const res = await h.call(path, query, { key });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe(code);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    if (reply.status === 429) expect(res.headers['retry-after']).toBe('90');
    expect(await balance(teamId)).toBe(before);
  });
});

describe('not found and bad cursors', () => {
  test('livestream: unknown and private clips are 404', async () => {
    h.fake.on(`/api/v2/clips/${HLS_ID}`, { status: 404, body: fixture('livestream/clip-not-found.json') });
    expect((await h.call(CLIP, { url }, { key })).body.error.code).toBe('NOT_FOUND');
    h.fake.on(`/api/v2/clips/${HLS_ID}`, { body: fixture('livestream/clip-private.json') });
    expect((await h.call(CLIP, { url }, { key })).status).toBe(404);
  });

  test.each([
    ['unknown account', { status: 404, body: fixture('microblog-c/error-not-found.json') }],
    ['suspended account', { body: fixture('microblog-c/account-suspended.json') }],
    ['hidden from logged-out viewers', { status: 401, body: fixture('microblog-c/error-unauthenticated.json') }],
  ])('microblog-c: %s is 404', async (_what, reply) => {
    h.fake.on('/api/v1/accounts/lookup', reply);
    h.fake.on(`/api/v1/accounts/${ACCOUNT_ID}/statuses`, { body: [] });
    const res = await h.call(POSTS, { handle: '@HarborLight' }, { key });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  test.each(['abc', '12', '99999999999999999999'])('microblog-c: cursor %p is 400 without an upstream call', async (cursor) => {
    const res = await h.call(POSTS, { handle: 'harborlight', cursor }, { key });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(h.fake.requests).toHaveLength(0);
  });

  test('microblog-c: neither, both, or a foreign profile URL -> 422', async () => {
    const queries: Record<string, string>[] = [{}, { handle: 'a', userId: '1' }, { handle: 'https://evil.example/@harborlight' }, { userId: '12ab' }];
    for (const q of queries) {
      const res = await h.call(POSTS, q, { key });
      expect(res.status).toBe(422);
    }
    expect(h.fake.requests).toHaveLength(0);
  });

  test('after all those errors, the ledger holds only the successful scrapes', async () => {
    const entries = await ledger(teamId);
    expect(entries.every((e) => e.operation === 'livestream-clip')).toBe(true);
    expect(entries).toHaveLength(3); // the three accepted URL forms above
    expect(await balance(teamId)).toBe(97);
  });
});
