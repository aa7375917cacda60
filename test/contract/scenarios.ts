import type { OperationId } from '../../shared/operations';
import { PUBLIC_HOSTS as LIVESTREAM_HOSTS } from '../../shared/platforms/livestream/site';
import { encodeHashtagCursor, fingerprint } from '../../shared/platforms/shortvideo/cursor';
import { fixture, fixtureText, type FakeReply, type FakeUpstream } from '../../dev/upstream/fake';
import { LINKPAGE_GRAPHQL, linkpageRoutes } from '../../dev/upstream/linkpage';
import { microblogBRoutes } from '../../dev/upstream/microblog-b';
import * as replay from '../../dev/upstream/replay';
import { itemDetail } from '../../dev/upstream/shortvideo';

/**
 * One contract scenario per operation: the fake upstream routes under which `query` succeeds (the
 * replay of the recorded fixtures, dev/upstream/replay.ts, with one of its recorded inputs), and
 * the fake answers that make the operation produce each error status it lists.
 *
 * Every routed ('live') operation must have an entry here: the contract test fails otherwise, so
 * routing a new operation forces a contract scenario.
 */
export type Query = Record<string, string>;

export interface Variation {
  /** Routes registered after the scenario's own `routes` (the last registration wins). */
  routes?: (fake: FakeUpstream) => void;
  /** Replaces the scenario's query; default: the scenario's query. */
  query?: Query;
}

export interface Scenario {
  /** Fake upstream routes under which `query` gives 200 (the platform's replay). */
  routes: (fake: FakeUpstream) => void;
  query: Query;
  /** Further requests that must also give a spec-valid 200 (other fixtures, other parameter forms). */
  moreSuccesses?: (Variation & { name: string })[];
  /** 404: the content does not exist or is not public. Required when the operation lists 404. */
  notFound?: Variation;
  /** 400: an invalid or expired cursor. Required when the operation lists 400. */
  badCursor?: Variation & { query: Query };
  /** 503: the source is down. Required when the operation lists 503. */
  unavailable?: Variation;
  /** What the upstream fault matrix (test/reliability/upstream-faults.ts) must know of its paths. */
  faults?: {
    /**
     * Paths whose failure the operation survives by design (a cookie-priming home page, a reply thread
     * the guest view may refuse, a page with an API fallback): a fault there alone may give a 200.
     */
    bestEffort?: RegExp[];
    /** Paths that serve HTML pages: a JSON body there is a page without the content (blocked or unexpected data). */
    pages?: RegExp[];
  };
}

// ---- 1. microblog-a (test/unit/microblog-a, test/gateway) ------------------------------------

const { profile: A_PROFILE, feed: A_FEED } = replay.MICROBLOG_A;
const A_QUERY = replay.RECORDED['microblog-a-user-posts']!;

const microblogA: Scenario = {
  routes: replay.microblogA,
  query: A_QUERY,
  moreSuccesses: [
    { name: 'page 2 (last page)', query: { ...A_QUERY, cursor: '2026-09-21T10:00:00.000Z' } },
    { name: 'by userId', query: { userId: 'did:plc:q7fx2mlw4ntkz3yahs6cvbdr' } },
  ],
  notFound: { query: { handle: 'nobody-here.bsky.social' } },
  badCursor: {
    routes: (fake) => void fake.on(A_FEED, { status: 400, body: fixture('microblog-a/error-bad-cursor.json') }),
    query: { ...A_QUERY, cursor: 'garbage' },
  },
  unavailable: { routes: (fake) => void fake.on(A_FEED, { status: 502, body: { error: 'InternalServerError' } }) },
};

// ---- 2. livestream (test/unit/livestream, test/gateway) -------------------------------------

const CLIP_ID = 'clip_01JQ7ZK3M8W4TYV5R2N6P9XBCD';
const CLIP = replay.clipPath(CLIP_ID);
const clipUrl = (channel: string, id: string) => `https://${LIVESTREAM_HOSTS[0]}/${channel}/clips/${id}`;

const livestream: Scenario = {
  routes: replay.livestream,
  query: replay.RECORDED['livestream-clip']!,
  moreSuccesses: [
    { name: 'MP4-era clip (2023)', query: { url: clipUrl('oldtimer', 'clip_01H2K8R4TQ6VZ3N5W7YB9CDMFG') } },
    { name: 'newer {data, message} shape', query: { url: clipUrl('citywalker', 'clip_01KZ4N7QWX2RT9VB6MC3HJ8DPE') } },
  ],
  notFound: { routes: (fake) => void fake.on(CLIP, { status: 404, body: fixture('livestream/clip-not-found.json') }) },
  unavailable: { routes: (fake) => void fake.on(CLIP, { status: 502, body: 'Bad Gateway' }) },
};

// ---- 4. citygame (test/unit/citygame/, test/gateway/citygame-daily.test.ts) ---------------------

/**
 * The deployer names the source (CITYGAME_SOURCE_URL, CITYGAME_FIELDS); these scenarios name an
 * https one as a deployment would, on a reserved example host, and the harness's
 * UPSTREAM_CITYGAME_URL sends it to the fake. The bulletin is a test document, not a real game's.
 */
const CITY_JSON = '/citygame/today.json';
const CITY_PAGE = '/citygame/daily';
const CITY_BULLETIN = { date: '2026-03-02', weekday: 'Monday', weather: 'Light rain, 14°C', headline: 'Tram line 4 reopens', tip: 'Buy bread before noon' };
const citygameSource = (path: string, fields?: Record<string, string>) => {
  process.env.CITYGAME_SOURCE_URL = `https://bulletin.example${path}`;
  if (fields) process.env.CITYGAME_FIELDS = JSON.stringify(fields);
  else delete process.env.CITYGAME_FIELDS;
};

const citygame: Scenario = {
  routes: (fake) => {
    citygameSource(CITY_JSON);
    fake.on(CITY_JSON, { body: CITY_BULLETIN });
  },
  query: {},
  moreSuccesses: [
    {
      name: 'JSON Pointers into a nested document',
      routes: (fake) => {
        citygameSource('/citygame/v2/bulletin', { date: '/bulletin/day', weekday: '/bulletin/weekday', weather: '/bulletin/sky', headline: '/bulletin/news/0', tip: '/bulletin/tip' });
        fake.on('/citygame/v2/bulletin', { body: { bulletin: { day: CITY_BULLETIN.date, weekday: CITY_BULLETIN.weekday, sky: CITY_BULLETIN.weather, news: [CITY_BULLETIN.headline], tip: CITY_BULLETIN.tip } } });
      },
    },
    {
      name: 'an HTML page read through CSS selectors',
      routes: (fake) => {
        citygameSource(CITY_PAGE, { date: 'time', weekday: '.weekday', weather: '.weather', headline: 'h1', tip: '.tip' });
        const b = CITY_BULLETIN;
        fake.on(CITY_PAGE, { body: `<!doctype html><html><body><h1>${b.headline}</h1><time>${b.date}</time><span class="weekday">${b.weekday}</span><p class="weather">${b.weather}</p><p class="tip">${b.tip}</p></body></html>` });
      },
    },
  ],
  unavailable: { routes: (fake) => void fake.on(CITY_JSON, { status: 502, body: 'Bad Gateway' }) },
};

// ---- 9. microblog-c (test/unit/microblog-c, test/gateway) ------------------------------------

const cAccount = fixture('microblog-c/account.json') as { id: string; acct: string };
const C_QUERY = replay.RECORDED['microblog-c-user-posts']!;

const microblogC: Scenario = {
  routes: replay.microblogC,
  query: C_QUERY,
  moreSuccesses: [
    {
      name: 'page 2 (last page)',
      query: {
        ...C_QUERY,
        cursor: (fixture('microblog-c/statuses-page1.json') as { id: string }[]).slice(-1)[0]!.id,
      },
    },
    { name: 'by userId', query: { userId: cAccount.id } },
  ],
  // Unknown by name and by id (the scraper may know the id of a name it resolved before).
  notFound: {
    routes: (fake) => {
      fake.on(replay.MICROBLOG_C.lookup, { status: 404, body: fixture('microblog-c/error-not-found.json') });
      fake.on(replay.MICROBLOG_C.account(cAccount.id), { status: 404, body: fixture('microblog-c/error-not-found.json') });
    },
  },
  badCursor: {
    routes: (fake) => void fake.on(replay.MICROBLOG_C.statuses(cAccount.id), { status: 400, body: fixture('microblog-c/error-bad-request.json') }),
    // A well-formed post id that the upstream refuses.
    query: { ...C_QUERY, cursor: '107814993046697416' },
  },
  unavailable: {
    routes: (fake) =>
      void fake.on(replay.MICROBLOG_C.statuses(cAccount.id), { status: 503, body: 'upstream connect error or disconnect/reset before headers', headers: { 'content-type': 'text/plain' } }),
  },
};

// ---- 6. linkpage (test/unit/linkpage/, test/gateway/linkpage-page.test.ts) ---------------------

const linkpage: Scenario = {
  routes: replay.linkpage,
  query: replay.RECORDED['linkpage-page']!,
  moreSuccesses: [
    { name: 'www., upper case, trailing slash, query', query: { url: 'https://www.pillar.io/MarisolCooks/?utm_source=ig' } },
    {
      name: 'a page with no theme, socials or items',
      routes: (fake) =>
        linkpageRoutes(fake, {
          page: () => {
            const bare = fixture('linkpage/page.json') as { data: Record<string, unknown> };
            return { body: { data: { ...bare.data, banner: { url_key: 'marisolcooks', clicks: 0, customizations: {} }, links: [], products: [], builderItems: [], influencer: { ...(bare.data.influencer as object), socials: [] } } } };
          },
        }),
    },
  ],
  // A deleted page: the name resolves to nothing, and its id (a warm function may remember it) reads no influencer.
  notFound: {
    routes: (fake) => linkpageRoutes(fake, { knows: () => false, page: () => ({ body: { data: { influencer: null, banner: null, links: [], products: [], builderItems: [] } } }) }),
  },
  unavailable: { routes: (fake) => void fake.on(LINKPAGE_GRAPHQL, { status: 502, body: 'Bad Gateway' }) },
  faults: { pages: [/^\/login$/, /^\/js\//] },
};

// ---- 8. professional (test/unit/professional/, test/gateway/professional-post.test.ts) ---------

const PRO_POST = replay.PROFESSIONAL.post;
const proUrl = (path: string, host = 'www.linkedin.com') => `https://${host}${path}`;
const proPage = (path: string, file: string) => (fake: FakeUpstream) => void fake.on(path, { body: fixtureText(`professional/${file}.html`) });

const professional: Scenario = {
  routes: replay.professional,
  query: replay.RECORDED['professional-post']!,
  moreSuccesses: [
    { name: 'article', query: { url: proUrl(replay.PROFESSIONAL.article, 'fr.linkedin.com') } },
    { name: 'image post, author without JSON-LD image', routes: proPage(PRO_POST, 'post-image'), query: { url: `${proUrl(PRO_POST)}?utm_source=share` } },
    { name: 'document post', routes: proPage(PRO_POST, 'post-document') },
    { name: 'reshare', routes: proPage(PRO_POST, 'post-reshare') },
  ],
  notFound: { query: { url: proUrl('/posts/nobody_gone-activity-7301122334455660000-Zz9Z') } },
  unavailable: { routes: (fake) => void fake.on(PRO_POST, { status: 502, body: 'Bad Gateway' }) },
  faults: { pages: [/^\/(posts|pulse)\//] },
};

// ---- 3, 10, 12. microblog-b (test/gateway/microblog-b-*.test.ts) ---------------------------------

/** Each route answers `reply` through the guest-token check (so a refused token still refreshes). */
const bRoutes = (replies: Parameters<typeof microblogBRoutes>[1] = {}) => (fake: FakeUpstream) => void microblogBRoutes(fake, replies);
const bDown: FakeReply = { status: 502, body: 'Bad Gateway' };
const NOTE_QUERY = replay.RECORDED['microblog-b-note']!;

const microblogBProfile: Scenario = {
  routes: replay.microblogB,
  query: replay.RECORDED['microblog-b-profile']!,
  moreSuccesses: [
    { name: '@handle', query: { handle: '@HarborKite' } },
    { name: 'legacy user schema', query: { handle: 'tidewren' } },
    { name: 'protected account', query: { handle: 'https://x.com/quietcove' } },
  ],
  notFound: { routes: bRoutes({ UserByScreenName: { body: fixture('microblog-b/user-suspended.json') } }) },
  unavailable: { routes: bRoutes({ UserByScreenName: bDown }) },
};

const microblogBUserNotes: Scenario = {
  routes: replay.microblogB,
  query: replay.RECORDED['microblog-b-user-notes']!,
  moreSuccesses: [
    { name: 'trim=true', query: { ...replay.RECORDED['microblog-b-user-notes']!, trim: 'true' } },
    { name: 'no notes', query: { handle: 'tidewren' } },
  ],
  // Unknown by name, and suspended by id (the scraper may know the handle's id from an earlier call).
  notFound: {
    routes: bRoutes({ UserByScreenName: { body: fixture('microblog-b/user-not-found.json') }, UserTweets: { body: fixture('microblog-b/user-notes-suspended.json') } }),
  },
  unavailable: { routes: bRoutes({ UserTweets: bDown }) },
};

const microblogBNote: Scenario = {
  routes: replay.microblogB,
  query: NOTE_QUERY,
  moreSuccesses: [
    { name: 'trim=true', query: { ...NOTE_QUERY, trim: 'true' } },
    { name: 'replies refused by the guest view', routes: bRoutes({ TweetDetail: { body: fixture('microblog-b/error-denied.json') } }) },
    { name: 'long-form note', query: { url: 'https://twitter.com/HarborKite/status/1970000000000000400' } },
    { name: 'article note', query: { url: 'https://x.com/HarborKite/status/2020000000000002000' } },
  ],
  // Operation 12 lists no 404 (a deleted note is still 404 by the common rule: test/gateway/microblog-b-note.test.ts).
  unavailable: { routes: bRoutes({ TweetResultByRestId: bDown }) },
  // Replies the guest view refuses are left out: the focal note is still served (issue 8).
  faults: { bestEffort: [/\/TweetDetail$/] },
};

// ---- 7. shortvideo comments (test/gateway/shortvideo-video-comments.test.ts) -------------------

const SV = replay.SHORTVIDEO;
const SV_VIDEO_URL = replay.RECORDED['shortvideo-video-comments']!.url!;

const shortvideoComments: Scenario = {
  routes: replay.shortvideo,
  query: { url: SV_VIDEO_URL },
  moreSuccesses: [
    { name: 'page 2 (last page)', query: { url: SV_VIDEO_URL, cursor: '40' } },
    { name: 'comments turned off', routes: (fake) => void fake.on(SV.comments, { body: fixture('shortvideo/comments-off.json') }), query: { url: 'https://m.tiktok.com/@lagos.lens/photo/7401122334455667788' } },
    {
      name: 'a photo post',
      routes: (fake) => {
        fake.on(SV.comments, { body: fixture('shortvideo/comments-page1.json') });
        fake.on(SV.itemDetail, (req) => ({ body: itemDetail(req.query.itemId ?? '', 'shortvideo/item-detail-photo.json') }));
      },
      query: { url: 'https://www.tiktok.com/@lagos.lens/photo/7401122334455667789' },
    },
  ],
  notFound: { routes: (fake) => void fake.on(SV.comments, { body: fixture('shortvideo/error-item-unavailable.json') }) },
  badCursor: {
    routes: (fake) => void fake.on(SV.comments, { body: { status_code: 10201, status_msg: 'invalid parameter' } }),
    query: { url: SV_VIDEO_URL, cursor: '99999' },
  },
  unavailable: { routes: (fake) => void fake.on(SV.comments, { body: fixture('shortvideo/captcha.json') }) },
  // The home page only primes the cookie jar; the API answers without it.
  faults: { bestEffort: [/^\/$/], pages: [/^\/$/] },
};

// ---- 13. shortvideo hashtag videos (test/gateway/shortvideo-search-hashtag.test.ts) -------------

const shortvideoHashtag: Scenario = {
  routes: replay.shortvideo,
  query: replay.RECORDED['shortvideo-search-hashtag']!,
  moreSuccesses: [
    {
      name: 'page 2 (cursor of page 1)',
      query: { hashtag: 'lagossunset', region: 'NG', cursor: encodeHashtagCursor({ hashtag: 'lagossunset', region: 'NG', challengeId: '1600000000000001', offset: 30, seen: new Set([fingerprint('7500000000000000002')]) }) },
    },
    { name: 'last page', query: { hashtag: 'lagossunset', cursor: encodeHashtagCursor({ hashtag: 'lagossunset', region: 'NG', challengeId: '1600000000000001', offset: 60, seen: new Set() }) } },
    { name: 'another region', query: { hashtag: '#LagosSunset', region: 'gh' } },
  ],
  notFound: { query: { hashtag: 'nowhere', region: 'KE' } },
  badCursor: { query: { hashtag: 'lagossunset', cursor: 'tampered.AAAAAAAAAAAAAAAAAAAAAA' } },
  unavailable: { routes: (fake) => void fake.on(SV.hashtagVideos, { body: '' }) },
  // The home page only primes the cookie jar; the API answers without it.
  faults: { bestEffort: [/^\/$/], pages: [/^\/$/] },
};

// ---- 11. shortvideo live status (test/gateway/shortvideo-user-live.test.ts) -----------------------

const shortvideoLive: Scenario = {
  routes: replay.shortvideo,
  query: replay.RECORDED['shortvideo-user-live']!,
  moreSuccesses: [
    { name: 'offline, with the last live', routes: (fake) => void fake.on(SV.liveLookup, { body: fixture('shortvideo/live-user-room-offline.json') }), query: { handle: '@qlai.plays' } },
    { name: 'never live', routes: (fake) => void fake.on(SV.liveLookup, { body: fixture('shortvideo/live-user-room-never.json') }), query: { handle: 'https://www.tiktok.com/@quiet.one' } },
    { name: 'age-restricted room', routes: (fake) => void fake.on(SV.liveRoom, { body: fixture('shortvideo/live-room-info-age-restricted.json') }), query: { handle: 'qlai.plays' } },
  ],
  notFound: { query: { handle: 'nobody.here' } },
  unavailable: { routes: (fake) => void fake.on(SV.liveLookup, { status: 502, body: 'bad gateway' }) },
  // The home page only primes the cookie jar; the API answers without it.
  faults: { bestEffort: [/^\/$/], pages: [/^\/$/] },
};

// ---- 5. shortvideo following (test/gateway/shortvideo-user-following.test.ts) --------------------

const SV_PROFILE = '/@zola.travels';
const shortvideoFollowing: Scenario = {
  routes: replay.shortvideo,
  query: replay.RECORDED['shortvideo-user-following']!,
  moreSuccesses: [
    { name: 'page 2 (last page)', query: { handle: '@zola.travels', cursor: '1745042188' } },
    { name: 'by userId', query: { userId: '6799800000000000001' } },
  ],
  notFound: { routes: (fake) => void fake.on(SV_PROFILE, { body: fixtureText('shortvideo/profile-page-hidden-following.html') }) },
  badCursor: { routes: (fake) => void fake.on(SV.following, { body: { statusCode: 10201, statusMsg: 'invalid parameter' } }), query: { handle: 'zola.travels', cursor: '99' } },
  unavailable: { routes: (fake) => void fake.on(SV.following, { body: fixture('shortvideo/following-login.json') }) },
  // The home page only primes the jar; the profile page falls back to the user-detail API.
  faults: { bestEffort: [/^\/$/, /^\/@/], pages: [/^\/$/, /^\/@/] },
};

export const scenarios: Partial<Record<OperationId, Scenario>> = {
  'microblog-a-user-posts': microblogA,
  'livestream-clip': livestream,
  'citygame-daily': citygame,
  'linkpage-page': linkpage,
  'microblog-c-user-posts': microblogC,
  'professional-post': professional,
  'microblog-b-profile': microblogBProfile,
  'microblog-b-user-notes': microblogBUserNotes,
  'microblog-b-note': microblogBNote,
  'shortvideo-video-comments': shortvideoComments,
  'shortvideo-search-hashtag': shortvideoHashtag,
  'shortvideo-user-live': shortvideoLive,
  'shortvideo-user-following': shortvideoFollowing,
};
