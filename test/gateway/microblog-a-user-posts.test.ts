import { balance } from '../../shared/accounting/teams';
import { ledger } from '../../shared/accounting/ledger';
import type { ErrorCode } from '../../shared/http/errors';
import { fixture, type FakeReply } from '../../dev/upstream/fake';
import { type Harness, withGateway } from '../support/harness';
import { MICROBLOG_A, microblogA } from '../../dev/upstream/replay';
import { expect503 } from '../support/upstream-failures';

/**
 * Operation 1, /v1/microblog-a/user/posts, through the local gateway: parameter forms and
 * validation, every listed status, credits charged only on success. The page's content is tested
 * at unit level (test/unit/microblog-a/).
 */
const PATH = '/v1/microblog-a/user/posts';
const { profile: PROFILE, feed: FEED } = MICROBLOG_A;
const DID = 'did:plc:q7fx2mlw4ntkz3yahs6cvbdr';
const HANDLE = 'marlowe-tern.bsky.social';

let h: Harness;
let key: string;
let teamId: string;
withGateway(1000, (g) => void ({ h, key, teamId } = g));
beforeEach(() => {
  h.fake.reset();
  // The recorded profile and feed (2 pages), whatever the actor.
  microblogA(h.fake, { anyInput: true });
});

const get = (query: Record<string, string>) => h.call(PATH, query, { key });

test('200: the page in the envelope, one credit charged', async () => {
  const before = await balance(teamId);
  const res = await get({ handle: HANDLE });
  expect(res.status).toBe(200);
  expect(res.body.meta).toMatchObject({ creditsCharged: 1, cached: false, creditsRemaining: before - 1 });
  expect(res.headers['x-request-id']).toBe(res.body.meta.requestId);
  expect(res.body.data).toMatchObject({ user: { did: DID, handle: HANDLE }, count: 10, cursor: '2026-09-21T10:00:00.000Z', hasMore: true });
  expect(await balance(teamId)).toBe(before - 1);
});

test.each([
  ['@Marlowe-Tern.bsky.social', HANDLE],
  [`https://bsky.app/profile/${HANDLE}`, HANDLE],
  [`https://bsky.app/profile/${HANDLE}/post/3lpinned2222a`, HANDLE],
  ['marlowe-tern', HANDLE],
  [`https://bsky.app/profile/${DID}`, DID],
])('handle form %s asks for %s', async (handle, actor) => {
  expect((await get({ handle })).status).toBe(200);
  expect(h.fake.requestsTo(PROFILE)[0]!.query.actor).toBe(actor);
});

test('userId goes to the AppView as the DID', async () => {
  expect((await get({ userId: DID })).status).toBe(200);
  expect(h.fake.requestsTo(FEED)[0]!.query.actor).toBe(DID);
});

describe('404', () => {
  test.each([
    ['unknown', 'microblog-a/error-not-found.json'],
    ['suspended', 'microblog-a/error-takedown.json'],
    ['deactivated', 'microblog-a/error-deactivated.json'],
  ])('%s account', async (_name, file) => {
    h.fake.on(PROFILE, { status: 400, body: fixture(file) });
    h.fake.on(FEED, { status: 400, body: fixture('microblog-a/error-not-found.json') });
    const res = await get({ handle: HANDLE });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  test('account that asks to be hidden from logged-out viewers', async () => {
    h.fake.on(PROFILE, { body: fixture('microblog-a/profile-hidden.json') });
    const res = await get({ handle: 'shy-lantern.bsky.social' });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });
});

describe('400 invalid cursor', () => {
  test('refused by the AppView', async () => {
    h.fake.on(FEED, { status: 400, body: fixture('microblog-a/error-bad-cursor.json') });
    const res = await get({ handle: HANDLE, cursor: 'garbage' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
  });

  test.each(['1::2', 'has space', ''])('malformed cursor %p never reaches upstream', async (cursor) => {
    const res = await get({ handle: HANDLE, cursor });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(h.fake.requests).toHaveLength(0);
  });
});

describe('422', () => {
  test.each([
    [{}, 'handle'],
    [{ handle: HANDLE, userId: DID }, 'handle'],
    [{ handle: 'not a handle!' }, 'handle'],
    [{ handle: '' }, 'handle'],
    [{ userId: 'did:plc:short' }, 'userId'],
    [{ userId: 'did:web:example.com' }, 'userId'],
    [{ handle: 'https://evil.example/profile/alice.bsky.social' }, 'handle'],
    [{ handle: 'https://bsky.app.evil.example/profile/alice.bsky.social' }, 'handle'],
    [{ handle: 'https://user:pw@bsky.app/profile/alice.bsky.social' }, 'handle'],
    [{ handle: HANDLE, cache_max_age: '2d' }, 'cache_max_age'],
    [{ handle: HANDLE, user_id: DID }, 'user_id'],
  ])('%j -> detail on %s, no upstream call', async (query, path) => {
    const res = await get(query as Record<string, string>);
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path, message: expect.any(String) })]));
    expect(h.fake.requests).toHaveLength(0);
  });

  test('a repeated parameter is refused', async () => {
    const res = await h.call(PATH, { handle: [HANDLE, 'other.bsky.social'] }, { key });
    expect(res.status).toBe(422);
    expect(res.body.error.details[0]).toMatchObject({ path: 'handle' });
  });
});

describe('upstream failures map to 503 with Retry-After, and cost nothing', () => {
  test.each<[string, FakeReply, ErrorCode]>([
    ['AppView 502', { status: 502, body: { error: 'InternalServerError' } }, 'PLATFORM_UNAVAILABLE'],
    ['AppView 429', { status: 429, headers: { 'ratelimit-reset': '30' }, body: { error: 'RateLimitExceeded' } }, 'UPSTREAM_BLOCKED'],
    ['challenge page', { status: 403, body: '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body></body></html>' }, 'UPSTREAM_BLOCKED'],
    ['a sign-in page where JSON was expected', { status: 200, body: '<html><head><title>Sign in</title></head><body><form action="/login"></form></body></html>' }, 'UPSTREAM_BLOCKED'],
    ['another HTML page where JSON was expected (no evidence of a wall)', { status: 200, body: '<html><body>hello</body></html>' }, 'EXTRACTION_FAILED'],
    ['unexpected shape', { status: 200, body: { feed: 'nope' } }, 'EXTRACTION_FAILED'],
  ])('%s', async (_name, reply, code) => {
    h.fake.on(FEED, reply);
    const before = await balance(teamId);
    const entries = (await ledger(teamId)).length;
    const res = await get({ handle: HANDLE });
    expect503(res, code, reply);
    expect(await balance(teamId)).toBe(before);
    expect(await ledger(teamId)).toHaveLength(entries);
  });
});

test('an error is never cached: the next request with cache_max_age scrapes live, and only that success is cached', async () => {
  const handle = 'never-cached.bsky.social';
  h.fake.on(FEED, { status: 502, body: { error: 'InternalServerError' } });
  expect((await get({ handle })).status).toBe(503);
  h.fake.on(FEED, { body: fixture('microblog-a/feed-page1.json') });
  const live = await get({ handle, cache_max_age: '1d' });
  expect(live.status).toBe(200);
  expect(live.body.meta).toMatchObject({ cached: false, creditsCharged: 1 });
  const hit = await get({ handle, cache_max_age: '1d' });
  expect(hit.body.meta).toMatchObject({ cached: true, creditsCharged: 0 });
});
