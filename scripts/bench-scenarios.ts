import type { OperationId } from '../shared/operations';
import { encodeHashtagCursor } from '../shared/platforms/shortvideo/cursor';
import type { UpstreamHooks } from '../dev/upstream/child';
import { fixture, fixtureText, type FakeReply, type FakeUpstream } from '../dev/upstream/fake';
import { microblogBRoutes } from '../dev/upstream/microblog-b';
import { MICROBLOG_C, SHORTVIDEO, shortvideo } from '../dev/upstream/replay';
import { WEB_ORIGIN as LINKPAGE_ORIGIN } from '../shared/platforms/linkpage/site';
import { clipPageUrl } from '../shared/platforms/livestream/site';
import { noteUrl } from '../shared/platforms/microblog-b/site';
import { WEB_ORIGIN as PROFESSIONAL_ORIGIN } from '../shared/platforms/professional/site';
import { videoUrl } from '../shared/platforms/shortvideo/site';

/**
 * The operations `npm run bench` runs through the gateway: one entry per operation (or per input
 * form of an operation). Adding an operation to the bench is adding one entry here; an entry whose
 * operation is not routed yet is skipped with a printed note.
 *
 * The upstream is the replay of the recorded fixtures (dev/upstream/replay.ts) answering every input
 * with its operation's recording (`anyInput`), so each live request of the bench uses a new input
 * (request number i) and is a cache miss. `routes(fake, i)`, when an entry has one, is called before
 * request i and adapts a recording to that input where the scraper checks it (re-registering a path
 * replaces it). The replay runs in a process of its own (dev/upstream/child.ts): `routes` runs there,
 * through `upstreamHooks` below, and in the bench's process too (on a fake that is never started),
 * for what it sets in the environment the functions read.
 */
export interface Scenario {
  op: OperationId;
  /** Names the input form when an operation is benched more than once. */
  variant?: string;
  /** Adapts the replay for request i (default: the replay as it is). */
  routes?(fake: FakeUpstream, i: number): void;
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

/** Reads a text fixture once, on first use. */
function lazyText(rel: string): () => string {
  let value: string | undefined;
  return () => (value ??= fixtureText(rel));
}

// livestream: the clip id is in the path (any id is answered with the recorded clip).
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const clipId = (i: number) => {
  let tail = '';
  for (let n = i, k = 0; k < 6; k++, n = Math.floor(n / 32)) tail = CROCKFORD[n % 32] + tail;
  return `clip_01JQ7ZK3M8W4TYV5R2N6${tail}`;
};

// microblog-c: distinct numeric account ids near the recorded one (same length, so still plausible).
const C_ACCOUNT = lazyFixture('microblog-c/account.json');
const cUserId = (i: number) => (BigInt((C_ACCOUNT() as { id: string }).id) + BigInt(i + 1)).toString();

// professional: one GET of the page; the slug (so the path) differs per request.
const proPath = (i: number) => `/posts/bench-${i}_dockwalk-activity-7301122334455667788-Qw3R`;

// microblog-b: guest activation once per container (absorbed by the warm-up), then GraphQL calls.
const B_NOTES_TEXT = lazyText('microblog-b/user-notes.json');
const B_CONVO_TEXT = lazyText('microblog-b/conversation.json');
const B_FOCAL = '2010000000000001000';
const json = (body: string): FakeReply => ({ body, headers: { 'content-type': 'application/json' } });
/** A distinct note id per request, same length as the recorded one. */
const bNoteId = (i: number) => (BigInt(B_FOCAL) + BigInt(i + 1) * 7n).toString();
/** The recorded timeline, owned by `screenName` (so a remembered handle is recognised as its owner's). */
const bTimelineOf = (screenName: string) => (fake: FakeUpstream) => void microblogBRoutes(fake, { UserTweets: json(B_NOTES_TEXT().split('"HarborKite"').join(`"${screenName}"`)) });
/** The recorded conversation, with its replies answering note i (so they are mapped as they would be). */
const bConversationOf = (i: number) => (fake: FakeUpstream) => void microblogBRoutes(fake, { TweetDetail: json(B_CONVO_TEXT().split(B_FOCAL).join(bNoteId(i))) });

// shortvideo: the home page primes the warm function's jar once; then one signed call per page.
const SV_DETAIL = lazyFixture('shortvideo/hashtag-detail.json');
const svVideoId = (i: number) => (7401122334455660000n + BigInt(i)).toString();
const svLaterCursor = (i: number) => encodeHashtagCursor({ hashtag: `later${i}`, region: 'NG', challengeId: '1600000000000001', offset: 30, seen: new Set() });

// citygame: the deployer names the source (no public game is known); the bench names a test
// document on a reserved example host, which UPSTREAM_CITYGAME_URL sends to the replay's fake. The
// operation has no inputs, so its one cache entry is dropped before each live request.
const CITY_SOURCE_PATH = '/citygame/bench-test-document.json';
const CITY_TEST_DOCUMENT = { date: '2026-03-02', weekday: 'Monday', weather: 'test weather', headline: 'test headline', tip: 'test tip' };

export const scenarios: Scenario[] = [
  {
    op: 'citygame-daily',
    routes(fake) {
      process.env.CITYGAME_SOURCE_URL = `https://bulletin.example${CITY_SOURCE_PATH}`;
      delete process.env.CITYGAME_FIELDS;
      fake.on(CITY_SOURCE_PATH, { body: CITY_TEST_DOCUMENT });
    },
    query: () => ({}),
    async prime() {
      const [{ DeleteCommand }, { db }, { config }, { cacheKey }] = await Promise.all([import('@aws-sdk/lib-dynamodb'), import('../shared/db/client'), import('../shared/runtime/config'), import('../shared/result-cache')]);
      await db().send(new DeleteCommand({ TableName: config.cacheTable, Key: { pk: cacheKey('citygame-daily', {}) } }));
    },
    note: 'one GET of the source the deployment names (a test document here): 1 upstream round trip; no inputs, so one cache entry (dropped before each live request)',
  },
  {
    op: 'microblog-a-user-posts',
    query: (i) => ({ handle: `bench-${i}.bsky.social` }),
  },
  {
    op: 'livestream-clip',
    query: (i) => ({ url: clipPageUrl('towerbuilder', clipId(i)) }),
  },
  {
    op: 'microblog-c-user-posts',
    // The recorded first timeline page holds replies, which a page leaves out: it is filled to 20
    // posts from the next upstream page (issue 19), one round more in each variant.
    sequentialRoundTrips: 3,
    variant: 'handle',
    query: (i) => ({ handle: `bench${i}` }),
    note: 'by handle the account id must be looked up before the timeline, and the recorded page 1 (replies left out) is filled from page 2: 3 upstream round trips',
  },
  {
    op: 'microblog-c-user-posts',
    variant: 'userId',
    sequentialRoundTrips: 2,
    query: (i) => ({ userId: cUserId(i) }),
    note: 'by userId the account, the timeline and the pinned posts go out at once; the recorded page 1 (replies left out) is filled from page 2: 2 upstream round trips',
  },
  {
    op: 'microblog-c-user-posts',
    variant: 'handle seen before',
    // The account of that id answers to the remembered name (a renamed account is looked up again).
    routes(fake, i) {
      const id = cUserId(i);
      fake.on(MICROBLOG_C.account(id), { body: { ...(C_ACCOUNT() as object), id, acct: `known${i}`, username: `known${i}` } });
    },
    query: (i) => ({ handle: `known${i}` }),
    // A warm container that resolved this name before (the scraper remembers username -> id).
    async prime(i) {
      const { knownUsernames } = await import('../shared/platforms/microblog-c/scrape');
      knownUsernames.remember(`known${i}`, cUserId(i));
    },
    sequentialRoundTrips: 2,
    note: 'a username this container resolved before skips the lookup: as by userId, 2 upstream round trips',
  },
  {
    op: 'professional-post',
    query: (i) => ({ url: `${PROFESSIONAL_ORIGIN}${proPath(i)}` }),
    note: 'one GET of the logged-out page (JSON-LD + DOM): 1 upstream round trip',
  },
  {
    op: 'linkpage-page',
    sequentialRoundTrips: 2,
    query: (i) => ({ url: `${LINKPAGE_ORIGIN}/bench-${i}` }),
    note: 'token known (shared credential): resolve + page = 2 upstream round trips; the very first request also reads the app shell and bundle (4)',
  },
  {
    op: 'microblog-b-profile',
    // Handles of their own: a profile lookup teaches user-notes the id, which would skew its figures.
    query: (i) => ({ handle: `profile${i}` }),
    note: 'UserByScreenName: 1 upstream round trip',
  },
  {
    op: 'microblog-b-user-notes',
    sequentialRoundTrips: 2,
    variant: 'handle',
    query: (i) => ({ handle: `notes${i}` }),
    note: 'the timeline is asked for by user id: UserByScreenName, then UserTweets (2 upstream round trips)',
  },
  {
    op: 'microblog-b-user-notes',
    variant: 'handle seen before',
    routes: (fake, i) => bTimelineOf(`known${i}`)(fake),
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
    routes: (fake, i) => bConversationOf(i)(fake),
    query: (i) => ({ url: noteUrl('tidewren', bNoteId(i)) }),
    note: 'TweetResultByRestId and TweetDetail go out together: 2 calls, 1 upstream round trip',
  },
  {
    op: 'microblog-b-note',
    variant: 'trim=true',
    query: (i) => ({ url: noteUrl('tidewren', bNoteId(i)), trim: 'true' }),
    note: 'TweetResultByRestId only: 1 upstream round trip',
  },
  {
    op: 'shortvideo-video-comments',
    query: (i) => ({ url: videoUrl('bench.user', svVideoId(i)) }),
    note: 'the first request of a warm function primes the cookie jar from the home page; after that the comments and the video detail (its author) go out together: 1 upstream round trip per page (the detail only for a video this container has not seen)',
  },
  {
    op: 'shortvideo-search-hashtag',
    sequentialRoundTrips: 2,
    variant: 'page 1',
    query: (i) => ({ hashtag: `bench${i}` }),
    note: 'page 1: the hashtag detail, then its video list: 2 sequential upstream round trips',
  },
  {
    op: 'shortvideo-search-hashtag',
    variant: 'later page',
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
    // The recorded live account is live; its recording of an offline moment answers instead.
    routes(fake) {
      fake.on(SHORTVIDEO.liveLookup, { body: fixtureText('shortvideo/live-user-room-offline.json'), headers: { 'content-type': 'application/json' } });
    },
    query: (i) => ({ handle: `offline${i}` }),
    note: 'offline: the room lookup alone: 1 upstream round trip',
  },
  {
    op: 'shortvideo-user-live',
    sequentialRoundTrips: 2,
    variant: 'live',
    // The replay's own answers again (the offline variant replaced the room lookup).
    routes: (fake) => shortvideo(fake, { anyInput: true }),
    query: (i) => ({ handle: `live${i}` }),
    note: 'live: the room lookup, then the room: 2 sequential upstream round trips (1 when the warm function saw that room before)',
  },
  {
    op: 'shortvideo-user-following',
    sequentialRoundTrips: 2,
    query: (i) => ({ userId: (6799800000000000000n + BigInt(i)).toString() }),
    note: 'the account (user-detail by id; by handle the profile page), then the list: 2 sequential upstream round trips',
  },
];

/**
 * The pipeline's paths (section 2 of the bench), on one operation: apart from the scrape, every
 * operation runs the same pipeline (shared/pipeline.ts), and section 3 runs the cache hit, live and
 * miss paths on every operation. A handle starting with `missing-` is answered as the source answers
 * an unknown account (404 NOT_FOUND after the reservation, which is refunded: `upstreamHooks.notFound`).
 */
export const pathScenario = {
  op: 'microblog-a-user-posts' as OperationId,
  query: (i: number) => ({ handle: `path-${i}.bsky.social` }),
  /** Refused by validation (422) before anything else. */
  invalid: { handle: '!!' },
  notFound: (i: number) => ({ handle: `missing-${i}.bsky.social` }),
};

/** What the bench asks of the upstream process by name (functions cannot cross the process boundary). */
export const upstreamHooks: UpstreamHooks = {
  /** Scenario `index`'s routes for its request i. */
  scenario: (fake, index: number, i: number) => scenarios[index]!.routes?.(fake, i),
  /** microblog-a answers an actor starting with `missing-` as an unknown account, whatever the route. */
  notFound: (fake) => {
    const reply: FakeReply = { status: 400, body: fixtureText('microblog-a/error-not-found.json'), headers: { 'content-type': 'application/json' } };
    fake.intercept = (req) => (req.query.actor?.startsWith('missing-') ? reply : undefined);
  },
};
