import { logger } from '../../../shared/runtime/log';
import type { ParamsOf } from '../../../shared/operations';
import type { Post, UserPostsData } from '../../../shared/platforms/microblog-a/resources';
import { scrapeUserPosts } from '../../../shared/platforms/microblog-a/scrape';
import { ScrapeContext } from '../../../shared/scrape/http';
import { FakeUpstream, fixture } from '../../../dev/upstream/fake';
import { rejection } from '../../support/rejection';

/**
 * microblog-a user posts (operation 1): the scraper (client, classifier, mappers) against a fake
 * AppView serving crafted fixtures: a profile, a first feed page with every kind of item (pinned
 * post, own thread, reposts, quotes, replies to others, a hidden author), and a last page.
 * Through the gateway: test/gateway/microblog-a-user-posts.test.ts; the response schema: test/contract.
 */
const PROFILE = '/xrpc/app.bsky.actor.getProfile';
const FEED = '/xrpc/app.bsky.feed.getAuthorFeed';
const DID = 'did:plc:q7fx2mlw4ntkz3yahs6cvbdr';
const HANDLE = 'marlowe-tern.bsky.social';

const fake = new FakeUpstream();
const run = (params: ParamsOf<'microblog-a-user-posts'>): Promise<UserPostsData> => scrapeUserPosts(params, ScrapeContext.withBudget(5000), logger);
const byId = (posts: Post[], id: string): Post => {
  const p = posts.find((x) => x.id === id);
  if (!p) throw new Error(`no post ${id}`);
  return p;
};

function publicAccountRoutes() {
  fake.on(PROFILE, { body: fixture('microblog-a/profile.json') });
  fake.on(FEED, (req) => ({ body: fixture(req.query.cursor ? 'microblog-a/feed-page2.json' : 'microblog-a/feed-page1.json') }));
}

beforeAll(async () => {
  await fake.start();
  process.env.UPSTREAM_MICROBLOG_A_URL = fake.url;
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.reset();
  publicAccountRoutes();
});

describe('page 1', () => {
  let page: UserPostsData;
  beforeEach(async () => {
    page = await run({ handle: HANDLE });
  });

  test('asks the AppView for the Posts tab: both calls at once, with the right parameters', async () => {
    fake.reset();
    // The profile answer waits for the feed request: only a scraper that issues both at once gets it.
    let feedSeenWhileProfilePending = false;
    fake.on(PROFILE, async () => {
      for (let i = 0; i < 100 && fake.requestsTo(FEED).length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      feedSeenWhileProfilePending = fake.requestsTo(FEED).length > 0;
      return { body: fixture('microblog-a/profile.json') };
    });
    fake.on(FEED, { body: fixture('microblog-a/feed-page1.json') });
    await run({ handle: HANDLE });
    expect(feedSeenWhileProfilePending).toBe(true);
    expect(fake.requests).toHaveLength(2);
    const feedReq = fake.requestsTo(FEED)[0]!;
    expect(feedReq.query).toEqual({ actor: HANDLE, filter: 'posts_and_author_threads', includePins: 'true', limit: '30' });
    expect(fake.requestsTo(PROFILE)[0]!.query).toEqual({ actor: HANDLE });
    expect(feedReq.headers['user-agent']).toMatch(/Mozilla\/5\.0/);
  });

  test('user', () => {
    expect(page.user).toMatchObject({
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
    const ids = page.posts.map((p) => p.id);
    expect(ids[0]).toBe('3lpinned2222a');
    expect(page.posts[0]!.isPinned).toBe(true);
    expect(page.posts.filter((p) => p.isPinned)).toHaveLength(1);
    expect(ids).not.toContain('3lhiddenpost1');
    expect(ids).not.toContain('3lreplyother1');
    expect(page.count).toBe(10);
    expect(page.posts).toHaveLength(10);
    expect(page.cursor).toBe('2026-09-21T10:00:00.000Z');
    expect(page.hasMore).toBe(true);
  });

  test('facets: mentions resolved from UTF-8 byte ranges, hashtags, links', () => {
    const pinned = page.posts[0]!;
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
    const [t1, t2, t3] = ['3lthread0001a', '3lthread0002a', '3lthread0003a'].map((id) => byId(page.posts, id)) as [Post, Post, Post];
    expect([t1.threadPostIndex, t2.threadPostIndex, t3.threadPostIndex]).toEqual([1, 2, 3]);
    expect([t1.threadPostCount, t2.threadPostCount, t3.threadPostCount]).toEqual([3, 3, 3]);
    expect(t1.isReply).toBe(false);
    expect(t3.isReply).toBe(true);
    expect(t3.reply?.parent).toMatchObject({ id: '3lthread0002a', author: { did: DID } });
    expect(t3.reply?.root).toMatchObject({ id: '3lthread0001a' });
    expect(t3.reply?.grandparentAuthor).toMatchObject({ did: DID });
    expect(t1.media.video).toEqual({
      playlistUrl: expect.stringMatching(/playlist\.m3u8$/),
      thumbnailUrl: expect.stringMatching(/thumbnail\.jpg$/),
      alt: 'Waves',
      width: 1080,
      height: 1920,
      isGif: false,
    });
    expect(byId(page.posts, '3lfeedshare1a').threadPostIndex).toBeNull();
  });

  test('repost: the original post with who reposted it and when', () => {
    const rp = byId(page.posts, '3lotherpost1a');
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
    const own = byId(page.posts, '3lfeedshare1a');
    expect([own.isRepost, own.repostedBy, own.repostedAt]).toEqual([false, null, null]);
  });

  test('quotes: with media, deleted, and by an author hidden from logged-out viewers', () => {
    const q = byId(page.posts, '3lquotepost1a');
    expect(q.quote).toMatchObject({ id: '3lotherpost1a', text: 'Worth reading on coastal erosion', author: { handle: 'quill-harbor.example.net' }, unavailable: null });
    expect(q.quote && 'media' in q.quote ? q.quote.media.link?.url : undefined).toBe('https://news.example.com/erosion');
    expect(q.media.images[0]!.alt).toBe('Beach');
    expect(byId(page.posts, '3lquotegone1a').quote).toEqual({ uri: expect.stringContaining('3ldeleted0001'), unavailable: 'notFound' });
    expect(byId(page.posts, '3lquotehid01a').quote).toEqual({ uri: expect.stringContaining('3lhiddenpost1'), unavailable: 'hidden' });
  });

  test('embedded feed, labels, langs and via', () => {
    expect(byId(page.posts, '3lfeedshare1a').embeddedRecord).toMatchObject({ type: 'feed', name: 'Tide Watch', likeCount: 42, creator: { did: DID } });
    const l = byId(page.posts, '3llabelled01a');
    expect(l.labels).toEqual(['graphic-media']);
    expect(l.langs).toEqual(['en', 'fr']);
    expect(l.via).toBe('Tidal Client');
  });
});

test('page 2: the pinned post is not repeated, pins are not asked for, the last page has no cursor', async () => {
  const page = await run({ handle: HANDLE, cursor: '2026-09-21T10:00:00.000Z' });
  expect(page.posts.map((p) => p.id)).toEqual(['3lolderpost1a']);
  expect(page).toMatchObject({ count: 1, cursor: null, hasMore: false });
  expect(fake.requestsTo(FEED)[0]!.query).toMatchObject({ includePins: 'false', cursor: '2026-09-21T10:00:00.000Z' });
});

test('userId goes to the AppView as the DID', async () => {
  await run({ userId: DID });
  expect(fake.requestsTo(FEED)[0]!.query.actor).toBe(DID);
  expect(fake.requestsTo(PROFILE)[0]!.query.actor).toBe(DID);
});

describe('answers that are not a page', () => {
  test.each([
    ['unknown', 'microblog-a/error-not-found.json'],
    ['suspended', 'microblog-a/error-takedown.json'],
    ['deactivated', 'microblog-a/error-deactivated.json'],
  ])('%s account -> NOT_FOUND', async (_name, file) => {
    fake.on(PROFILE, { status: 400, body: fixture(file) });
    fake.on(FEED, { status: 400, body: fixture('microblog-a/error-not-found.json') });
    await rejection(run({ handle: HANDLE }), 'NOT_FOUND');
  });

  test('an account that asks to be hidden from logged-out viewers -> NOT_FOUND', async () => {
    fake.on(PROFILE, { body: fixture('microblog-a/profile-hidden.json') });
    await rejection(run({ handle: 'shy-lantern.bsky.social' }), 'NOT_FOUND');
  });

  test('a cursor the AppView refuses -> BAD_REQUEST; the same answer without a cursor is not a cursor problem', async () => {
    fake.on(FEED, { status: 400, body: fixture('microblog-a/error-bad-cursor.json') });
    await rejection(run({ handle: HANDLE, cursor: 'garbage' }), 'BAD_REQUEST');
    await rejection(run({ handle: HANDLE }), 'EXTRACTION_FAILED');
  });

  test('a profile without a did or a feed without a list -> EXTRACTION_FAILED', async () => {
    const { did: _did, ...noDid } = fixture('microblog-a/profile.json') as Record<string, unknown>;
    fake.on(PROFILE, { body: noDid });
    await rejection(run({ handle: HANDLE }), 'EXTRACTION_FAILED');
    publicAccountRoutes();
    fake.on(FEED, { body: { feed: 'nope' } });
    await rejection(run({ handle: HANDLE }), 'EXTRACTION_FAILED');
  });
});
