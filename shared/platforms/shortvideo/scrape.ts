import { ApiError, badCursor, extractionFailed, notFound } from '../../http/errors';
import type { Log } from '../../runtime/log';
import type * as v from 'valibot';
import type { Scraper } from '../../scrape/scraper';
import type { ScrapeContext } from '../../scrape/context';
import { allInOrder } from '../../scrape/concurrent';
import { CookieJar } from '../../scrape/cookies';
import { bool, count, get, int, isObject, keepGood, str } from '../../scrape/map';
import { RememberedIds } from '../../scrape/remembered';
import { keptWarm } from '../../scrape/warm';
import { type ApiAnswer, apiGet, fetchPage, session } from './client';
import { MAX_SEEN, encodeHashtagCursor, fingerprint } from './cursor';
import { mapComment, mapCommentedVideo, mapFollowed, mapFollowingProfile, mapHashtagInfo, mapHashtagVideo, mapLastLive, mapLive, mapLiveUser, rehydrationData } from './map';
import type { CommentsData, FollowingData, HashtagData, HashtagInfo, HashtagVideo, LiveData } from './resources';
import {
  DEFAULT_REGION,
  WEBCAST_ORIGIN,
  WEB_ORIGIN,
  type commentsCursorParam,
  type followingCursorParam,
  type handleParam,
  type hashtagCursorParam,
  type hashtagParam,
  liveUrl,
  profileUrl,
  type regionParam,
  regionName,
  tagUrl,
  type userIdParam,
  type videoUrlParam,
  videoUrl,
} from './site';

type Out<S extends v.GenericSchema> = v.InferOutput<S>;

/**
 * Operation 7, /v1/shortvideo/video/comments: a video's top-level comments, 40 per page, in the
 * source's relevance order. Signed upstream calls (after the warm function's first request, which
 * primes the cookie jar from the home page), together in one round trip:
 *   GET /api/comment/list/?aweme_id=<id>&count=40&cursor=<offset>   the comments
 *   GET /api/item/detail/?itemId=<id>                                 the video's author and kind
 * `data.video` is the platform's: the handle in the caller's URL can be anyone's (the site serves a
 * video under any handle), and the answer is cached for every caller of the video id. A warm
 * function remembers a video's author for an hour, so its later pages cost the list call alone.
 * A deleted, private or region-locked video is a 404 (status codes in client.ts); comments turned
 * off give 200 with no comments and total 0. The cursor is the upstream's offset.
 */
export const COMMENTS_PAGE = 40;

/** Video id -> "<video|photo>/<author handle>", as the platform last named them to this container. */
const videoAuthors = new RememberedIds('shortvideo', 3600_000, 5000);

async function commentedVideo(ctx: ScrapeContext, log: Log, ref: Out<typeof videoUrlParam>): Promise<CommentsData['video']> {
  const known = videoAuthors.get(ref.videoId)?.match(/^(video|photo)\/(.+)$/);
  if (known) return { id: ref.videoId, url: videoUrl(known[2]!, ref.videoId, known[1] as 'video' | 'photo'), handle: known[2]! };
  const { data } = await apiGet(ctx, log, {
    path: '/api/item/detail/',
    params: { itemId: ref.videoId },
    referer: ref.askedPage,
    fromPage: 'video',
    what: `video ${ref.videoId}`,
  });
  const video = mapCommentedVideo(data, ref.videoId);
  videoAuthors.remember(ref.videoId, `${video.url.includes('/photo/') ? 'photo' : 'video'}/${video.handle}`);
  return video;
}

export const scrapeComments: Scraper<{ url: Out<typeof videoUrlParam>; cursor?: Out<typeof commentsCursorParam> }, CommentsData> = async ({ url, cursor }, ctx, log) => {
  const offset = cursor ?? '0';
  // The list's answer decides first (a bad cursor, a deleted video), whatever finished first.
  const [{ data }, video] = await allInOrder([
    apiGet(ctx, log, {
      path: '/api/comment/list/',
      params: { aweme_id: url.videoId, count: COMMENTS_PAGE, cursor: offset, current_region: '', enter_from: 'tiktok_web', fromWeb: 1, from_page: 'video', is_non_personalized: 'false' },
      referer: url.askedPage,
      fromPage: 'video',
      what: `comments of video ${url.videoId}`,
      cursor: cursor !== undefined,
    }),
    commentedVideo(ctx, log, url),
  ] as const);
  // Only top-level comments (the endpoint returns those; a reply that slips in is left out). A
  // comment lacking a required value is left out and counted as drift.
  const drops = ctx.drops(log);
  const comments = keepGood(get(data, 'comments'), (c) => mapComment(c, url.videoId, drops), 'comment', drops).filter((c) => c.parentId === null);
  const next = int(get(data, 'cursor'));
  const upstreamHasMore = (int(get(data, 'has_more')) ?? 0) === 1;
  // The list ends when the upstream says so, or when its cursor stops moving forward (then the
  // session takes a new device id, the known cure for an upstream that keeps sending one page).
  const hasMore = upstreamHasMore && next !== null && next > Number(offset) && comments.length > 0;
  if (upstreamHasMore && !hasMore) {
    log.info('shortvideo comments: the upstream cursor did not move; ending the list and renewing the device id', { videoId: url.videoId, offset });
    session.renewDevice();
  }
  return {
    video,
    comments,
    count: comments.length,
    total: count(get(data, 'total')),
    cursor: hasMore ? str(next) : null,
    hasMore,
  };
};

/**
 * Operation 13, /v1/shortvideo/search/hashtag: the videos the source shows for a hashtag in a
 * region, up to 30 per page, in its ranked order.
 *   GET /api/challenge/detail/?challengeName=<name>            the hashtag (id, texts, exact counts)
 *   GET /api/challenge/item_list/?challengeID=<id>&count=30&cursor=<offset>
 * Page 1: detail, then the list (2 sequential round trips). Later pages: the cursor carries the
 * hashtag's id, so the list goes out at once; the detail comes from this warm function's memory
 * (10 minutes), else it is fetched concurrently with the list (1 round trip either way).
 * The cursor (cursor.ts) also carries fingerprints of every video already returned, so one cursor
 * chain never returns a video twice; the chain ends when the upstream ends, a page brings nothing
 * new (the device id is renewed then, as the web app would), or it has returned MAX_SEEN (600)
 * videos: the page that reaches 600 is cut there and has cursor null.
 */
export const HASHTAG_PAGE = 30;
const DETAIL_TTL_MS = 10 * 60_000;
const details = new Map<string, { info: HashtagInfo; at: number }>();
keptWarm('shortvideo', () => details.clear());
/** A warm container that showed this hashtag's page 1 a moment ago (bench set-up). */
export const rememberHashtag = (hashtag: string, region: string, info: HashtagInfo) => details.set(`${region}#${hashtag}`, { info, at: Date.now() });

const regionSay = (hashtag: string, region: string) =>
  `The hashtag #${hashtag} is not available in region ${region} (${regionName(region) ?? region}); another region may work`;

/** NOT_FOUND from the upstream for this hashtag, with the message that suggests another region. */
const inRegion = (hashtag: string, region: string) => (err: unknown) => {
  if (err instanceof ApiError && err.code === 'NOT_FOUND') throw notFound(regionSay(hashtag, region));
  throw err;
};

async function hashtagDetail(ctx: ScrapeContext, log: Log, hashtag: string, region: string): Promise<HashtagInfo> {
  const key = `${region}#${hashtag}`;
  const known = details.get(key);
  if (known && Date.now() - known.at < DETAIL_TTL_MS) return known.info;
  const { data } = await apiGet(ctx, log, {
    path: '/api/challenge/detail/',
    params: { challengeName: hashtag },
    referer: tagUrl(hashtag),
    fromPage: 'hashtag',
    region,
    what: `hashtag #${hashtag} (${region})`,
  }).catch(inRegion(hashtag, region));
  // No challenge in the answer: the hashtag does not exist, or not in this region. (A challenge
  // without its id is one the mapper cannot read: EXTRACTION_FAILED naming the id.)
  const challenge = get(data, 'challengeInfo', 'challenge');
  if (!isObject(challenge) || Object.keys(challenge).length === 0) throw notFound(regionSay(hashtag, region));
  const info = mapHashtagInfo(data, hashtag);
  details.set(key, { info, at: Date.now() });
  return info;
}

function itemList(ctx: ScrapeContext, log: Log, hashtag: string, region: string, challengeId: string, offset: number, carriesCursor: boolean): Promise<ApiAnswer> {
  return apiGet(ctx, log, {
    path: '/api/challenge/item_list/',
    params: { challengeID: challengeId, count: HASHTAG_PAGE, cursor: offset, coverFormat: 2 },
    referer: tagUrl(hashtag),
    fromPage: 'hashtag',
    region,
    what: `videos of #${hashtag} (${region}) from ${offset}`,
    cursor: carriesCursor,
  }).catch(inRegion(hashtag, region));
}

export const scrapeHashtag: Scraper<{ hashtag: Out<typeof hashtagParam>; region?: Out<typeof regionParam>; cursor?: Out<typeof hashtagCursorParam> }, HashtagData> = async ({ hashtag, region: asked, cursor }, ctx, log) => {
  const region = asked ?? DEFAULT_REGION;
  const state = cursor?.state;
  if (state && (state.hashtag !== hashtag || state.region !== region)) {
    throw badCursor(`the cursor belongs to #${state.hashtag} in ${state.region}, not #${hashtag} in ${region}`);
  }
  let info: HashtagInfo;
  let list: ApiAnswer;
  if (state) {
    [info, list] = await Promise.all([hashtagDetail(ctx, log, hashtag, region), itemList(ctx, log, hashtag, region, state.challengeId, state.offset, true)]);
  } else {
    info = await hashtagDetail(ctx, log, hashtag, region);
    list = await itemList(ctx, log, hashtag, region, info.id, 0, false);
  }
  const offset = state?.offset ?? 0;
  const seen = new Set(state?.seen ?? []);
  const videos: HashtagVideo[] = [];
  // The chain returns MAX_SEEN videos at most: the page that reaches it is cut there and is the last.
  const room = MAX_SEEN - seen.size;
  // A video lacking a required value is left out and counted as drift.
  const drops = ctx.drops(log);
  for (const video of keepGood(get(list.data, 'itemList'), (item) => mapHashtagVideo(item, drops), 'video', drops)) {
    if (videos.length >= room) break;
    const f = fingerprint(video.id);
    if (seen.has(f)) continue;
    seen.add(f);
    videos.push(video);
  }
  const next = int(get(list.data, 'cursor'));
  const upstreamHasMore = get(list.data, 'hasMore') === true || int(get(list.data, 'hasMore')) === 1;
  if (upstreamHasMore && videos.length === 0 && room > 0) {
    log.info('shortvideo hashtag page brought nothing new; ending the chain and renewing the device id', { hashtag, region, offset });
    session.renewDevice();
  }
  const goesOn = upstreamHasMore && videos.length > 0 && next !== null && next > offset && seen.size < MAX_SEEN;
  const served = str(get(list.data, 'extra', 'region')) ?? str(get(list.data, 'region'));
  return {
    hashtag: info,
    region,
    regionName: regionName(region) ?? region,
    servedRegion: served && /^[A-Za-z]{2}$/.test(served) ? served.toUpperCase() : region,
    videos,
    mediaHeaders: { Cookie: list.chainToken ? `tt_chain_token=${list.chainToken}` : null, Referer: `${WEB_ORIGIN}/` },
    cursor: goesOn ? encodeHashtagCursor({ hashtag, region, challengeId: info.id, offset: next, seen }) : null,
  };
};

/**
 * Operation 11, /v1/shortvideo/user/live: is the account live now, with its streams.
 *   GET https://www.tiktok.com/api-live/user/room/?uniqueId=<handle>&sourceType=54   (unsigned)
 *       status 2 = live, 4 = offline (the room id alone proves nothing: it stays after a live)
 *   GET https://webcast.tiktok.com/webcast/room/info/?room_id=<id>                  (unsigned, when live)
 * Offline: 1 round trip. Live: 2 sequential; when this warm function saw the account live in
 * that room before, both go out at once (1 round trip). An unknown account (19881007) is a 404.
 */
const liveRooms = new RememberedIds('shortvideo', 3600_000, 5000);

function liveJar(): CookieJar {
  const jar = new CookieJar();
  jar.set('tt-target-idc', 'useast1a');
  return jar;
}

const roomInfo = (ctx: ScrapeContext, log: Log, roomId: string) =>
  apiGet(ctx, log, {
    origin: WEBCAST_ORIGIN,
    path: '/webcast/room/info/',
    params: { aid: 1988, room_id: roomId, msToken: '' },
    referer: `${WEB_ORIGIN}/`,
    fromPage: 'user',
    what: `live room ${roomId}`,
    signed: false,
    prime: false,
    jar: liveJar(),
  });

/** An age-restricted room answers without the room (a prompt, or almost no keys) to a logged-out client. */
const isAgeGate = (room: unknown) => !isObject(room) || 'prompts' in room || Object.keys(room).length <= 1 || get(room, 'age_restricted', 'restricted') === true;

export const scrapeLive: Scraper<{ handle: Out<typeof handleParam> }, LiveData> = async ({ handle }, ctx, log) => {
  const knownRoom = liveRooms.get(handle);
  const early = knownRoom ? roomInfo(ctx, log, knownRoom).then((a) => a, () => null) : undefined;
  const { data: lookupAnswer } = await apiGet(ctx, log, {
    path: '/api-live/user/room/',
    params: { uniqueId: handle, sourceType: 54, msToken: '' },
    referer: liveUrl(handle),
    fromPage: 'user',
    what: `live room of @${handle}`,
    signed: false,
    prime: false,
    jar: liveJar(),
  });
  const lookup = get(lookupAnswer, 'data');
  // An unknown account is said by its code (19881007 user_not_found, client.ts); an answer without
  // the user and without that code says nothing about the account.
  if (!isObject(get(lookup, 'user'))) throw extractionFailed(`shortvideo live room of @${handle}: an answer without data.user (statusCode ${String(get(lookupAnswer, 'statusCode') ?? get(lookupAnswer, 'status_code') ?? 'none')})`);
  const user = mapLiveUser(lookup);
  const status = int(get(lookup, 'liveRoom', 'status')) ?? int(get(lookup, 'user', 'status'));
  const roomId = str(get(lookup, 'user', 'roomId'));
  if (status !== 2 || !roomId || roomId === '0') {
    liveRooms.forget(handle);
    return { isLive: false, user, live: null, lastLive: mapLastLive(lookup) };
  }
  liveRooms.remember(handle, roomId);
  const info = (knownRoom === roomId ? await early : null) ?? (await roomInfo(ctx, log, roomId));
  const room = get(info.data, 'data');
  // The room ended between the two calls.
  if (isObject(room) && int(get(room, 'status')) === 4) return { isLive: false, user, live: null, lastLive: mapLastLive(lookup) };
  const gated = isAgeGate(room);
  return { isLive: true, user, live: mapLive(gated ? {} : room, lookup, gated, ctx.drops(log)), lastLive: null };
};

/**
 * Operation 5, /v1/shortvideo/user/following: the accounts a user follows, 30 per page, most
 * recently followed first.
 *   by handle: GET https://www.tiktok.com/@<handle> (the profile page's rehydration JSON; the signed
 *              /api/user/detail/?uniqueId= when the page comes without it)
 *   by userId: GET /api/user/detail/?userId=<id> (signed; the only id route the web app has)
 *   then       GET /api/user/list/?secUid=<secUid>&scene=21&count=30&maxCursor=0&minCursor=<cursor>
 * Unknown, banned and private accounts, and accounts hiding their following list, are 404, where the
 * source says so (its status codes, privateAccount, followingVisibility). The list is served to
 * logged-in sessions only as a rule: a login wall (10101/10102, a redirect to /login) is 503
 * UPSTREAM_BLOCKED saying so. An answer without the account, or an empty list for an account that
 * follows someone, with no such sign, is EXTRACTION_FAILED naming what was missing.
 */
export const FOLLOWING_PAGE = 30;
const NEEDS_SESSION = 'The source shows following lists only to a logged-in session, which the service does not use';
/** UPSTREAM_BLOCKED whose message says what the source refused. */
const blockedSaying = (message: string, internal: string, retryAfter?: number) => new ApiError('UPSTREAM_BLOCKED', message, { internal, retryAfter });
const GONE: Record<string, string> = {
  '10202': 'No such account',
  '10221': 'No such account (unknown or banned)',
  '10222': 'The account is private',
};

/** The account's user-detail object; 404 for the codes that say it is gone or private. */
function checkedDetail(detail: unknown, who: string): unknown {
  const code = String(get(detail, 'statusCode') ?? get(detail, 'status_code') ?? '0');
  if (GONE[code]) throw notFound(GONE[code]);
  if (code !== '0') throw extractionFailed(`shortvideo profile ${who}: status code ${code}`);
  if (!isObject(get(detail, 'userInfo', 'user'))) throw extractionFailed(`shortvideo profile ${who}: status code 0 without userInfo.user (no not-found code, no login sign)`);
  return detail;
}

async function detailByApi(ctx: ScrapeContext, log: Log, params: Record<string, string>, who: string): Promise<unknown> {
  const { data } = await apiGet(ctx, log, { path: '/api/user/detail/', params: { uniqueId: '', secUid: '', ...params }, referer: `${WEB_ORIGIN}/`, fromPage: 'user', what: `profile ${who}` });
  return data;
}

const userDetailIn = (html: string) => get(rehydrationData(html), '__DEFAULT_SCOPE__', 'webapp.user-detail');

async function profileByHandle(ctx: ScrapeContext, log: Log, handle: string): Promise<unknown> {
  await session.prime(ctx, log);
  // A 404 page still says why in its data when it has any (gone, private); without, there is no such account.
  const page = await fetchPage(ctx, log, profileUrl(handle), `profile page @${handle}`, {
    notFound: [{ status: 404, test: (a) => userDetailIn(a.body) === undefined, say: 'No such account' }],
  });
  const detail = userDetailIn(page.body);
  if (detail !== undefined) return checkedDetail(detail, `@${handle}`);
  // A client-rendered shell without the account: the signed detail API has the same object.
  log.info('shortvideo profile page without rehydration data; asking the user-detail API', { handle });
  return checkedDetail(await detailByApi(ctx, log, { uniqueId: handle }, `@${handle}`), `@${handle}`);
}

async function profileById(ctx: ScrapeContext, log: Log, userId: string): Promise<unknown> {
  const data = await detailByApi(ctx, log, { userId }, `id ${userId}`);
  // An unknown id is said by its code (10202/10221: 404). Status 0 without the account says neither
  // that it does not exist nor that a login is needed: the source did not resolve the id.
  if (!isObject(get(data, 'userInfo', 'user')) && String(get(data, 'statusCode') ?? get(data, 'status_code') ?? '0') === '0') {
    throw new ApiError('EXTRACTION_FAILED', 'The source answered the numeric id without an account and without saying why; call with the handle instead', {
      internal: `shortvideo user-detail by id ${userId}: status code 0 without userInfo.user (no not-found code, no login sign)`,
    });
  }
  return checkedDetail(data, `id ${userId}`);
}

export const scrapeFollowing: Scraper<{ handle?: Out<typeof handleParam>; userId?: Out<typeof userIdParam>; cursor?: Out<typeof followingCursorParam> }, FollowingData> = async ({ handle, userId, cursor }, ctx, log) => {
  const detail = handle ? await profileByHandle(ctx, log, handle) : await profileById(ctx, log, userId!);
  const user = get(detail, 'userInfo', 'user');
  const profile = mapFollowingProfile(detail);
  if (bool(get(user, 'privateAccount')) === true) throw notFound('The account is private');
  const visibility = int(get(user, 'followingVisibility'));
  if (visibility !== null && visibility !== 1) throw notFound('The account hides its following list');

  const sent = cursor ?? '0';
  const { data } = await apiGet(ctx, log, {
    path: '/api/user/list/',
    params: { secUid: profile.secUid, count: FOLLOWING_PAGE, maxCursor: 0, minCursor: sent, scene: 21 },
    referer: profile.url,
    fromPage: 'user',
    what: `following of @${profile.handle}`,
    cursor: cursor !== undefined,
  }).catch((err: unknown) => {
    if (err instanceof ApiError && err.code === 'UPSTREAM_BLOCKED') throw blockedSaying(`${NEEDS_SESSION} (${err.message})`, err.internal ?? err.message, err.retryAfter);
    throw err;
  });
  // An account the upstream lists twice on one page is returned once; one lacking a required value
  // is left out and counted as drift.
  const drops = ctx.drops(log);
  const following = [...new Map(keepGood(get(data, 'userList'), mapFollowed, 'followed account', drops).map((f) => [f.id, f] as const)).values()];
  if (following.length === 0 && cursor === undefined && (profile.followingCount ?? 0) > 0) {
    // Likely the logged-out view, but the answer does not say so (no login code, no redirect).
    throw new ApiError('EXTRACTION_FAILED', 'The source answered an empty following list for an account that follows others, without saying why', {
      internal: `shortvideo following of @${profile.handle}: empty userList (statusCode ${String(get(data, 'statusCode') ?? get(data, 'status_code') ?? 'none')}) for ${profile.followingCount} followed, no login sign`,
    });
  }
  const next = str(get(data, 'minCursor'));
  const upstreamHasMore = bool(get(data, 'hasMore')) === true;
  // The list ends when the upstream says so, repeats the cursor, or a page brings no accounts.
  const hasMore = upstreamHasMore && following.length > 0 && next !== null && /^\d{1,13}$/.test(next) && next !== sent && next !== '0';
  return {
    profile,
    following,
    count: following.length,
    total: int(get(data, 'total')) ?? profile.followingCount,
    cursor: hasMore ? next : null,
    hasMore,
  };
};
