import type { OperationId } from '../../shared/operations';
import { clipPageUrl } from '../../shared/platforms/livestream/site';
import { noteUrl } from '../../shared/platforms/microblog-b/site';
import { WEB_ORIGIN as MICROBLOG_C_ORIGIN } from '../../shared/platforms/microblog-c/site';
import { WEB_ORIGIN as LINKPAGE_ORIGIN } from '../../shared/platforms/linkpage/site';
import { WEB_ORIGIN as PROFESSIONAL_ORIGIN } from '../../shared/platforms/professional/site';
import { videoUrl } from '../../shared/platforms/shortvideo/site';
import { fixture, fixtureText, type FakeReply, type FakeUpstream, type RecordedRequest } from './fake';
import { linkpageRoutes } from './linkpage';
import { DEFAULT_FIXTURES, microblogBRoutes } from './microblog-b';
import { SHORTVIDEO_ITEM_AUTHOR, SHORTVIDEO_ITEM_DETAIL, itemDetail } from './shortvideo';

/**
 * The replay upstream: every live platform answered from the project's recorded fixtures
 * (test/fixtures/<platform>/), the way the source answers. An input the replay has a recording of
 * gets that recording; any other input gets the source's own "not found" answer. This is the one
 * routing of the fixtures: `npm run demo` serves it, the contract and reliability scenarios start
 * from it (test/contract/scenarios.ts), and `npm run load` and the bench run on it.
 *
 * `anyInput` answers every input with its operation's recording instead (the bench asks a new input
 * per request, so that each one misses the cache).
 *
 * What it knows, per platform (RECORDED below gives one input per operation):
 *   microblog-a   the profile marlowe-tern.bsky.social (by handle or DID) and its feed, 2 pages
 *   livestream    three clips (HLS, MP4 of 2023, the newer {data} envelope)
 *   microblog-c   the account HarborLight (by name or id), its timeline (2 pages) and pinned posts
 *   linkpage      the page marisolcooks
 *   professional  a video post and an article
 *   microblog-b   the accounts HarborKite, tidewren (legacy schema) and quietcove (protected);
 *                 HarborKite's notes; three notes (with replies, long-form, article)
 *   shortvideo    a video's comments (2 pages) and its detail (author), the hashtag lagossunset (3 pages), the live account
 *                 qlai.plays, the account zola.travels and whom it follows (2 pages)
 */
export interface ReplayOptions {
  /** Answer every input with its operation's recording (default: only the recorded inputs). */
  anyInput?: boolean;
}

export type Query = Record<string, string>;
type Replay = (fake: FakeUpstream, opts?: ReplayOptions) => void;

// ---- recordings, read once (a reply shares the text; nothing parses or changes it) ---------------

const texts = new Map<string, string>();
const text = (rel: string) => texts.get(rel) ?? texts.set(rel, fixtureText(rel)).get(rel)!;
const parsed = new Map<string, unknown>();
/** A fixture's fields, for the replay's own decisions (never handed out). */
const field = <T>(rel: string, pick: (data: any) => T): T => pick(parsed.get(rel) ?? parsed.set(rel, fixture(rel)).get(rel)); // eslint-disable-line @typescript-eslint/no-explicit-any -- fixtures are arbitrary JSON
/** A recorded JSON answer. */
const json = (rel: string, extra: Omit<FakeReply, 'body'> = {}): FakeReply => ({ ...extra, body: text(rel), headers: { 'content-type': 'application/json; charset=utf-8', ...extra.headers } });
/** A recorded HTML page. */
const page = (rel: string, extra: Omit<FakeReply, 'body'> = {}): FakeReply => ({ ...extra, body: text(rel) });

/**
 * The recording of `input` (case-insensitive), else with `anyInput` the first recording, else the
 * source's answer for an input it does not have.
 */
function lookup(opts: ReplayOptions, recordings: Record<string, FakeReply>, input: string | undefined, unknown: FakeReply): FakeReply {
  const hit = input === undefined ? undefined : Object.entries(recordings).find(([recorded]) => recorded.toLowerCase() === input.toLowerCase());
  return hit?.[1] ?? (opts.anyInput ? Object.values(recordings)[0]! : unknown);
}
/** The last path segment, decoded (undefined when it does not decode). */
const lastSegment = (path: string) => {
  try {
    return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
  } catch {
    return undefined;
  }
};

// ---- microblog-a: XRPC by actor (handle or DID) --------------------------------------------------

export const MICROBLOG_A = { profile: '/xrpc/app.bsky.actor.getProfile', feed: '/xrpc/app.bsky.feed.getAuthorFeed' } as const;
const A_PROFILE = 'microblog-a/profile.json';
const aActors = () => field(A_PROFILE, (p) => [p.handle as string, p.did as string]);

export const microblogA: Replay = (fake, opts = {}) => {
  const notFound: FakeReply = { status: 400, ...json('microblog-a/error-not-found.json') };
  const byActor = (reply: (req: RecordedRequest) => FakeReply) => (req: RecordedRequest) => lookup(opts, Object.fromEntries(aActors().map((actor) => [actor, reply(req)])), req.query.actor, notFound);
  fake.on(MICROBLOG_A.profile, byActor(() => json(A_PROFILE)));
  fake.on(MICROBLOG_A.feed, byActor((req) => json(req.query.cursor ? 'microblog-a/feed-page2.json' : 'microblog-a/feed-page1.json')));
};

// ---- livestream: one clip endpoint, the id in the path -------------------------------------------

const CLIPS = ['livestream/clip-hls.json', 'livestream/clip-mp4-2023.json', 'livestream/clip-data-envelope.json'];
const clipOf = (rel: string) => field(rel, (d) => (d.clip ?? d.data) as { id: string; channel: { slug: string } });
export const clipPath = (id: string) => `/api/v2/clips/${id}`;

export const livestream: Replay = (fake, opts = {}) => {
  const recordings = Object.fromEntries(CLIPS.map((rel) => [clipOf(rel).id, json(rel)]));
  const notFound: FakeReply = { status: 404, ...json('livestream/clip-not-found.json') };
  fake.on(/^\/api\/v2\/clips\/[^/]+$/, (req) => lookup(opts, recordings, lastSegment(req.path), notFound));
};

// ---- microblog-c: accounts by name or id, statuses by account id ----------------------------------

export const MICROBLOG_C = { lookup: '/api/v1/accounts/lookup', account: (id: string) => `/api/v1/accounts/${id}`, statuses: (id: string) => `/api/v1/accounts/${id}/statuses` };
const C_ACCOUNT = 'microblog-c/account.json';
const cAccount = () => field(C_ACCOUNT, (a) => ({ id: a.id as string, acct: a.acct as string }));
const cIds = (rel: string) => field(rel, (list) => (list as { id: string }[]).map((s) => s.id));

export const microblogC: Replay = (fake, opts = {}) => {
  const { id, acct } = cAccount();
  const notFound: FakeReply = { status: 404, ...json('microblog-c/error-not-found.json') };
  const page1 = cIds('microblog-c/statuses-page1.json');
  const page2 = cIds('microblog-c/statuses-page2.json');
  const next = page1[page1.length - 1]!;
  // The Link header the source sends: a next page while there is one, always a previous one.
  const link = (accountId: string, rel: string, q: string) => `<${MICROBLOG_C_ORIGIN}${MICROBLOG_C.statuses(accountId)}?exclude_replies=true&limit=20&${q}>; rel="${rel}"`;
  const statuses = (accountId: string, req: RecordedRequest): FakeReply => {
    if (req.query.pinned === 'true') return json('microblog-c/statuses-pinned.json');
    if (req.query.max_id === undefined) return json('microblog-c/statuses-page1.json', { headers: { link: `${link(accountId, 'next', `max_id=${next}`)}, ${link(accountId, 'prev', `min_id=${page1[0]}`)}` } });
    if (req.query.max_id === next) return json('microblog-c/statuses-page2.json', { headers: { link: link(accountId, 'prev', `min_id=${page2[0]}`) } });
    return { body: [] };
  };
  const accountId = (req: RecordedRequest) => req.path.split('/')[4]!;
  fake.on(MICROBLOG_C.lookup, (req) => lookup(opts, { [acct]: json(C_ACCOUNT) }, req.query.acct, notFound));
  fake.on(/^\/api\/v1\/accounts\/\d+$/, (req) => lookup(opts, { [id]: json(C_ACCOUNT) }, accountId(req), notFound));
  fake.on(/^\/api\/v1\/accounts\/\d+\/statuses$/, (req) => lookup(opts, { [id]: statuses(accountId(req), req) }, accountId(req), notFound));
};

// ---- linkpage: the app shell and bundles, then GraphQL by page name ------------------------------

const LINKPAGE_NAME = () => field('linkpage/page.json', (p) => (p.data.banner.url_key as string).toLowerCase());

export const linkpage: Replay = (fake, opts = {}) => linkpageRoutes(fake, opts.anyInput ? {} : { knows: (name) => name === LINKPAGE_NAME() });

// ---- professional: one page GET per post or article ----------------------------------------------

export const PROFESSIONAL = {
  post: '/posts/quayside-robotics_dockwalk-warehouseautomation-activity-7301122334455667788-Qw3R',
  article: '/pulse/counting-footsteps-not-berths-marguerite-oyelaran-x7k2q',
} as const;

export const professional: Replay = (fake, opts = {}) => {
  const recordings = Object.fromEntries([
    [PROFESSIONAL.post, page('professional/post-video.html')],
    [PROFESSIONAL.article, page('professional/article.html')],
  ]);
  const notFound: FakeReply = { status: 404, body: '<!DOCTYPE html><html><body>Page not found</body></html>' };
  fake.on(/^\/(posts|pulse)\//, (req) => lookup(opts, recordings, req.path, notFound));
};

// ---- microblog-b: guest token, then GraphQL by variables -----------------------------------------

// The first recording of each operation is the one microblogBRoutes answers by default.
const B_USERS = [DEFAULT_FIXTURES.UserByScreenName, 'microblog-b/user-legacy.json', 'microblog-b/user-protected.json'];
const B_NOTES = [DEFAULT_FIXTURES.TweetResultByRestId, 'microblog-b/note-long-form.json', 'microblog-b/note-article.json'];
const bUser = (rel: string) => field(rel, (d) => ({ id: d.data.user.result.rest_id as string, screenName: (d.data.user.result.legacy?.screen_name ?? d.data.user.result.core?.screen_name) as string }));
const bNoteId = (rel: string) => field(rel, (d) => d.data.tweetResult.result.rest_id as string);
/** The author named in the URL of the first recorded note (any name serves: the id decides). */
const B_NOTE_AUTHOR = 'tidewren';
const variables = (req: RecordedRequest): Record<string, unknown> => {
  try {
    return JSON.parse(req.query.variables ?? '{}') as Record<string, unknown>;
  } catch {
    return {};
  }
};
const variable = (req: RecordedRequest, name: string) => {
  const value = variables(req)[name];
  return typeof value === 'string' ? value : undefined;
};

export const microblogB: Replay = (fake, opts = {}) => {
  const timelineOwner = bUser(B_USERS[0]!).id;
  microblogBRoutes(fake, {
    UserByScreenName: (req) => lookup(opts, Object.fromEntries(B_USERS.map((rel) => [bUser(rel).screenName, json(rel)])), variable(req, 'screen_name'), json('microblog-b/user-not-found.json')),
    // The notes of the first account are recorded; the other recorded accounts have none.
    UserTweets: (req) => lookup(opts, { [timelineOwner]: json(DEFAULT_FIXTURES.UserTweets) }, variable(req, 'userId'), json('microblog-b/user-notes-empty.json')),
    TweetResultByRestId: (req) => lookup(opts, Object.fromEntries(B_NOTES.map((rel) => [bNoteId(rel), json(rel)])), variable(req, 'tweetId'), json('microblog-b/note-empty.json')),
    // The replies of the first note; for another note the conversation holds none of its replies.
    TweetDetail: () => json(DEFAULT_FIXTURES.TweetDetail),
  });
};

// ---- shortvideo: the home page primes the cookie jar; signed API calls by query -------------------

export const SHORTVIDEO = {
  home: '/',
  comments: '/api/comment/list/',
  itemDetail: SHORTVIDEO_ITEM_DETAIL,
  hashtag: '/api/challenge/detail/',
  hashtagVideos: '/api/challenge/item_list/',
  liveLookup: '/api-live/user/room/',
  liveRoom: '/webcast/room/info/',
  userDetail: '/api/user/detail/',
  following: '/api/user/list/',
} as const;
const SV_VIDEO = () => field('shortvideo/comments-page1.json', (d) => d.comments[0].aweme_id as string);
/** The platform names the video's author in its detail (the crafted item-detail fixture). */
const SV_VIDEO_AUTHOR = SHORTVIDEO_ITEM_AUTHOR;
const SV_HASHTAG = () => field('shortvideo/hashtag-detail.json', (d) => d.challengeInfo.challenge.title as string);
const SV_LIVE = () => field('shortvideo/live-user-room-live.json', (d) => d.data.user.uniqueId as string);
const SV_USER = () => field('shortvideo/user-detail.json', (d) => ({ handle: d.userInfo.user.uniqueId as string, id: d.userInfo.user.id as string }));
const SV_HASHTAG_PAGES: Record<string, string> = { '0': 'shortvideo/hashtag-items-page1.json', '30': 'shortvideo/hashtag-items-page2.json' };
/** The cursor of the second page of whom zola.travels follows. */
const SV_FOLLOWING_NEXT = () => field('shortvideo/following-page1.json', (d) => String(d.minCursor));

export const shortvideo: Replay = (fake, opts = {}) => {
  fake.on(SHORTVIDEO.home, page('shortvideo/home.html', { headers: { 'set-cookie': 'ttwid=1%7Creplay; Path=/' } }));
  fake.on(SHORTVIDEO.comments, (req) =>
    lookup(opts, { [SV_VIDEO()]: json(req.query.cursor === '40' ? 'shortvideo/comments-last.json' : 'shortvideo/comments-page1.json', { headers: { 'set-cookie': 'tt_chain_token=replay; Path=/' } }) }, req.query.aweme_id, json('shortvideo/error-item-unavailable.json')),
  );
  // The video's author, as the platform names it: the detail of the recorded video (any video with anyInput).
  fake.on(SHORTVIDEO.itemDetail, (req) => {
    const id = req.query.itemId ?? '';
    return lookup(opts, { [SV_VIDEO()]: { body: itemDetail(opts.anyInput ? id : SV_VIDEO()) } }, id, json('shortvideo/error-item-unavailable.json'));
  });
  fake.on(SHORTVIDEO.hashtag, (req) => lookup(opts, { [SV_HASHTAG()]: json('shortvideo/hashtag-detail.json') }, req.query.challengeName, json('shortvideo/hashtag-detail-empty.json')));
  fake.on(SHORTVIDEO.hashtagVideos, (req) => json(SV_HASHTAG_PAGES[req.query.cursor ?? ''] ?? 'shortvideo/hashtag-items-last.json', { headers: { 'set-cookie': 'tt_chain_token=replay; Path=/' } }));
  fake.on(SHORTVIDEO.liveLookup, (req) => lookup(opts, { [SV_LIVE()]: json('shortvideo/live-user-room-live.json') }, req.query.uniqueId, json('shortvideo/live-user-not-found.json')));
  fake.on(SHORTVIDEO.liveRoom, json('shortvideo/live-room-info.json'));
  // By handle: the profile page (its rehydration JSON); by id: the user-detail API.
  const user = SV_USER();
  fake.on(/^\/@[^/]+$/, (req) => lookup(opts, { [user.handle]: page('shortvideo/profile-page.html') }, lastSegment(req.path)?.slice(1), page('shortvideo/profile-page-not-found.html')));
  fake.on(SHORTVIDEO.userDetail, (req) =>
    lookup(opts, { [user.handle]: json('shortvideo/user-detail.json'), [user.id]: json('shortvideo/user-detail.json') }, req.query.userId || req.query.uniqueId, { body: { statusCode: 10221, statusMsg: 'user not found' } }),
  );
  fake.on(SHORTVIDEO.following, (req) => json(req.query.minCursor === SV_FOLLOWING_NEXT() ? 'shortvideo/following-last.json' : 'shortvideo/following-page1.json'));
};

// ---- every platform at once -----------------------------------------------------------------------

/** The replay of each live platform, by platform name. */
export const REPLAYS: Record<string, Replay> = {
  'microblog-a': microblogA,
  livestream,
  'microblog-c': microblogC,
  linkpage,
  professional,
  'microblog-b': microblogB,
  shortvideo,
};

/** Every platform's routes on one fake upstream. */
export function replayAll(fake: FakeUpstream, opts: ReplayOptions = {}): FakeUpstream {
  for (const replay of Object.values(REPLAYS)) replay(fake, opts);
  return fake;
}

/**
 * One recorded input per live operation: each answers 200 from the replay. The demo prints them;
 * the contract scenarios use them as their default query.
 */
export const RECORDED: Partial<Record<OperationId, Query>> = {
  'microblog-a-user-posts': { handle: aActors()[0]! },
  'livestream-clip': { url: clipPageUrl(clipOf(CLIPS[0]!).channel.slug, clipOf(CLIPS[0]!).id) },
  'microblog-b-profile': { handle: bUser(B_USERS[0]!).screenName },
  'shortvideo-user-following': { handle: SV_USER().handle },
  'linkpage-page': { url: `${LINKPAGE_ORIGIN}/${LINKPAGE_NAME()}` },
  'shortvideo-video-comments': { url: videoUrl(SV_VIDEO_AUTHOR, SV_VIDEO()) },
  'professional-post': { url: `${PROFESSIONAL_ORIGIN}${PROFESSIONAL.post}` },
  'microblog-c-user-posts': { handle: cAccount().acct.toLowerCase() },
  'microblog-b-user-notes': { handle: bUser(B_USERS[0]!).screenName.toLowerCase() },
  'shortvideo-user-live': { handle: SV_LIVE() },
  'microblog-b-note': { url: noteUrl(B_NOTE_AUTHOR, bNoteId(B_NOTES[0]!)) },
  'shortvideo-search-hashtag': { hashtag: SV_HASHTAG() },
};
