import { balance } from '../../shared/accounting/teams';
import { ledger } from '../../shared/accounting/ledger';
import { fixture, fixtureText } from '../../dev/upstream/fake';
import { type Harness, withGateway } from '../support/harness';
import { expect503, upstreamFailures } from '../support/upstream-failures';

/**
 * Operation 2, /v1/livestream/clip, through the local gateway: the SSRF guard on `url`, and every
 * error path with its status, code, Retry-After, and no charge. The clip's content is tested at
 * unit level (test/unit/livestream/).
 */
const CLIP = '/v1/livestream/clip';
const HLS_ID = 'clip_01JQ7ZK3M8W4TYV5R2N6P9XBCD';
const UPSTREAM_CLIP = `/api/v2/clips/${HLS_ID}`;
const url = `https://kick.com/somechannel/clips/${HLS_ID}`;
const challenge = fixtureText('livestream/cloudflare-challenge.html');

let h: Harness;
let key: string;
let teamId: string;
withGateway(100, (g) => void ({ h, key, teamId } = g));
beforeEach(() => h.fake.reset());

describe('the url parameter is the only way in, and only for the platform host', () => {
  test.each([
    `https://kick.com/somechannel/clips/${HLS_ID}`,
    `https://www.kick.com/somechannel?clip=${HLS_ID}&t=12`,
    `http://kick.com/somechannel/clips/${HLS_ID}/`,
  ])('accepted: %s -> the clip id goes to the upstream, nothing else', async (url) => {
    h.fake.on(UPSTREAM_CLIP, { body: fixture('livestream/clip-hls.json') });
    const res = await h.call(CLIP, { url }, { key });
    expect(res.status).toBe(200);
    expect(res.body.data.clip.id).toBe(HLS_ID);
    expect(h.fake.requests.map((r) => r.path)).toEqual([UPSTREAM_CLIP]);
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

describe('upstream failures are 503 with Retry-After and cost nothing', () => {
  test.each(upstreamFailures(challenge))('%s', async (_what, reply, code) => {
    h.fake.on(UPSTREAM_CLIP, reply);
    h.fake.on(`${UPSTREAM_CLIP}/play`, reply);
    const before = await balance(teamId);
    const res = await h.call(CLIP, { url }, { key });
    expect503(res, code, reply);
    expect(await balance(teamId)).toBe(before);
  });
});

test('unknown and private clips are 404', async () => {
  h.fake.on(UPSTREAM_CLIP, { status: 404, body: fixture('livestream/clip-not-found.json') });
  expect((await h.call(CLIP, { url }, { key })).body.error.code).toBe('NOT_FOUND');
  h.fake.on(UPSTREAM_CLIP, { body: fixture('livestream/clip-private.json') });
  expect((await h.call(CLIP, { url }, { key })).status).toBe(404);
});

test('the ledger holds only the successful scrapes, and an error is never cached', async () => {
  // A clip of its own: no other test caches it.
  const clipId = 'clip_01H2K8R4TQ6VZ3N5W7YB9CDMFG';
  const clipUrl = `https://kick.com/oldtimer/clips/${clipId}`;
  const team = await h.team(10);
  const call = (query: Record<string, string>) => h.call(CLIP, query, { key: team.key });
  h.fake.on(`/api/v2/clips/${clipId}`, { status: 502, body: { error: 'bad gateway' } });
  expect((await call({ url: clipUrl })).status).toBe(503);
  h.fake.on(`/api/v2/clips/${clipId}`, { status: 404, body: fixture('livestream/clip-not-found.json') });
  expect((await call({ url: clipUrl })).status).toBe(404);
  expect((await call({ url: 'https://evil.example/x/clips/y' })).status).toBe(422);
  h.fake.on(`/api/v2/clips/${clipId}`, { body: fixture('livestream/clip-mp4-2023.json') });
  const live = await call({ url: clipUrl, cache_max_age: '1d' });
  expect(live.body.meta).toMatchObject({ cached: false, creditsCharged: 1 });
  expect((await ledger(team.teamId)).map((e) => e.operation)).toEqual(['livestream-clip']);
  expect(await balance(team.teamId)).toBe(9);
});
