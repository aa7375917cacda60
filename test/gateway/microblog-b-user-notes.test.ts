import { balance } from '../../shared/accounting/teams';
import { fixture } from '../../dev/upstream/fake';
import type { Harness } from '../support/harness';
import { withMicroblogB } from '../support/microblog-b';
import { gqlPath, upstreamFailures, type FakeGuestTokens } from '../../dev/upstream/microblog-b';

/**
 * Operation 10 through the local gateway: 200, 404, 422 and 503 (401 and 402 are checked for every
 * operation in test/contract, 429 in test/gateway/pipeline.test.ts), trim in the cache key, charges only on success.
 */
const PATH = '/v1/microblog-b/user-notes';
const USER = gqlPath('UserByScreenName');
const NOTES = gqlPath('UserTweets');

let h: Harness;
let key: string;
let teamId: string;
let tokens: FakeGuestTokens;
withMicroblogB(1000, (g) => void ({ h, key, teamId, tokens } = g));

test('200: pinned first then newest first, no authors, noteCount; 2 upstream calls the first time, 1 after', async () => {
  const before = await balance(teamId);
  const res = await h.call(PATH, { handle: '@HarborKite' }, { key });
  expect(res.status).toBe(200);
  const { notes, noteCount } = res.body.data;
  expect(noteCount).toBe(notes.length);
  expect(notes[0]).toMatchObject({ id: '1934000000000000100', isPinned: true });
  const times = notes.slice(1).map((n: { createdAtMs: number }) => n.createdAtMs);
  expect(times).toEqual([...times].sort((a: number, b: number) => b - a));
  for (const n of notes) expect(n.author).toBeUndefined();
  expect(res.body.meta).toMatchObject({ creditsCharged: 1, cached: false });
  expect(await balance(teamId)).toBe(before - 1);
  expect(h.fake.requests.filter((r) => r.path.startsWith('/i/api/graphql/')).map((r) => r.path)).toEqual([USER, NOTES]);

  h.fake.requests.length = 0;
  await h.call(PATH, { handle: 'harborkite' }, { key });
  expect(h.fake.requests.map((r) => r.path)).toEqual([NOTES]);
});

test('trim is part of the cache key; trim=true keeps only the listed fields', async () => {
  const full = await h.call(PATH, { handle: 'harborkite' }, { key });
  const trimmedHit = await h.call(PATH, { handle: 'harborkite', trim: 'true', cache_max_age: '1d' }, { key });
  expect(trimmedHit.body.meta.cached).toBe(false);
  expect(Object.keys(trimmedHit.body.data.notes[0]).sort()).toEqual(['counts', 'createdAt', 'createdAtMs', 'id', 'isPinned', 'isQuote', 'isReply', 'lang', 'media', 'text', 'url', 'views']);
  const fullHit = await h.call(PATH, { handle: 'harborkite', trim: 'false', cache_max_age: '1d' }, { key });
  expect(fullHit.body.meta.cached).toBe(true);
  expect(fullHit.body.data.notes).toEqual(full.body.data.notes);
});

test.each([
  ['a protected account', 'user-protected', 'quietcove'],
  ['a suspended account', 'user-suspended', 'gone_suspended'],
  ['an unknown account', 'user-not-found', 'gone_unknown'],
])('404: %s; no charge, no timeline call', async (_what, name, handle) => {
  h.fake.on(USER, tokens.guard({ body: fixture(`microblog-b/${name}.json`) }));
  const before = await balance(teamId);
  const res = await h.call(PATH, { handle }, { key });
  expect(res).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  expect(h.fake.requestsTo(NOTES)).toHaveLength(0);
  expect(await balance(teamId)).toBe(before);
});

test('404: a suspended account whose id was known (the timeline call says so)', async () => {
  await h.call(PATH, { handle: 'harborkite' }, { key });
  h.fake.on(NOTES, tokens.guard({ body: fixture('microblog-b/user-notes-suspended.json') }));
  h.fake.on(USER, tokens.guard({ body: fixture('microblog-b/user-suspended.json') }));
  expect((await h.call(PATH, { handle: 'harborkite' }, { key })).status).toBe(404);
});

test.each([
  [{ handle: 'harbor kite' }, 'handle'],
  [{ handle: 'harborkite', trim: 'yes' }, 'trim'],
  [{ handle: 'harborkite', trim: '' }, 'trim'],
  [{ trim: 'true' }, 'handle'],
])('422: %j', async (query, path) => {
  const res = await h.call(PATH, query, { key });
  expect(res).toMatchObject({ status: 422, body: { error: { code: 'VALIDATION_ERROR' } } });
  expect(res.body.error.details.map((d: { path: string }) => d.path)).toContain(path);
  expect(h.fake.requests).toHaveLength(0);
});

describe.each([
  ['the lookup', USER],
  ['the timeline', NOTES],
])('503 from %s', (_which, upstreamPath) => {
  test.each(upstreamFailures())('%s: %s, Retry-After, no charge', async (_name, reply, code, retryAfter) => {
    h.fake.on(upstreamPath, tokens.guard(reply));
    const before = await balance(teamId);
    const res = await h.call(PATH, { handle: 'harborkite' }, { key });
    expect(res).toMatchObject({ status: 503, body: { error: { code } } });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(retryAfter?.[0] ?? 1);
    expect(await balance(teamId)).toBe(before);
  });
});
