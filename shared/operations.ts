import type * as v from 'valibot';
import * as cityR from './platforms/citygame/resources';
import { SOURCE_URL_VARIABLE as CITYGAME_SOURCE } from './platforms/citygame/source';
import * as aR from './platforms/microblog-a/resources';
import * as bR from './platforms/microblog-b/resources';
import * as cR from './platforms/microblog-c/resources';
import * as liveR from './platforms/livestream/resources';
import * as linkR from './platforms/linkpage/resources';
import * as proR from './platforms/professional/resources';
import * as svR from './platforms/shortvideo/resources';
import * as a from './platforms/microblog-a/site';
import * as b from './platforms/microblog-b/site';
import * as c from './platforms/microblog-c/site';
import * as live from './platforms/livestream/site';
import * as link from './platforms/linkpage/site';
import * as pro from './platforms/professional/site';
import * as sv from './platforms/shortvideo/site';
import type { ParamDef, ParamSchema, ParamValues } from './http/validation';
import type { Scraper } from './scrape/scraper';
import type { RequiredValues } from './scrape/resource';

/**
 * THE table of the thirteen operations. The CDK stack, the local gateway, the docs and the contract
 * tests all read it; nothing here is listed anywhere else. `status: 'planned'` operations have their
 * parameters validated already but are neither deployed nor routed until their scraper exists.
 *
 * Each entry is a typed contract: `params` (valibot schemas from the platform's site.ts) and `data`
 * (the resource schema from the platform's resources.ts). `ScraperOf<id>` derives the scraper's
 * type from both, so a function file's scraper, and every mapper under it, is checked against the
 * contract by the compiler. The query rules (`params`, `oneOf`) are what the operation's function
 * validates a request by (shared/http/validation.ts).
 */
export type Platform = 'microblog-a' | 'microblog-b' | 'microblog-c' | 'shortvideo' | 'livestream' | 'professional' | 'linkpage' | 'citygame';
export type Status = 200 | 400 | 401 | 402 | 404 | 422 | 429 | 503;

/** What an operation accepts: its route and its query's rules. */
export interface OperationQuery {
  path: `/v1/${string}`;
  params: Record<string, ParamDef>;
  /** Exactly one of each pair must be present. */
  oneOf?: readonly (readonly [string, string])[];
}

export interface Operation extends OperationQuery {
  /** Stable id: names the Lambda function, the handler file and the cache key prefix. */
  id: string;
  /** The spec's operation number. */
  number: number;
  platform: Platform;
  summary: string;
  /**
   * The environment variable that names the deployment's source, for an operation whose source is
   * configuration: unset, the operation is routed but answers 503, and /v1/status says 'not configured'.
   */
  sourceVariable?: string;
  /** The operation's `data` without `fetchedAt` (which the pipeline adds). */
  data: v.GenericSchema;
  /**
   * Per resource of `data`, the values it cannot be built without (issue 31; the platform's
   * resources.ts, with where each list comes from). An item of a list lacking one is left out and
   * counted as drift; a single resource lacking one is 503 EXTRACTION_FAILED. Every other value is
   * optional: null when the platform leaves it out.
   */
  required: readonly RequiredValues[];
  pageSize?: number;
  /** Responses the spec lists for this operation. */
  responses: readonly Status[];
  /**
   * Statuses the service answers beyond the spec's per-operation list, where a common rule of the
   * spec applies that the list leaves out (documented in docs, OpenAPI and the README).
   */
  alsoAnswers?: readonly Status[];
  status: 'live' | 'planned';
  /** Whether the scraper parses HTML (and so bundles linkedom). */
  parsesHtml: boolean;
}

const cursor = <S extends ParamSchema>(schema: S, description: string) => ({ schema, cursor: true, description }) as const satisfies ParamDef<S>;

const ALL: readonly Status[] = [200, 400, 401, 402, 404, 422, 429, 503];
const NO_400: readonly Status[] = [200, 401, 402, 404, 422, 429, 503];

export const operations = [
  {
    id: 'microblog-a-user-posts',
    path: '/v1/microblog-a/user/posts',
    params: {
      handle: { schema: a.handleParam, description: 'Handle, @handle, bare name (read as <name>.bsky.social), or profile URL', example: 'alice.bsky.social' },
      userId: { schema: a.userIdParam, description: 'Decentralized identifier, did:plc:<24 base32 chars>', example: 'did:plc:abcdefghijklmnopqrstuvwx' },
      cursor: cursor(a.cursorParam, 'The cursor of the previous page'),
    },
    oneOf: [['handle', 'userId']],
    number: 1,
    platform: 'microblog-a',
    summary: "An account's posts, newest first, as on its profile's Posts tab (posts, reposts, own threads; pinned post first on page 1).",
    pageSize: 30,
    data: aR.UserPostsData,
    required: aR.REQUIRED,
    responses: ALL,
    status: 'live',
    parsesHtml: false,
  },
  {
    id: 'livestream-clip',
    path: '/v1/livestream/clip',
    params: {
      url: { schema: live.urlParam, required: true, description: 'Public clip URL: https://kick.com/<channel>/clips/clip_<id> or https://kick.com/<channel>?clip=clip_<id>', example: 'https://kick.com/somechannel/clips/clip_01JQ7ZK3M8W4TYV5R2N6P9XBCD' },
    },
    number: 2,
    platform: 'livestream',
    summary: 'A clip: title, counts, duration, thumbnail, HLS playlist, source stream/VOD, category, channel and creator.',
    data: liveR.ClipData,
    required: liveR.REQUIRED,
    responses: NO_400,
    status: 'live',
    parsesHtml: false,
  },
  {
    id: 'microblog-b-profile',
    path: '/v1/microblog-b/profile',
    params: { handle: { schema: b.handleParam, required: true, description: 'Handle (1-15 letters, digits, _), @handle, or profile URL on x.com / twitter.com', example: 'nasa' } },
    number: 3,
    platform: 'microblog-b',
    summary: 'Profile information, stats and metadata (no posts).',
    data: bR.ProfileData,
    required: bR.PROFILE_REQUIRED,
    responses: NO_400,
    status: 'live',
    parsesHtml: false,
  },
  {
    id: 'citygame-daily',
    path: '/v1/citygame/daily',
    params: {},
    number: 4,
    platform: 'citygame',
    sourceVariable: CITYGAME_SOURCE,
    summary: "Today's in-game bulletin, read from the source the deployment names (CITYGAME_SOURCE_URL).",
    data: cityR.DailyData,
    required: cityR.REQUIRED,
    responses: [200, 401, 402, 429, 503],
    // The Errors table's 422 (invalid query parameters) applies: a malformed cache_max_age, an
    // unknown or a repeated parameter. The spec's list for op 4 omits it (the operation takes none).
    alsoAnswers: [422],
    status: 'live',
    // The deployer's source may be an HTML page (CITYGAME_FIELDS as CSS selectors).
    parsesHtml: true,
  },
  {
    id: 'shortvideo-user-following',
    path: '/v1/shortvideo/user/following',
    params: {
      handle: { schema: sv.handleParam, description: 'Username, @username, or profile URL', example: 'someuser' },
      userId: { schema: sv.userIdParam, description: 'Numeric user id, ^\\d{1,20}$', example: '6745191554350760966' },
      cursor: cursor(sv.followingCursorParam, 'The cursor of the previous page, ^\\d{1,13}$'),
    },
    oneOf: [['handle', 'userId']],
    number: 5,
    platform: 'shortvideo',
    summary: 'Accounts a user follows, most recently followed first, 30 per page.',
    pageSize: 30,
    data: svR.FollowingData,
    required: svR.FOLLOWING_REQUIRED,
    responses: ALL,
    status: 'live',
    parsesHtml: false,
  },
  {
    id: 'linkpage-page',
    path: '/v1/linkpage/page',
    params: { url: { schema: link.pageUrlParam, required: true, description: 'Public page URL', example: 'https://pillar.io/somecreator' } },
    number: 6,
    platform: 'linkpage',
    summary: 'A creator page: profile, socials, theme and content blocks with click counts.',
    data: linkR.PageData,
    required: linkR.REQUIRED,
    responses: NO_400,
    status: 'live',
    parsesHtml: false,
  },
  {
    id: 'shortvideo-video-comments',
    path: '/v1/shortvideo/video/comments',
    params: {
      url: { schema: sv.videoUrlParam, required: true, description: 'Public video (or photo-post) URL, <site>/@<user>/video/<id> or /photo/<id>', example: 'https://www.tiktok.com/@someuser/video/7301234567890123456' },
      cursor: cursor(sv.commentsCursorParam, 'The cursor of the previous page (1-10 digits)'),
    },
    number: 7,
    platform: 'shortvideo',
    summary: "A video's top-level comments in the source's relevance order, about 40 per page.",
    pageSize: 40,
    data: svR.CommentsData,
    required: svR.COMMENTS_REQUIRED,
    responses: ALL,
    status: 'live',
    parsesHtml: false,
  },
  {
    id: 'professional-post',
    path: '/v1/professional/post',
    params: { url: { schema: pro.contentUrlParam, required: true, description: 'Post (.../posts/<slug>) or article (.../pulse/<slug>) URL', example: 'https://www.linkedin.com/pulse/some-article-slug' } },
    number: 8,
    platform: 'professional',
    summary: 'A post or article as a logged-out visitor sees it.',
    data: proR.PostData,
    required: proR.REQUIRED,
    responses: NO_400,
    status: 'live',
    parsesHtml: true,
  },
  {
    id: 'microblog-c-user-posts',
    path: '/v1/microblog-c/user/posts',
    params: {
      handle: { schema: c.handleParam, description: 'Username, @username, or profile URL', example: 'alice' },
      userId: { schema: c.userIdParam, description: 'Numeric account id', example: '107780257626128497' },
      cursor: cursor(c.cursorParam, 'The cursor of the previous page'),
    },
    oneOf: [['handle', 'userId']],
    number: 9,
    platform: 'microblog-c',
    summary: "An account's posts newest first, 20 per page: own posts, quotes and reposts (as the original with repostedBy); no replies.",
    pageSize: 20,
    data: cR.UserPostsData,
    required: cR.REQUIRED,
    responses: ALL,
    status: 'live',
    parsesHtml: true,
  },
  {
    id: 'microblog-b-user-notes',
    path: '/v1/microblog-b/user-notes',
    params: {
      handle: { schema: b.handleParam, required: true, description: 'Handle (1-15 letters, digits, _), @handle, or profile URL on x.com / twitter.com', example: 'nasa' },
      trim: { schema: b.trimParam, description: 'true or false (default): true keeps only the essential fields of each note (id, url, text, dates, counts, views, flags, lang, media URLs)' },
    },
    number: 10,
    platform: 'microblog-b',
    summary: 'The notes shown on the initial profile load: pinned first, then newest to oldest.',
    data: bR.UserNotesData,
    required: bR.USER_NOTES_REQUIRED,
    responses: NO_400,
    status: 'live',
    parsesHtml: false,
  },
  {
    id: 'shortvideo-user-live',
    path: '/v1/shortvideo/user/live',
    params: { handle: { schema: sv.handleParam, required: true, description: 'Username, @username, or profile URL', example: 'someuser' } },
    number: 11,
    platform: 'shortvideo',
    summary: 'Whether a user is live now, with stream details, or the most recent live.',
    data: svR.LiveData,
    required: svR.LIVE_REQUIRED,
    responses: NO_400,
    status: 'live',
    parsesHtml: false,
  },
  {
    id: 'microblog-b-note',
    path: '/v1/microblog-b/note',
    params: {
      url: { schema: b.noteUrlParam, required: true, description: 'Note permalink on x.com / twitter.com: https://x.com/<handle>/status/<id>', example: 'https://x.com/nasa/status/1841206275088290279' },
      trim: { schema: b.trimParam, description: 'true or false (default): true returns only the focal note with the essential fields, in one upstream call' },
    },
    number: 12,
    platform: 'microblog-b',
    summary: 'A note with its reply thread.',
    data: bR.NoteData,
    required: bR.NOTE_REQUIRED,
    responses: [200, 401, 402, 422, 429, 503],
    // Common rule 5 (deleted, tombstoned, withheld or protected -> 404) applies; the spec's list for op 12 omits it.
    alsoAnswers: [404],
    status: 'live',
    parsesHtml: false,
  },
  {
    id: 'shortvideo-search-hashtag',
    path: '/v1/shortvideo/search/hashtag',
    params: {
      hashtag: { schema: sv.hashtagParam, required: true, description: 'The hashtag, with or without #: 1-100 letters, digits or _, no spaces', example: 'football' },
      region: { schema: sv.regionParam, description: 'ISO 3166-1 alpha-2 region code, case-insensitive; default NG', example: 'NG', default: sv.DEFAULT_REGION },
      cursor: cursor(sv.hashtagCursorParam, 'The opaque cursor returned by the previous page (authenticated; a tampered or foreign one is a 400)'),
    },
    number: 13,
    platform: 'shortvideo',
    summary: 'Videos shown for a hashtag in a region (default NG), up to 30 per page.',
    pageSize: 30,
    data: svR.HashtagData,
    required: svR.HASHTAG_REQUIRED,
    responses: ALL,
    status: 'live',
    parsesHtml: false,
  },
] as const satisfies readonly Operation[];

export type OperationId = (typeof operations)[number]['id'];
export type OperationEntry<Id extends OperationId> = Extract<(typeof operations)[number], { id: Id }>;

/** The validated parameters of an operation, as its scraper receives them. */
export type ParamsOf<Id extends OperationId> = ParamValues<OperationEntry<Id>['params']>;
/** The `data` an operation's scraper returns (the pipeline adds `fetchedAt`). */
export type DataOf<Id extends OperationId> = v.InferOutput<OperationEntry<Id>['data']>;
export type ScraperOf<Id extends OperationId> = Scraper<ParamsOf<Id>, DataOf<Id>>;

export function operation<Id extends OperationId>(id: Id): OperationEntry<Id> {
  const op = operations.find((o): o is OperationEntry<Id> => o.id === id);
  if (!op) throw new Error(`unknown operation ${id}`);
  return op;
}

export const routedOperations = (): Operation[] => operations.filter((o) => o.status === 'live');

/** functions/<id>.ts is the Lambda entry of each routed operation. */
export const handlerFile = (op: Operation) => `functions/${op.id}.ts`;

/** Every status an operation may answer: the spec's list plus `alsoAnswers`. */
export const answeredStatuses = (op: Operation): Status[] => [...new Set([...op.responses, ...(op.alsoAnswers ?? [])])].sort((a, b) => a - b);
