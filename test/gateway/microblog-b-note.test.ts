import { balance } from '../../shared/accounting/teams';
import { fixture } from '../../dev/upstream/fake';
import type { Harness } from '../support/harness';
import { withMicroblogB } from '../support/microblog-b';
import { ACTIVATE, gqlPath, upstreamFailures, type FakeGuestTokens } from '../../dev/upstream/microblog-b';

/**
 * Operation 12 through the local gateway: every listed status (200, 422, 503; 401 and 402 are
 * checked for every operation in test/contract, 429 in test/gateway/pipeline.test.ts), and the spec's
 * common rule 5 (a deleted or hidden note is 404) although the operation's list omits 404.
 */
const PATH = '/v1/microblog-b/note';
const NOTE = gqlPath('TweetResultByRestId');
const DETAIL = gqlPath('TweetDetail');
const FOCAL = '2010000000000001000';
const URL_ = `https://x.com/tidewren/status/${FOCAL}`;

let h: Harness;
let key: string;
let teamId: string;
let tokens: FakeGuestTokens;
withMicroblogB(1000, (g) => void ({ h, key, teamId, tokens } = g));

test('200: focal note with author, direct replies, replyCount; both calls made; 1 credit', async () => {
  const before = await balance(teamId);
  const res = await h.call(PATH, { url: URL_ }, { key });
  expect(res.status).toBe(200);
  expect(res.body.data.focalNote).toMatchObject({ id: FOCAL, author: { screenName: 'tidewren' }, communityNote: { title: 'Readers added context' } });
  expect(res.body.data.replies.map((r: { id: string }) => r.id)).toEqual(['2010000000000001201', '2010000000000001101', '2010000000000001301']);
  expect(res.body.data.replyCount).toBe(240);
  expect(h.fake.requestsTo(NOTE)).toHaveLength(1);
  expect(h.fake.requestsTo(DETAIL)).toHaveLength(1);
  expect(await balance(teamId)).toBe(before - 1);
});

test('the cache key is the note id and trim: another URL form of the same note hits; trim=true does not', async () => {
  await h.call(PATH, { url: URL_ }, { key });
  const other = await h.call(PATH, { url: `https://mobile.twitter.com/SomeoneElse/status/${FOCAL}/photo/1?s=20`, cache_max_age: '1d' }, { key });
  expect(other.body.meta.cached).toBe(true);
  const trimmed = await h.call(PATH, { url: URL_, trim: 'true', cache_max_age: '1d' }, { key });
  expect(trimmed.body.meta.cached).toBe(false);
  expect(Object.keys(trimmed.body.data).sort()).toEqual(['fetchedAt', 'focalNote']);
  expect(trimmed.body.data.focalNote.author).toBeUndefined();
  expect(h.fake.requestsTo(DETAIL)).toHaveLength(1); // trim asked the focal note only
});

test('200 with replies [] when the guest view refuses them ("Denied by access control")', async () => {
  h.fake.on(DETAIL, tokens.guard({ body: fixture('microblog-b/error-denied.json') }));
  const res = await h.call(PATH, { url: URL_ }, { key });
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ replies: [], replyCount: 240 });
});

test('200: a long-form note in full; an article note', async () => {
  h.fake.on(NOTE, tokens.guard({ body: fixture('microblog-b/note-long-form.json') }));
  const long = await h.call(PATH, { url: 'https://x.com/HarborKite/status/1970000000000000400' }, { key });
  expect(long.body.data.focalNote).toMatchObject({ isLongForm: true, text: expect.stringMatching(/for the data\.$/) });
  h.fake.on(NOTE, tokens.guard({ body: fixture('microblog-b/note-article.json') }));
  const art = await h.call(PATH, { url: 'https://x.com/HarborKite/status/2020000000000002000' }, { key });
  expect(art.body.data.focalNote.article).toMatchObject({ title: 'Why tides are rising faster' });
});

test.each([
  ['deleted (tombstone)', 'note-tombstone'],
  ['absent', 'note-empty'],
  ['protected', 'note-unavailable-protected'],
  ['age-restricted (cannot be read logged out)', 'note-unavailable-nsfw'],
])('404 (common rule 5): %s; no charge', async (_what, name) => {
  h.fake.on(NOTE, tokens.guard({ body: fixture(`microblog-b/${name}.json`) }));
  h.fake.on(DETAIL, tokens.guard({ body: fixture('microblog-b/error-not-found-144.json') }));
  const before = await balance(teamId);
  const res = await h.call(PATH, { url: URL_ }, { key });
  expect(res).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  expect(await balance(teamId)).toBe(before);
});

test.each([
  'https://x.com/tidewren',
  'https://evil.example/tidewren/status/2010000000000001000',
  'https://x.com/tidewren/status/20100000000000010001234',
  '2010000000000001000',
])('422: url %s, no upstream call', async (url) => {
  const res = await h.call(PATH, { url }, { key });
  expect(res).toMatchObject({ status: 422, body: { error: { code: 'VALIDATION_ERROR', details: [{ path: 'url' }] } } });
  expect(h.fake.requests).toHaveLength(0);
});

test.each(upstreamFailures())('503 from the focal note call on %s: %s, Retry-After, no charge', async (_name, reply, code, retryAfter) => {
  h.fake.on(NOTE, tokens.guard(reply));
  const before = await balance(teamId);
  const res = await h.call(PATH, { url: URL_ }, { key });
  expect(res).toMatchObject({ status: 503, body: { error: { code } } });
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(retryAfter?.[0] ?? 1);
  expect(await balance(teamId)).toBe(before);
});

test('a "Bad guest token" on both calls: one activation, 200 with replies', async () => {
  await h.call(PATH, { url: URL_ }, { key });
  tokens.refused.add(tokens.issued[0]!);
  const res = await h.call(PATH, { url: URL_ }, { key });
  expect(res.status).toBe(200);
  expect(res.body.data.replies).toHaveLength(3);
  expect(h.fake.requestsTo(ACTIVATE)).toHaveLength(2);
});
