import { balance } from '../../shared/accounting/teams';
import { fixture } from '../../dev/upstream/fake';
import type { Harness } from '../support/harness';
import { withMicroblogB } from '../support/microblog-b';
import { ACTIVATE, gqlPath, upstreamFailures, type FakeGuestTokens } from '../../dev/upstream/microblog-b';

/**
 * Operation 3 through the local gateway: 200, 404, 422 and 503 (401 and 402 are checked for every
 * operation in test/contract, 429 in test/gateway/pipeline.test.ts), charges only on success, nothing cached on error.
 */
const PATH = '/v1/microblog-b/profile';
const USER = gqlPath('UserByScreenName');

let h: Harness;
let key: string;
let teamId: string;
let tokens: FakeGuestTokens;
withMicroblogB(1000, (g) => void ({ h, key, teamId, tokens } = g));

test('200: the profile, 1 credit; the same account by @name or URL is one cache entry', async () => {
  const before = await balance(teamId);
  const res = await h.call(PATH, { handle: 'HarborKite' }, { key });
  expect(res.status).toBe(200);
  expect(res.body.data.profile).toMatchObject({ id: '1234567890', screenName: 'HarborKite', joined: 'March 2009', stats: { notes: 4120 } });
  expect(res.body.meta).toMatchObject({ cached: false, creditsCharged: 1 });
  expect(await balance(teamId)).toBe(before - 1);
  expect(h.fake.requestsTo(USER)).toHaveLength(1);

  for (const handle of ['@harborkite', 'https://twitter.com/HarborKite', 'https://mobile.x.com/harborkite/media']) {
    const hit = await h.call(PATH, { handle, cache_max_age: '1d' }, { key });
    expect(hit.body.meta).toMatchObject({ cached: true, creditsCharged: 0 });
  }
  expect(h.fake.requestsTo(USER)).toHaveLength(1);
});

test('200: legacy user schema and a protected account', async () => {
  h.fake.on(USER, tokens.guard({ body: fixture('microblog-b/user-legacy.json') }));
  expect((await h.call(PATH, { handle: 'tidewren' }, { key })).body.data.profile).toMatchObject({ screenName: 'tidewren', bannerUrl: null, joined: 'July 2018' });
  h.fake.on(USER, tokens.guard({ body: fixture('microblog-b/user-protected.json') }));
  expect((await h.call(PATH, { handle: 'quietcove' }, { key })).body.data.profile).toMatchObject({ protected: true });
});

test.each([['user-not-found', 'gone_1'], ['user-suspended', 'gone_2']])('404: %s; no charge, nothing cached', async (name, handle) => {
  h.fake.on(USER, tokens.guard({ body: fixture(`microblog-b/${name}.json`) }));
  const before = await balance(teamId);
  const res = await h.call(PATH, { handle }, { key });
  expect(res).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  expect(await balance(teamId)).toBe(before);
  h.fake.on(USER, tokens.guard({ body: fixture('microblog-b/user-2026.json') }));
  expect((await h.call(PATH, { handle, cache_max_age: '30d' }, { key })).body.meta.cached).toBe(false);
});

test.each(['', 'harbor-kite', 'abcdefghijklmnop', 'https://evil.example/HarborKite', 'https://x.com/home'])('422: handle %j, no upstream call', async (handle) => {
  const res = await h.call(PATH, { handle }, { key });
  expect(res).toMatchObject({ status: 422, body: { error: { code: 'VALIDATION_ERROR', details: [{ path: 'handle' }] } } });
  expect(h.fake.requests).toHaveLength(0);
});

test.each(upstreamFailures())('503 on %s: %s, Retry-After, no charge, nothing cached', async (_name, reply, code, retryAfter) => {
  h.fake.on(USER, tokens.guard(reply));
  const before = await balance(teamId);
  const res = await h.call(PATH, { handle: 'harborkite' }, { key });
  expect(res).toMatchObject({ status: 503, body: { error: { code } } });
  const ra = Number(res.headers['retry-after']);
  expect(ra).toBeGreaterThan(0);
  if (retryAfter) {
    expect(ra).toBeGreaterThanOrEqual(retryAfter[0]);
    expect(ra).toBeLessThanOrEqual(retryAfter[1]);
  }
  expect(await balance(teamId)).toBe(before);
});

test('a "Bad guest token" is invisible to the caller: one new activation, 200', async () => {
  expect((await h.call(PATH, { handle: 'harborkite' }, { key })).status).toBe(200);
  tokens.refused.add(tokens.issued[0]!);
  const res = await h.call(PATH, { handle: 'harborkite' }, { key });
  expect(res.status).toBe(200);
  expect(h.fake.requestsTo(ACTIVATE)).toHaveLength(2);
});

test('20 concurrent requests finding the token refused: all 200, ONE activation', async () => {
  expect((await h.call(PATH, { handle: 'harborkite' }, { key })).status).toBe(200);
  tokens.refused.add(tokens.issued[0]!);
  h.fake.on(USER, tokens.guard({ body: fixture('microblog-b/user-2026.json'), delayMs: 30 }));
  const all = await Promise.all(Array.from({ length: 20 }, (_, i) => h.call(PATH, { handle: `user_${i}` }, { key })));
  expect(all.map((r) => r.status)).toEqual(Array(20).fill(200));
  expect(h.fake.requestsTo(ACTIVATE)).toHaveLength(2);
});
