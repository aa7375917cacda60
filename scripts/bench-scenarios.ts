import { existsSync } from 'node:fs';
import path from 'node:path';
import type { OperationId } from '../shared/operations';
import { encodeHashtagCursor } from '../shared/platforms/shortvideo/cursor';
import { FIXTURES, fixture, fixtureText, type FakeReply, type FakeUpstream } from '../test/support/fake-upstream';
import { linkpageRoutes } from '../test/support/linkpage-upstream';
import { microblogBRoutes } from '../test/support/microblog-b-upstream';
import { SHORTVIDEO_ITEM_DETAIL, itemDetailReply } from '../test/support/shortvideo-upstream';

/**
 * The fake-upstream set-ups `npm run bench` uses: one entry per operation (or per input form of an
 * operation). Adding an operation to the bench is adding one entry here; an entry whose operation is
 * not routed yet, or whose fixtures are missing, is skipped with a printed note.
 *
 * Each live request of the bench uses a new input (request number i), so every one is a cache miss;
 * the fake answers every input with the same fixture. `routes(fake, i)` is called before request i
 * and must register whatever makes that request succeed (re-registering a path replaces it).
 */
export interface Scenario {
  op: OperationId;
  /** Names the input form when an operation is benched more than once. */
  variant?: string;
  /** Fixture files (relative to test/fixtures) the routes read. */
  fixtures: string[];
  routes(fake: FakeUpstream, i: number): void;
  /** The query of request i; distinct i give distinct cache keys. */
  query(i: number): Record<string, string>;
  /** What the reader should know about the upstream calls of this input form. */
  note?: string;
  /**
   * Upstream round trips this input form needs one after the other, by design (its issue allows
   * them: a name to resolve first, a room to read once it is known live). Default 1; the delay
   * target is 1.1 x this.
   */
  sequentialRoundTrips?: number;
  /** Runs before request i, outside the measurement (e.g. a warm container's state). */
  prime?(i: number): Promise<void>;
}

/** Reads (and parses) a fixture once, on first use. */
function lazyFixture(rel: string): () => unknown {
  let value: unknown;
  return () => (value ??= fixture(rel));
}

/** Reads a text fixture (an HTML page, a JS bundle) once, on first use. */
function lazyText(rel: string): () => string {
  let value: string | undefined;
  return () => (value ??= fixtureText(rel));
}

export const missingFixtures = (s: Scenario): string[] => s.fixtures.filter((rel) => !existsSync(path.join(FIXTURES, rel)));

// microblog-a: getProfile and getAuthorFeed (issued together).
const A_PROFILE = lazyFixture('microblog-a/profile.json');
const A_FEED = lazyFixture('microblog-a/feed-page1.json');

// livestream: one clip endpoint call per clip; the clip id is in the path, so each id gets a route.
const LS_CLIP = lazyFixture('livestream/clip-hls.json');
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const clipId = (i: number) => {
  let tail = '';
  for (let n = i, k = 0; k < 6; k++, n = Math.floor(n / 32)) tail = CROCKFORD[n % 32] + tail;
  return `clip_01JQ7ZK3M8W4TYV5R2N6${tail}`;
};

// microblog-c: accounts/lookup (by handle) or accounts/<id>, then statuses + pinned statuses.
const C_ACCOUNT = lazyFixture('microblog-c/account.json');
const C_PAGE1 = lazyFixture('microblog-c/statuses-page1.json');
const C_PINNED = lazyFixture('microblog-c/statuses-pinned.json');
const C_FIXTURES = ['microblog-c/account.json', 'microblog-c/statuses-page1.json', 'microblog-c/statuses-pinned.json'];
const cAccountId = () => (C_ACCOUNT() as { id: string }).id;
const cStatuses = (id: string) => (fake: FakeUpstream) =>
  fake.on(`/api/v1/accounts/${id}/statuses`, (req): FakeReply => ({ body: req.query.pinned === 'true' ? C_PINNED() : C_PAGE1() }));
/** Distinct numeric account ids near the fixture's (same length, so still plausible). */
const cUserId = (i: number) => (BigInt(cAccountId()) + BigInt(i + 1)).toString();

// linkpage: the GraphQL token is read from the app bundle on the first request of all (shell +
// bundle), then each page is a resolve query and a page query; every name is new to the bench.
// professional: one GET of the page; the slug (so the path) differs per request.
const PRO_VIDEO = lazyText('professional/post-video.html');
const proPath = (i: number) => `/posts/bench-${i}_dockwalk-activity-7301122334455667788-Qw3R`;

// microblog-b: guest activation once per container (absorbed by the warm-up), then GraphQL calls.
const B_USER = lazyFixture('microblog-b/user-2026.json');
const B_NOTES_TEXT = lazyText('microblog-b/user-notes.json');
const B_NOTE = lazyFixture('microblog-b/note.json');
const B_CONVO_TEXT = lazyText('microblog-b/conversation.json');
const B_FOCAL = '2010000000000001000';
const B_FIXTURES = ['microblog-b/user-2026.json', 'microblog-b/user-notes.json', 'microblog-b/note.json', 'microblog-b/conversation.json'];
const json = (body: string): FakeReply => ({ body, headers: { 'content-type': 'application/json' } });
/** A distinct note id per request, same length as the fixture's. */
const bNoteId = (i: number) => (BigInt(B_FOCAL) + BigInt(i + 1) * 7n).toString();
/** The fixture timeline, owned by `screenName` (so a remembered handle is recognised as its owner's). */
const bTimeline = (screenName: string) => json(B_NOTES_TEXT().split('"HarborKite"').join(`"${screenName}"`));
function bRoutes(fake: FakeUpstream, i: number, owner = 'HarborKite') {
  microblogBRoutes(fake, {
    UserByScreenName: { body: B_USER() },
    UserTweets: bTimeline(owner),
    TweetResultByRestId: { body: B_NOTE() },
    // The conversation of note i: its replies answer note i.
    TweetDetail: json(B_CONVO_TEXT().split(B_FOCAL).join(bNoteId(i))),
  });
}

// shortvideo: the home page primes the warm function's jar once; then one signed call per page.
const SV_COMMENTS = lazyFixture('shortvideo/comments-page1.json');
const svVideoId = (i: number) => (7401122334455660000n + BigInt(i)).toString();
const SV_DETAIL = lazyFixture('shortvideo/hashtag-detail.json');
const SV_USER_DETAIL = lazyFixture('shortvideo/user-detail.json');
const SV_FOLLOWING = lazyFixture('shortvideo/following-page1.json');
const SV_LIVE_OFFLINE = lazyFixture('shortvideo/live-user-room-offline.json');
const SV_LIVE_ON = lazyFixture('shortvideo/live-user-room-live.json');
const SV_ROOM_INFO = lazyFixture('shortvideo/live-room-info.json');
const SV_ITEMS = lazyFixture('shortvideo/hashtag-items-page1.json');
const SV_HASHTAG_FIXTURES = ['shortvideo/hashtag-detail.json', 'shortvideo/hashtag-items-page1.json', 'shortvideo/home.html'];
const svLaterCursor = (i: number) => encodeHashtagCursor({ hashtag: `later${i}`, region: 'NG', challengeId: '1600000000000001', offset: 30, seen: new Set() });
const svHashtagRoutes = (fake: FakeUpstream) => {
  fake.on('/', { headers: { 'set-cookie': 'ttwid=1%7Cbench; Path=/' }, body: fixtureText('shortvideo/home.html') });
  fake.on('/api/challenge/detail/', { body: SV_DETAIL() });
  fake.on('/api/challenge/item_list/', { headers: { 'set-cookie': 'tt_chain_token=bench; Path=/' }, body: SV_ITEMS() });
};

export const scenarios: Scenario[] = [
  {
    op: 'microblog-a-user-posts',
    fixtures: ['microblog-a/profile.json', 'microblog-a/feed-page1.json'],
    routes(fake) {
      fake.on('/xrpc/app.bsky.actor.getProfile', { body: A_PROFILE() });
      fake.on('/xrpc/app.bsky.feed.getAuthorFeed', { body: A_FEED() });
    },
    query: (i) => ({ handle: `bench-${i}.bsky.social` }),
  },
  {
    op: 'livestream-clip',
    fixtures: ['livestream/clip-hls.json'],
    routes(fake, i) {
      fake.on(`/api/v2/clips/${clipId(i)}`, { body: LS_CLIP() });
    },
    query: (i) => ({ url: `https://kick.com/towerbuilder/clips/${clipId(i)}` }),
  },
  {
    op: 'microblog-c-user-posts',
    sequentialRoundTrips: 2,
    variant: 'handle',
    fixtures: C_FIXTURES,
    routes(fake) {
      fake.on('/api/v1/accounts/lookup', { body: C_ACCOUNT() });
      cStatuses(cAccountId())(fake);
    },
    query: (i) => ({ handle: `bench${i}` }),
    note: 'by handle the account id must be looked up before the timeline: 2 upstream round trips',
  },
  {
    op: 'microblog-c-user-posts',
    variant: 'userId',
    fixtures: C_FIXTURES,
    routes(fake, i) {
      const id = cUserId(i);
      fake.on(`/api/v1/accounts/${id}`, { body: C_ACCOUNT() });
      cStatuses(id)(fake);
    },
    query: (i) => ({ userId: cUserId(i) }),
    note: 'by userId all page-1 calls go out at once: 1 upstream round trip',
  },
  {
    op: 'microblog-c-user-posts',
    variant: 'handle seen before',
    fixtures: C_FIXTURES,
    routes(fake, i) {
      const id = cUserId(i);
      fake.on(`/api/v1/accounts/${id}`, { body: { ...(C_ACCOUNT() as object), id, acct: `known${i}`, username: `known${i}` } });
      cStatuses(id)(fake);
    },
    query: (i) => ({ handle: `known${i}` }),
    // A warm container that resolved this name before (the scraper remembers username -> id).
    async prime(i) {
      const { knownUsernames } = await import('../shared/platforms/microblog-c/scrape');
      knownUsernames.remember(`known${i}`, cUserId(i));
    },
    note: 'a username this container resolved before skips the lookup: 1 upstream round trip',
  },
  {
    op: 'professional-post',
    fixtures: ['professional/post-video.html'],
    routes(fake, i) {
      fake.on(proPath(i), { body: PRO_VIDEO() });
    },
    query: (i) => ({ url: `https://www.linkedin.com${proPath(i)}` }),
    note: 'one GET of the logged-out page (JSON-LD + DOM): 1 upstream round trip',
  },
  {
    op: 'linkpage-page',
    sequentialRoundTrips: 2,
    fixtures: ['linkpage/app-shell.html', 'linkpage/chunk-vendors-s-z.js', 'linkpage/page.json'],
    routes(fake) {
      linkpageRoutes(fake);
    },
    query: (i) => ({ url: `https://pillar.io/bench-${i}` }),
    note: 'token known (shared credential): resolve + page = 2 upstream round trips; the very first request also reads the app shell and bundle (4)',
  },
  {
    op: 'microblog-b-profile',
    fixtures: B_FIXTURES,
    routes: (fake, i) => bRoutes(fake, i),
    // Handles of their own: a profile lookup teaches user-notes the id, which would skew its figures.
    query: (i) => ({ handle: `profile${i}` }),
    note: 'UserByScreenName: 1 upstream round trip',
  },
  {
    op: 'microblog-b-user-notes',
    sequentialRoundTrips: 2,
    variant: 'handle',
    fixtures: B_FIXTURES,
    routes: (fake, i) => bRoutes(fake, i, `notes${i}`),
    query: (i) => ({ handle: `notes${i}` }),
    note: 'the timeline is asked for by user id: UserByScreenName, then UserTweets (2 upstream round trips)',
  },
  {
    op: 'microblog-b-user-notes',
    variant: 'handle seen before',
    fixtures: B_FIXTURES,
    routes: (fake, i) => bRoutes(fake, i, `known${i}`),
    query: (i) => ({ handle: `known${i}` }),
    // A warm container that resolved this handle before (the scraper remembers handle -> id).
    async prime(i) {
      const { rememberHandle } = await import('../shared/platforms/microblog-b/scrape');
      rememberHandle(`known${i}`, '1234567890');
    },
    note: 'a handle this container resolved before: UserTweets only (1 upstream round trip)',
  },
  {
    op: 'microblog-b-note',
    fixtures: B_FIXTURES,
    routes: (fake, i) => bRoutes(fake, i),
    query: (i) => ({ url: `https://x.com/tidewren/status/${bNoteId(i)}` }),
    note: 'TweetResultByRestId and TweetDetail go out together: 2 calls, 1 upstream round trip',
  },
  {
    op: 'microblog-b-note',
    variant: 'trim=true',
    fixtures: B_FIXTURES,
    routes: (fake, i) => bRoutes(fake, i),
    query: (i) => ({ url: `https://x.com/tidewren/status/${bNoteId(i)}`, trim: 'true' }),
    note: 'TweetResultByRestId only: 1 upstream round trip',
  },
  {
    op: 'shortvideo-video-comments',
    fixtures: ['shortvideo/comments-page1.json', 'shortvideo/item-detail.json', 'shortvideo/home.html'],
    routes(fake) {
      fake.on('/', { headers: { 'set-cookie': 'ttwid=1%7Cbench; Path=/' }, body: fixtureText('shortvideo/home.html') });
      fake.on('/api/comment/list/', { body: SV_COMMENTS() });
      fake.on(SHORTVIDEO_ITEM_DETAIL, itemDetailReply);
    },
    query: (i) => ({ url: `https://www.tiktok.com/@bench.user/video/${svVideoId(i)}` }),
    note: 'the first request of a warm function primes the cookie jar from the home page; after that the comments and the video detail (its author) go out together: 1 upstream round trip per page (the detail only for a video this container has not seen)',
  },
  {
    op: 'shortvideo-search-hashtag',
    sequentialRoundTrips: 2,
    variant: 'page 1',
    fixtures: SV_HASHTAG_FIXTURES,
    routes: svHashtagRoutes,
    query: (i) => ({ hashtag: `bench${i}` }),
    note: 'page 1: the hashtag detail, then its video list: 2 sequential upstream round trips',
  },
  {
    op: 'shortvideo-search-hashtag',
    variant: 'later page',
    fixtures: SV_HASHTAG_FIXTURES,
    routes: svHashtagRoutes,
    query: (i) => ({ hashtag: `later${i}`, cursor: svLaterCursor(i) }),
    // A warm container that served page 1 of this hashtag (it remembers the detail for 10 minutes).
    async prime(i) {
      const { rememberHashtag } = await import('../shared/platforms/shortvideo/scrape');
      const { mapHashtagInfo } = await import('../shared/platforms/shortvideo/map');
      rememberHashtag(`later${i}`, 'NG', mapHashtagInfo(SV_DETAIL(), `later${i}`));
    },
    note: 'later pages: the cursor carries the hashtag id: 1 upstream round trip (the list; the detail is remembered, or asked concurrently by a cold container)',
  },
  {
    op: 'shortvideo-user-live',
    variant: 'offline',
    fixtures: ['shortvideo/live-user-room-offline.json'],
    routes(fake) {
      fake.on('/api-live/user/room/', { body: SV_LIVE_OFFLINE() });
    },
    query: (i) => ({ handle: `offline${i}` }),
    note: 'offline: the room lookup alone: 1 upstream round trip',
  },
  {
    op: 'shortvideo-user-live',
    sequentialRoundTrips: 2,
    variant: 'live',
    fixtures: ['shortvideo/live-user-room-live.json', 'shortvideo/live-room-info.json'],
    routes(fake) {
      fake.on('/api-live/user/room/', { body: SV_LIVE_ON() });
      fake.on('/webcast/room/info/', { body: SV_ROOM_INFO() });
    },
    query: (i) => ({ handle: `live${i}` }),
    note: 'live: the room lookup, then the room: 2 sequential upstream round trips (1 when the warm function saw that room before)',
  },
  {
    op: 'shortvideo-user-following',
    sequentialRoundTrips: 2,
    fixtures: ['shortvideo/user-detail.json', 'shortvideo/following-page1.json'],
    routes(fake) {
      fake.on('/', { headers: { 'set-cookie': 'ttwid=1%7Cbench; Path=/' }, body: fixtureText('shortvideo/home.html') });
      fake.on('/api/user/detail/', { body: SV_USER_DETAIL() });
      fake.on('/api/user/list/', { body: SV_FOLLOWING() });
    },
    query: (i) => ({ userId: (6799800000000000000n + BigInt(i)).toString() }),
    note: 'the account (user-detail by id; by handle the profile page), then the list: 2 sequential upstream round trips',
  },
];
