import { fixture } from '../support/fake-upstream';
import { startHarness, type Harness } from '../support/harness';

const PATH = '/v1/microblog-a/user/posts';
const PROFILE = '/xrpc/app.bsky.actor.getProfile';
const FEED = '/xrpc/app.bsky.feed.getAuthorFeed';
const DID = 'did:plc:q7fx2mlw4ntkz3yahs6cvbdr';
const HANDLE = 'marlowe-tern.bsky.social';

let h: Harness;
let key: string;
beforeAll(async () => {
  h = await startHarness();
  ({ key } = await h.team(1000));
});
afterAll(async () => h.stop());
beforeEach(() => {
  h.fake.reset();
  h.fake.on(PROFILE, { body: fixture('microblog-a/profile.json') });
  h.fake.on(FEED, (req) => ({ body: fixture(req.query.cursor ? 'microblog-a/feed-page2.json' : 'microblog-a/feed-page1.json') }));
});

const get = (query: Record<string, string>) => h.call(PATH, query, { key });
const byId = (posts: any[], id: string) => posts.find((p) => p.id === id);

describe('page 1', () => {
  let body: any;
  let requests: typeof h.fake.requests;
  let feedSeenWhileProfilePending = false;
  beforeAll(async () => {
    h.fake.reset();
    // The profile answer waits for the feed request: only a scraper that issues both at once gets it.
    h.fake.on(PROFILE, async () => {
      for (let i = 0; i < 100 && h.fake.requestsTo(FEED).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      feedSeenWhileProfilePending = h.fake.requestsTo(FEED).length > 0;
      return { body: fixture('microblog-a/profile.json') };
    });
    h.fake.on(FEED, { body: fixture('microblog-a/feed-page1.json') });
    const res = await get({ handle: HANDLE });
    expect(res.status).toBe(200);
    body = res.body;
    requests = [...h.fake.requests];
  });

  test('asks the AppView for the Posts tab: both calls at once, with the right parameters', () => {
    expect(feedSeenWhileProfilePending).toBe(true);
    expect(requests).toHaveLength(2);
    const feedReq = requests.find((r) => r.path === FEED)!;
    expect(feedReq.query).toEqual({ actor: HANDLE, filter: 'posts_and_author_threads', includePins: 'true', limit: '30' });
    expect(requests.find((r) => r.path === PROFILE)!.query).toEqual({ actor: HANDLE });
    expect(feedReq.headers['user-agent']).toMatch(/Mozilla\/5\.0/);
  });

  test('envelope and user', () => {
    expect(body.meta).toMatchObject({ creditsCharged: 1, cached: false });
    expect(typeof body.meta.requestId).toBe('string');
    expect(Date.parse(body.data.fetchedAt)).not.toBeNaN();
    expect(body.data.user).toMatchObject({
      did: DID,
      handle: HANDLE,
      displayName: 'Marlowe Tern',
      url: `https://bsky.app/profile/${HANDLE}`,
      pronouns: 'they/them',
      isVerified: true,
      labels: [],
      followersCount: 1520,
      postsCount: 842,
    });
  });

  test('pinned post first, hidden-author repost and replies to others dropped', () => {
    const ids = body.data.posts.map((p: any) => p.id);
    expect(ids[0]).toBe('3lpinned2222a');
    expect(body.data.posts[0].isPinned).toBe(true);
    expect(body.data.posts.filter((p: any) => p.isPinned)).toHaveLength(1);
    expect(ids).not.toContain('3lhiddenpost1');
    expect(ids).not.toContain('3lreplyother1');
    expect(body.data.count).toBe(10);
    expect(body.data.posts).toHaveLength(10);
    expect(body.data.cursor).toBe('2026-09-21T10:00:00.000Z');
    expect(body.data.hasMore).toBe(true);
  });

  test('facets: mentions resolved from UTF-8 byte ranges, hashtags, links', () => {
    const pinned = body.data.posts[0];
    expect(pinned.mentions).toEqual([{ did: 'did:plc:z2m4k6p7q3r5s2t4u6v7w3x5', handle: 'quill-harbor.example.net' }]);
    expect(pinned.hashtags).toEqual(['tidepools']);
    expect(pinned.tags).toEqual(['marine']);
    expect(pinned.links).toEqual([{ url: 'https://example.org/tides', text: 'example.org/tides' }]);
    expect(pinned.media.images).toHaveLength(2);
    expect(pinned.media.images[0]).toEqual({
      url: expect.stringContaining('/feed_fullsize/'),
      thumbnailUrl: expect.stringContaining('/feed_thumbnail/'),
      alt: 'A tide pool at dusk',
      width: 2000,
      height: 1500,
    });
    expect(pinned.replySettings).toEqual({
      everybody: false,
      allow: [{ type: 'mentioned' }, { type: 'list', list: `at://${DID}/app.bsky.graph.list/3lfriends`, name: 'Tide friends' }],
      hiddenReplies: ['at://did:plc:z2m4k6p7q3r5s2t4u6v7w3x5/app.bsky.feed.post/3lhiddenreply'],
    });
  });

  test('own thread: positions derived, reply context kept', () => {
    const [t1, t2, t3] = ['3lthread0001a', '3lthread0002a', '3lthread0003a'].map((id) => byId(body.data.posts, id));
    expect([t1.threadPostIndex, t2.threadPostIndex, t3.threadPostIndex]).toEqual([1, 2, 3]);
    expect([t1.threadPostCount, t2.threadPostCount, t3.threadPostCount]).toEqual([3, 3, 3]);
    expect(t1.isReply).toBe(false);
    expect(t3.isReply).toBe(true);
    expect(t3.reply.parent).toMatchObject({ id: '3lthread0002a', author: { did: DID } });
    expect(t3.reply.root).toMatchObject({ id: '3lthread0001a' });
    expect(t3.reply.grandparentAuthor).toMatchObject({ did: DID });
    expect(t1.media.video).toEqual({
      playlistUrl: expect.stringMatching(/playlist\.m3u8$/),
      thumbnailUrl: expect.stringMatching(/thumbnail\.jpg$/),
      alt: 'Waves',
      width: 1080,
      height: 1920,
      isGif: false,
    });
    expect(byId(body.data.posts, '3lfeedshare1a').threadPostIndex).toBeNull();
  });

  test('repost: the original post with who reposted it and when', () => {
    const rp = byId(body.data.posts, '3lotherpost1a');
    expect(rp.isRepost).toBe(true);
    expect(rp.author.handle).toBe('quill-harbor.example.net');
    expect(rp.repostedBy).toMatchObject({ did: DID, handle: HANDLE });
    expect(rp.repostedAt).toBe('2026-09-28T09:00:00.000Z');
    expect(rp.media.link).toEqual({
      url: 'https://news.example.com/erosion',
      title: 'Coastal erosion, explained',
      description: 'Why beaches move.',
      thumbnailUrl: expect.stringContaining('bafkreithumb'),
    });
    const own = byId(body.data.posts, '3lfeedshare1a');
    expect([own.isRepost, own.repostedBy, own.repostedAt]).toEqual([false, null, null]);
  });

  test('quotes: with media, deleted, and by an author hidden from logged-out viewers', () => {
    const q = byId(body.data.posts, '3lquotepost1a');
    expect(q.quote).toMatchObject({ id: '3lotherpost1a', text: 'Worth reading on coastal erosion', author: { handle: 'quill-harbor.example.net' }, unavailable: null });
    expect(q.quote.media.link.url).toBe('https://news.example.com/erosion');
    expect(q.media.images[0].alt).toBe('Beach');
    expect(byId(body.data.posts, '3lquotegone1a').quote).toEqual({ uri: expect.stringContaining('3ldeleted0001'), unavailable: 'notFound' });
    expect(byId(body.data.posts, '3lquotehid01a').quote).toEqual({ uri: expect.stringContaining('3lhiddenpost1'), unavailable: 'hidden' });
  });

  test('embedded feed, labels, langs and via', () => {
    expect(byId(body.data.posts, '3lfeedshare1a').embeddedRecord).toMatchObject({ type: 'feed', name: 'Tide Watch', likeCount: 42, creator: { did: DID } });
    const l = byId(body.data.posts, '3llabelled01a');
    expect(l.labels).toEqual(['graphic-media']);
    expect(l.langs).toEqual(['en', 'fr']);
    expect(l.via).toBe('Tidal Client');
  });
});

test('page 2: the pinned post is not repeated, pins are not asked for, the last page has no cursor', async () => {
  const res = await get({ handle: HANDLE, cursor: '2026-09-21T10:00:00.000Z' });
  expect(res.status).toBe(200);
  expect(res.body.data.posts.map((p: any) => p.id)).toEqual(['3lolderpost1a']);
  expect(res.body.data).toMatchObject({ count: 1, cursor: null, hasMore: false });
  expect(h.fake.requestsTo(FEED)[0]!.query).toMatchObject({ includePins: 'false', cursor: '2026-09-21T10:00:00.000Z' });
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

describe('upstream failures map to 503 with Retry-After', () => {
  test.each([
    ['AppView 502', { status: 502, body: { error: 'InternalServerError' } }, 'PLATFORM_UNAVAILABLE'],
    ['AppView 429', { status: 429, headers: { 'ratelimit-reset': '30' }, body: { error: 'RateLimitExceeded' } }, 'UPSTREAM_BLOCKED'],
    ['challenge page', { status: 403, body: '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body></body></html>' }, 'UPSTREAM_BLOCKED'],
    ['HTML where JSON was expected', { status: 200, body: '<html><body>hello</body></html>' }, 'UPSTREAM_BLOCKED'],
    ['unexpected shape', { status: 200, body: { feed: 'nope' } }, 'EXTRACTION_FAILED'],
  ])('%s', async (_name, reply, code) => {
    h.fake.on(FEED, reply);
    const res = await get({ handle: HANDLE });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe(code);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});
