import { logger } from '../../../shared/runtime/log';
import type { ParamsOf } from '../../../shared/operations';
import type { Post, UserPostsData } from '../../../shared/platforms/microblog-c/resources';
import { MAX_UPSTREAM_PAGES, scrapeUserPosts } from '../../../shared/platforms/microblog-c/scrape';
import { startCold } from '../../../shared/scrape/warm';
import { WEB_ORIGIN, postUrl, profileUrl } from '../../../shared/platforms/microblog-c/site';
import { ScrapeContext } from '../../../shared/scrape/http';
import { FakeUpstream, fixture, fixtureText, type FakeReply } from '../../../dev/upstream/fake';
import { rejection } from '../../support/rejection';

/**
 * microblog-c user posts (operation 9): the scraper (client, classifier, mappers) against a fake
 * upstream serving crafted fixtures: an account, a 20-item timeline page with every kind of post,
 * the pinned list, a last page, and the upstream's error answers. Through the gateway:
 * test/gateway/microblog-c-user-posts.test.ts; the response schema: test/contract.
 */
interface RawStatus {
  id: string;
  created_at: string;
  content: string;
  account: { id: string; acct: string };
  reblog: RawStatus | null;
  quote: RawStatus | null;
  in_reply_to_id: string | null;
  in_reply_to_account_id: string | null;
  mentions: { id: string; acct: string }[];
}
type Page = UserPostsData;

const fake = new FakeUpstream();
const account = fixture('microblog-c/account.json') as { id: string; acct: string; avatar: string };
const suspended = fixture('microblog-c/account-suspended.json') as { id: string; acct: string };
const page1 = fixture('microblog-c/statuses-page1.json') as RawStatus[];
const page2 = fixture('microblog-c/statuses-page2.json') as RawStatus[];
const pinned = fixture('microblog-c/statuses-pinned.json') as RawStatus[];
const notFoundBody = fixture('microblog-c/error-not-found.json');
const unauthenticatedBody = fixture('microblog-c/error-unauthenticated.json');
const challenge = fixtureText('microblog-c/cloudflare-challenge.html');

const ID = account.id;
const LOOKUP = '/api/v1/accounts/lookup';
const ACCOUNT = `/api/v1/accounts/${ID}`;
const STATUSES = `/api/v1/accounts/${ID}/statuses`;
const lastOf = <T>(xs: T[]): T => xs[xs.length - 1] as T;
const PAGE1_NEXT = lastOf(page1).id;

const statusesLink = (q: string) => `<${WEB_ORIGIN}${STATUSES}?exclude_replies=true&limit=20&${q}>`;
const linkNextPrev = (next: string, prev: string) => `${statusesLink(`max_id=${next}`)}; rel="next", ${statusesLink(`min_id=${prev}`)}; rel="prev"`;

/**
 * The account's timeline as the upstream serves it: newest first, `max_id` exclusive, `limit` items,
 * a `Link: rel="next"` when the page is full (as Mastodon's StatusesController does).
 */
function serveTimeline(timeline: RawStatus[]): (req: { query: Record<string, string> }) => FakeReply {
  return (req) => {
    const max = req.query.max_id === undefined ? null : BigInt(req.query.max_id);
    const limit = Number(req.query.limit ?? 20);
    const items = timeline.filter((s) => max === null || BigInt(s.id) < max).slice(0, limit);
    if (items.length === 0) return { body: [] };
    const next = items.length === limit ? linkNextPrev(lastOf(items).id, items[0]!.id) : `${statusesLink(`min_id=${items[0]!.id}`)}; rel="prev"`;
    return { body: items, headers: { link: next } };
  };
}

/**
 * The upstream as it behaves for a public account: its timeline is page 1 (20 items, two of them
 * replies), then page 2 (3 items) and the older pinned post; the pinned list holds two posts.
 */
const olderPinned = pinned[1]!;
const fullTimeline = [...page1, ...page2, olderPinned];
function publicAccountRoutes(timeline: RawStatus[] = fullTimeline, pinnedList: RawStatus[] = pinned) {
  fake.on(LOOKUP, (req) => (req.query.acct === account.acct.toLowerCase() ? { body: account } : { status: 404, body: notFoundBody }));
  fake.on(ACCOUNT, { body: account });
  const timelineReply = serveTimeline(timeline);
  fake.on(STATUSES, (req): FakeReply => (req.query.pinned === 'true' ? { body: pinnedList } : timelineReply(req)));
}

/** The post id a timeline item stands for: the original of a repost. */
const postIdOf = (s: RawStatus) => (s.reblog ?? s).id;

/** `n` statuses cloned from a plain fixture post, with ids descending from `top`; `reply` makes them self-replies. */
function statuses(n: number, top: bigint, reply = false): RawStatus[] {
  const model = page1.find((s) => s.content.includes('Calm seas'))!;
  return Array.from({ length: n }, (_, k) => {
    const id = String(top - BigInt(k) * 65_536n);
    return { ...model, id, in_reply_to_id: reply ? String(top) : null, in_reply_to_account_id: reply ? ID : null };
  });
}

const run = (params: ParamsOf<'microblog-c-user-posts'>): Promise<Page> => scrapeUserPosts(params, ScrapeContext.withBudget(5000), logger);


const raw = (xs: RawStatus[], needle: string): RawStatus => {
  const s = xs.find((x) => (x.reblog ?? x).content.includes(needle));
  if (!s) throw new Error(`no fixture status containing ${needle}`);
  return s;
};
const post = (posts: Post[], needle: string): Post => {
  const p = posts.find((x) => x.text?.includes(needle));
  if (!p) throw new Error(`no post containing ${needle}`);
  return p;
};

// -------------------------------------------------------------------------------------------------
beforeAll(async () => {
  await fake.start();
  process.env.UPSTREAM_MICROBLOG_C_URL = fake.url;
});
afterAll(() => fake.stop());
beforeEach(() => {
  fake.reset();
  startCold('microblog-c');
  publicAccountRoutes();
});

describe('microblog-c user posts: page 1', () => {
  let page: Page;
  beforeEach(async () => {
    page = await run({ handle: 'harborlight' });
  });

  it('maps the account', () => {
    expect(page.user).toMatchObject({
      id: ID,
      handle: 'HarborLight',
      displayName: 'Harbor Light News',
      url: profileUrl('HarborLight'),
      avatarUrl: account.avatar,
      headerUrl: '',
      website: 'HarborLightNews.com',
      websiteUrl: 'https://HarborLightNews.com',
      location: 'Portland, Maine',
      isVerified: true,
      isPremium: true,
      isPrivate: false,
      isBot: false,
      isGroup: false,
      isTvAccount: true,
      acceptsMessages: false,
      isDiscoverable: null,
      followerCount: 48213,
      followingCount: 42,
      postCount: 5120,
      createdAt: '2022-02-20T14:03:11.512Z',
      lastPostDate: '2026-06-11',
    });
    expect(page.user.bio).toBe(
      'Tide tables, ferry news and lighthouse stories from @tidewriter & friends.\nWeekly letter: https://harborlight.example/letter\n\n#HarborDays since 2022',
    );
    expect(page.user.bioMentions).toEqual([{ handle: 'tidewriter', url: profileUrl('tidewriter') }]);
    expect(page.user.bioLinks).toEqual(['https://harborlight.example/letter']);
    expect(page.user.emojis).toEqual([expect.objectContaining({ shortcode: 'anchor', url: expect.stringMatching(/anchor\.png$/) })]);
  });

  it('holds 20 posts, newest first, filled from the next upstream page where replies were left out', () => {
    // Upstream page 1 is 20 items, two of them replies: two posts come from upstream page 2.
    expect(page.count).toBe(20);
    expect(page.posts).toHaveLength(20);
    const expected = fullTimeline.filter((s) => s.in_reply_to_id === null).slice(0, 20);
    expect(page.posts.map((p) => p.id)).toEqual(expected.map(postIdOf));
    expect(expected.slice(-2)).toEqual(page2.slice(0, 2));
    const times = page.posts.map((p) => Date.parse(p.repostedAt ?? p.createdAt ?? ''));
    expect(times).toEqual([...times].sort((x, y) => y - x));
  });

  it('flags a pinned post in its chronological place, and puts nothing in front', () => {
    // The newer pinned post is also the newest timeline item; the older one is further down.
    expect(page1[0]!.id).toBe(pinned[0]!.id);
    expect(page.posts.map((p) => p.isPinned)).toEqual(page.posts.map((_, i) => i === 0));
    expect(page.posts.some((p) => p.id === olderPinned.id)).toBe(false);
    const ids = page.posts.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('pages after the last post: the repost id of its timeline item, not the original post id', () => {
    const lastItem = page2[1]!;
    expect(lastItem.reblog).not.toBeNull();
    expect(page.cursor).toBe(lastItem.id);
    expect(lastOf(page.posts).id).toBe(lastItem.reblog!.id);
    expect(page.hasMore).toBe(true);
  });

  it('asks upstream for 20 items without replies, then the next 20 from the Link, the pinned list, and sends the profile as Referer', () => {
    expect(fake.requestsTo(LOOKUP).map((r) => r.query)).toEqual([{ acct: 'harborlight' }]);
    const statuses = fake.requestsTo(STATUSES);
    const timeline = statuses.filter((r) => r.query.pinned === undefined);
    expect(timeline.map((r) => r.query)).toEqual([
      { exclude_replies: 'true', with_muted: 'true', limit: '20' },
      { exclude_replies: 'true', with_muted: 'true', limit: '20', max_id: PAGE1_NEXT },
    ]);
    expect(statuses.filter((r) => r.query.pinned === 'true').map((r) => r.query)).toEqual([{ pinned: 'true', with_muted: 'true' }]);
    expect(timeline[0]!.headers.referer).toBe(profileUrl('HarborLight'));
    expect(timeline[0]!.headers.accept).toContain('application/json');
  });

  it('turns content HTML into plain text with line breaks, mentions, hashtags as written and links', () => {
    const p = post(page.posts, 'Fog rolled in');
    expect(p.text).toBe(
      'Fog rolled in at dawn.\nBoats are staying in with @mesaranger until noon.\n\nTide chart: https://tides.example.org/portland/june?day=11 #HarborDays #FogWatch',
    );
    expect(p.mentions).toEqual([{ id: raw(page1, 'Fog rolled in').mentions[0]!.id, handle: 'mesaranger', url: profileUrl('mesaranger') }]);
    // tags[] spells them "harbordays" / "FOGWATCH"; the text's spelling wins.
    expect(p.hashtags).toEqual(['HarborDays', 'FogWatch']);
    expect(p.links).toEqual(['https://tides.example.org/portland/june?day=11']);
    expect(p.url).toBe(postUrl('HarborLight', p.id));
    expect(p.author).toEqual({
      id: ID,
      handle: 'HarborLight',
      displayName: 'Harbor Light News',
      url: profileUrl('HarborLight'),
      avatarUrl: expect.stringMatching(/^https:\/\//),
      isVerified: true,
      isPremium: true,
      followerCount: 48213,
    });
    expect([p.replyCount, p.repostCount, p.likeCount]).toEqual([12, 30, 150]);
    expect(p.language).toBe('en');
    expect(p.visibility).toBe('public');
    expect(p.isReply).toBe(false);
    expect(p.repostedBy).toBeNull();
    expect(p.repostedAt).toBeNull();
    expect(post(page.posts, 'Market day').text).toBe('Market day at the docks <3 — see you there "early".');
  });

  it('removes the quote marker and returns the quoted post', () => {
    const src = raw(page1, 'quote-inline');
    const p = page.posts.find((x) => x.id === src.id)!;
    expect(p.text).toBe('Welcome aboard! @tidewriter');
    expect(p.text).not.toContain('RT:');
    expect(p.links).toEqual([]);
    expect(p.quotedPost).toMatchObject({
      id: src.quote!.id,
      author: { handle: 'tidewriter', displayName: 'Tide Writer' },
      text: 'New lighthouse keeper starts Monday #Lighthouses https://news.example.com/keeper-starts-monday',
      hashtags: ['Lighthouses'],
      links: ['https://news.example.com/keeper-starts-monday'],
      card: { url: 'https://news.example.com/keeper-starts-monday', title: 'Keeper starts Monday', type: 'link' },
      quotedPost: null,
      isPinned: false,
    });
  });

  it('returns a repost as the original post with repostedBy and repostedAt', () => {
    const src = raw(page1, 'Sunrise over the mesa');
    const p = page.posts.find((x) => x.id === src.reblog!.id)!;
    expect(p.text).toBe('Sunrise over the mesa.');
    expect(p.author.handle).toBe('mesaranger');
    expect(p.url).toBe(postUrl('mesaranger', src.reblog!.id));
    expect(p.createdAt).toBe(src.reblog!.created_at);
    expect([p.replyCount, p.repostCount, p.likeCount]).toEqual([9, 60, 700]);
    expect(p.repostedBy).toEqual({
      id: ID,
      handle: 'HarborLight',
      displayName: 'Harbor Light News',
      url: profileUrl('HarborLight'),
      avatarUrl: expect.stringMatching(/^https:\/\//),
    });
    expect(p.repostedAt).toBe(src.created_at);
    expect(p.media).toEqual([expect.objectContaining({ type: 'image', width: 1200, height: 800, altText: 'Orange sky above red rocks', durationSeconds: null })]);
    expect(page.posts.some((x) => x.id === src.id)).toBe(false);
  });

  it('maps a poll', () => {
    expect(post(page.posts, 'Which ferry').poll).toEqual({
      id: '88231',
      options: [
        { title: 'Early ferry', votesCount: 200 },
        { title: 'Late ferry', votesCount: 121 },
      ],
      votesCount: 321,
      votersCount: 321,
      isMultiple: false,
      isExpired: false,
      expiresAt: '2026-06-12T16:00:00.000Z',
    });
  });

  it('maps video, GIF (gifv) and image media', () => {
    const [video] = post(page.posts, 'Storm footage').media;
    expect(video).toEqual({
      id: expect.any(String),
      type: 'video',
      url: expect.stringMatching(/\.mp4$/),
      previewUrl: expect.stringMatching(/\.jpg$/),
      width: 1920,
      height: 1080,
      durationSeconds: 73.540133,
      altText: null,
    });
    expect(post(page.posts, 'waiting for the ferry').media).toEqual([
      expect.objectContaining({ type: 'gif', width: 270, height: 480, durationSeconds: 6 }),
    ]);
    expect(post(page.posts, 'Two views').media).toEqual([
      expect.objectContaining({ type: 'image', width: 651, height: 452, altText: 'The breakwater at low tide', durationSeconds: null }),
      expect.objectContaining({ type: 'image', width: 1290, height: 441, altText: null }),
    ]);
    // A TV programme's attachment is its poster picture.
    expect(post(page.posts, 'Harbor Tonight').media).toEqual([expect.objectContaining({ type: 'image', url: expect.stringMatching(/\.jpg$/), durationSeconds: null })]);
  });

  it('keeps group posts with their visibility and group permalink', () => {
    const p = post(page.posts, 'Tomatoes are in');
    expect(p.visibility).toBe('group');
    expect(p.url).toBe(`${WEB_ORIGIN}/group/gardengrowers/posts/${p.id}`);
  });

  it('marks sponsored posts and keeps their card', () => {
    const src = page1.find((s) => (s as unknown as { sponsored: boolean }).sponsored)!;
    const p = page.posts.find((x) => x.id === src.id)!;
    expect(p.isSponsored).toBe(true);
    expect(p.text).toBeNull();
    expect(p.language).toBeNull();
    expect(p.visibility).toBe('unlisted');
    expect(p.card?.title).toBe('Support independent harbor news');
    expect(p.links).toEqual([p.card!.url]);
    expect(page.posts.filter((x) => x.isSponsored)).toHaveLength(1);
  });

  it('gives editedAt for an edited post and null otherwise', () => {
    expect(post(page.posts, 'Correction:').editedAt).toBe('2026-06-09T14:07:45.164Z');
    expect(post(page.posts, 'Calm seas').editedAt).toBeNull();
  });

  it('turns withheld counts (-1) into null', () => {
    const p = post(page.posts, 'Counts for this one are hidden');
    expect([p.replyCount, p.repostCount, p.likeCount]).toEqual([null, null, null]);
  });

  it('maps a card', () => {
    expect(post(page.posts, 'harbor documentary').card).toEqual({
      url: 'https://video.example.com/v9xyz-harbor-documentary.html',
      type: 'video',
      title: 'Harbor Life: a documentary',
      description: 'Forty minutes on the water.',
      imageUrl: expect.stringMatching(/c0ffee00c0ffee00\.jpg$/),
      providerName: 'Video.example',
      providerUrl: 'https://video.example.com/',
      authorName: 'Harbor Light News',
      authorUrl: 'https://video.example.com/c/HarborLight',
      width: 1920,
      height: 1080,
    });
  });

  it('leaves out replies: to other accounts and the account\'s own thread continuations', () => {
    expect(page.posts.some((p) => p.text?.includes('Part two of the story'))).toBe(false);
    expect(page.posts.some((p) => p.text?.includes('thanks, will do'))).toBe(false);
    expect(page.posts.filter((p) => p.isReply)).toEqual([]);
  });

  it('maps sensitive posts with their spoiler text, and an empty spoiler to null', () => {
    expect(post(page.posts, 'wreck site')).toMatchObject({ isSensitive: true, spoilerText: 'shipwreck' });
    expect(post(page.posts, 'Calm seas')).toMatchObject({ isSensitive: false, spoilerText: null });
  });
});

describe('microblog-c user posts: paging', () => {
  /** Every page from the first, following the cursors; fails on a page that is short but not the last. */
  async function walk(params: { handle: string } = { handle: 'harborlight' }): Promise<Page[]> {
    const pages: Page[] = [];
    let cursor: string | undefined;
    for (let n = 0; n < 50; n++) {
      const page = await run(cursor === undefined ? params : { ...params, cursor });
      pages.push(page);
      if (!page.hasMore) return pages;
      expect(page.count).toBe(20);
      cursor = page.cursor!;
    }
    throw new Error('no last page after 50 pages');
  }

  it('passes the cursor as max_id, reads the pinned list again, flags the older pinned post in place, and ends with cursor null', async () => {
    const page = await run({ handle: 'harborlight', cursor: PAGE1_NEXT });
    const statuses = fake.requestsTo(STATUSES);
    expect(statuses.filter((r) => !r.query.pinned).map((r) => r.query)).toEqual([{ exclude_replies: 'true', with_muted: 'true', limit: '20', max_id: PAGE1_NEXT }]);
    expect(statuses.filter((r) => r.query.pinned === 'true')).toHaveLength(1);
    expect(page.posts.map((p) => p.id)).toEqual([page2[0]!.id, page2[1]!.reblog!.id, page2[2]!.id, olderPinned.id]);
    expect(page.posts[1]!.repostedBy?.handle).toBe('HarborLight');
    expect(page.posts.map((p) => p.isPinned)).toEqual([false, false, false, true]);
    expect(page).toMatchObject({ count: 4, cursor: null, hasMore: false });
  });

  it('walking every page gives each post once, in order, with no reply, and 20 per page but the last', async () => {
    const pages = await walk();
    expect(pages.map((p) => p.count)).toEqual([20, 2]);
    const ids = pages.flatMap((p) => p.posts.map((x) => x.id));
    expect(ids).toEqual(fullTimeline.filter((s) => s.in_reply_to_id === null).map(postIdOf));
    expect(pages.flatMap((p) => p.posts).filter((p) => p.isReply)).toEqual([]);
  });

  it('fills a page across several upstream pages when replies fill whole upstream pages', async () => {
    // 5 posts, then 45 self-replies (a long thread), then 30 posts: page 1 needs four upstream pages.
    const top = BigInt(page1[0]!.id);
    const timeline = [...statuses(5, top), ...statuses(45, top - 5n * 65_536n, true), ...statuses(30, top - 50n * 65_536n)];
    publicAccountRoutes(timeline, []);
    const pages = await walk();
    expect(pages.map((p) => p.count)).toEqual([20, 15]);
    expect(fake.requestsTo(STATUSES).filter((r) => !r.query.pinned)).toHaveLength(4 + 1);
    const expected = timeline.filter((s) => s.in_reply_to_id === null).map((s) => s.id);
    expect(pages.flatMap((p) => p.posts.map((x) => x.id))).toEqual(expected);
    // Page 1 stopped inside upstream page 4: the cursor is its last post, not the end of that upstream page.
    expect(pages[0]!.cursor).toBe(expected[19]);
  });

  it(`reads at most ${MAX_UPSTREAM_PAGES} upstream pages: a short page whose cursor goes on where it stopped`, async () => {
    const top = BigInt(page1[0]!.id);
    const n = MAX_UPSTREAM_PAGES * 20;
    const timeline = [...statuses(1, top), ...statuses(n + 10, top - 65_536n, true), ...statuses(3, top - BigInt(n + 11) * 65_536n)];
    publicAccountRoutes(timeline, []);
    const first = await run({ handle: 'harborlight' });
    expect(fake.requestsTo(STATUSES).filter((r) => !r.query.pinned)).toHaveLength(MAX_UPSTREAM_PAGES);
    expect(first.posts.map((p) => p.id)).toEqual([timeline[0]!.id]);
    expect(first.cursor).toBe(timeline[n - 1]!.id);
    expect(first.hasMore).toBe(true);
    const second = await run({ handle: 'harborlight', cursor: first.cursor! });
    expect(second.posts.map((p) => p.id)).toEqual(timeline.slice(-3).map((s) => s.id));
    expect(second).toMatchObject({ cursor: null, hasMore: false });
  });

  it('asks for no further upstream page when the deadline is near: a short page whose cursor goes on', async () => {
    const page = await scrapeUserPosts({ handle: 'harborlight' }, ScrapeContext.withBudget(2_500), logger);
    expect(fake.requestsTo(STATUSES).filter((r) => !r.query.pinned)).toHaveLength(1);
    expect(page).toMatchObject({ count: 18, cursor: PAGE1_NEXT, hasMore: true });
  });

  it('a 20th post followed only by replies on the last upstream page ends the list (cursor null)', async () => {
    const top = BigInt(page1[0]!.id);
    // Upstream page 1: 10 posts and 10 replies (full, Link next); page 2: 10 posts and 5 replies (the last).
    const timeline = [...statuses(10, top), ...statuses(10, top - 10n * 65_536n, true), ...statuses(10, top - 20n * 65_536n), ...statuses(5, top - 30n * 65_536n, true)];
    publicAccountRoutes(timeline, []);
    const page = await run({ handle: 'harborlight' });
    expect(fake.requestsTo(STATUSES).filter((r) => !r.query.pinned)).toHaveLength(2);
    expect(page).toMatchObject({ count: 20, cursor: null, hasMore: false });
  });

  it('a pinned reply is still a reply: left out', async () => {
    const selfReply = page1.find((s) => s.in_reply_to_id !== null && s.in_reply_to_account_id === ID)!;
    publicAccountRoutes(fullTimeline, [selfReply]);
    const pages = await walk();
    expect(pages.flatMap((p) => p.posts).some((p) => p.id === selfReply.id || p.isPinned)).toBe(false);
  });

  it('without a Link header, a full upstream page has more and a short one is the end', async () => {
    const withoutLink = serveTimeline(fullTimeline);
    fake.on(STATUSES, (req): FakeReply => (req.query.pinned ? { body: [] } : { body: withoutLink(req).body }));
    const first = await run({ handle: 'harborlight' });
    expect(first).toMatchObject({ cursor: page2[1]!.id, hasMore: true, count: 20 });
    const second = await run({ handle: 'harborlight', cursor: first.cursor! });
    expect(second).toMatchObject({ cursor: null, hasMore: false, count: 2 });
  });

  it('an account with no posts gives an empty last page', async () => {
    fake.on(STATUSES, { body: [] });
    expect(await run({ handle: 'harborlight' })).toMatchObject({ posts: [], count: 0, cursor: null, hasMore: false });
  });

  it('by userId reads the account by id, with all page-1 calls issued at once', async () => {
    // Each answer waits until all three requests have arrived: only a scraper that issues them
    // together gets its answers (a sequential one would be refused below).
    const allThere = async (): Promise<boolean> => {
      for (let i = 0; i < 100 && fake.requests.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
      return fake.requests.length >= 3;
    };
    fake.on(ACCOUNT, async (): Promise<FakeReply> => ((await allThere()) ? { body: account } : { status: 500, body: {} }));
    const timeline = serveTimeline(fullTimeline);
    fake.on(STATUSES, async (req): Promise<FakeReply> => {
      if (!(await allThere())) return { status: 500, body: {} };
      return req.query.pinned ? { body: pinned } : timeline(req);
    });
    const page = await run({ userId: ID });
    expect(fake.requestsTo(LOOKUP)).toHaveLength(0);
    expect(fake.requestsTo(ACCOUNT)).toHaveLength(1);
    // The three first calls went out together; the page was then filled from the next upstream page.
    const statuses = fake.requestsTo(STATUSES);
    expect(statuses.filter((r) => r.query.pinned === 'true')).toHaveLength(1);
    expect(statuses.filter((r) => !r.query.pinned).map((r) => r.query.max_id)).toEqual([undefined, PAGE1_NEXT]);
    expect(page.user.id).toBe(ID);
    expect(page.posts[0]!.isPinned).toBe(true);
    expect(page.cursor).toBe(page2[1]!.id);
  });
});

describe('microblog-c user posts: errors', () => {
  it('unknown account (404 Record not found) -> NOT_FOUND', async () => {
    await rejection(run({ handle: 'nobodyhere' }), 'NOT_FOUND');
    fake.on(ACCOUNT, { status: 404, body: notFoundBody });
    fake.on(STATUSES, { status: 404, body: notFoundBody });
    await rejection(run({ userId: ID }), 'NOT_FOUND');
  });

  it('suspended account (200, suspended: true, emptied fields) -> NOT_FOUND, without asking for its posts', async () => {
    fake.on(LOOKUP, { body: suspended });
    await rejection(run({ handle: suspended.acct }), 'NOT_FOUND');
    expect(fake.requestsTo(STATUSES)).toHaveLength(0);
    fake.on(`/api/v1/accounts/${suspended.id}`, { body: suspended });
    fake.on(`/api/v1/accounts/${suspended.id}/statuses`, { body: [] });
    await rejection(run({ userId: suspended.id }), 'NOT_FOUND');
  });

  it('account hidden from logged-out viewers (401) -> NOT_FOUND', async () => {
    fake.on(LOOKUP, { status: 401, body: unauthenticatedBody });
    await rejection(run({ handle: 'harborlight' }), 'NOT_FOUND');
    fake.on(STATUSES, { status: 401, body: unauthenticatedBody });
    await rejection(run({ userId: ID }), 'NOT_FOUND');
  });

  it('a cursor upstream rejects (400) -> BAD_REQUEST', async () => {
    fake.on(STATUSES, { status: 400, body: fixture('microblog-c/error-bad-request.json') });
    await rejection(run({ handle: 'harborlight', cursor: PAGE1_NEXT }), 'BAD_REQUEST');
  });

  it('rate limited (429) -> UPSTREAM_BLOCKED with retryAfter from the upstream reset time', async () => {
    const reset = new Date(Date.now() + 90_000).toISOString();
    fake.on(LOOKUP, {
      status: 429,
      body: fixture('microblog-c/error-rate-limited.json'),
      headers: { 'x-ratelimit-limit': '300', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset },
    });
    const err = await rejection(run({ handle: 'harborlight' }), 'UPSTREAM_BLOCKED');
    expect(err.retryAfter).toBeGreaterThanOrEqual(85);
    expect(err.retryAfter).toBeLessThanOrEqual(91);
  });

  it('Cloudflare challenge page -> UPSTREAM_BLOCKED, as a 403 and as a 200', async () => {
    fake.on(LOOKUP, { status: 403, body: challenge });
    await rejection(run({ handle: 'harborlight' }), 'UPSTREAM_BLOCKED');
    fake.on(LOOKUP, { body: account });
    fake.on(STATUSES, { status: 200, body: challenge });
    await rejection(run({ handle: 'harborlight' }), 'UPSTREAM_BLOCKED');
  });

  it('upstream down (503) -> PLATFORM_UNAVAILABLE', async () => {
    fake.on(STATUSES, { status: 503, body: 'upstream connect error or disconnect/reset before headers', headers: { 'content-type': 'text/plain' } });
    await rejection(run({ handle: 'harborlight' }), 'PLATFORM_UNAVAILABLE');
  });

  it('unexpected shapes -> EXTRACTION_FAILED', async () => {
    fake.on(STATUSES, (req): FakeReply => ({ body: req.query.pinned ? [] : { statuses: page1 } }));
    await rejection(run({ handle: 'harborlight' }), 'EXTRACTION_FAILED');
    fake.on(STATUSES, (req): FakeReply => ({ body: req.query.pinned ? [] : [{ hello: 'world' }, 42] }));
    await rejection(run({ handle: 'harborlight' }), 'EXTRACTION_FAILED');
    fake.on(LOOKUP, { body: [account] });
    await rejection(run({ handle: 'harborlight' }), 'EXTRACTION_FAILED');
  });
});

describe('microblog-c user posts: usernames resolved before', () => {
  it('a known username skips the lookup: account, timeline and pinned go out together', async () => {
    await run({ handle: 'harborlight' });
    expect(fake.requestsTo(LOOKUP)).toHaveLength(1);
    fake.reset();
    publicAccountRoutes();
    const page = await run({ handle: 'harborlight' });
    expect(page.user.id).toBe(ID);
    expect(fake.requestsTo(LOOKUP)).toHaveLength(0);
    expect(fake.requestsTo(ACCOUNT)).toHaveLength(1);
    // The first timeline page and the pinned list (then the page is filled from the next upstream page).
    const asked = fake.requestsTo(STATUSES).map((r) => r.query.pinned ?? r.query.max_id ?? 'first');
    expect([...asked.slice(0, 2)].sort()).toEqual(['first', 'true']);
    expect(asked.slice(2)).toEqual([PAGE1_NEXT]);
  });

  it('a username that now names another account is looked up again', async () => {
    await run({ handle: 'harborlight' });
    fake.reset();
    publicAccountRoutes();
    // The remembered id now belongs to an account with another name.
    fake.on(ACCOUNT, { body: { ...account, acct: 'renamed', username: 'renamed', url: `${WEB_ORIGIN}/@renamed` } });
    const page = await run({ handle: 'harborlight' });
    expect(fake.requestsTo(LOOKUP)).toHaveLength(1);
    expect(page.user.handle).toBe('HarborLight');
  });

  it('a remembered account that is gone falls back to the lookup, which decides', async () => {
    await run({ handle: 'harborlight' });
    fake.reset();
    publicAccountRoutes();
    fake.on(ACCOUNT, { status: 404, body: notFoundBody });
    fake.on(LOOKUP, { status: 404, body: notFoundBody });
    await expect(run({ handle: 'harborlight' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(fake.requestsTo(LOOKUP)).toHaveLength(1);
  });
});
