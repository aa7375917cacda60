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
import { type OperationQuery, query } from './operation-queries';
import type { Scraper } from './scrape/scraper';
import type { ParamValues } from './http/validation';
import type { RequiredValues } from './scrape/resource';

/**
 * THE table of the thirteen operations. The CDK stack, the local gateway, the docs and the contract
 * tests all read it; nothing here is listed anywhere else. `status: 'planned'` operations have their
 * parameters validated already but are neither deployed nor routed until their scraper exists.
 *
 * Each entry is a typed contract: `params` (valibot schemas from the platform's site.ts) and `data`
 * (the resource schema from the platform's resources.ts). `ScraperOf<id>` derives the scraper's
 * type from both, so a function file's scraper, and every mapper under it, is checked against the
 * contract by the compiler. An entry's id, path and query rules (`params`, `oneOf`) are written in
 * shared/operation-queries.ts and spread here (`...query(id)`): that part alone is what the REQUEST
 * authorizer bundles, to validate a query as the operation's function will.
 */
export type Platform = 'microblog-a' | 'microblog-b' | 'microblog-c' | 'shortvideo' | 'livestream' | 'professional' | 'linkpage' | 'citygame';
export type Status = 200 | 400 | 401 | 402 | 404 | 422 | 429 | 503;

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

const ALL: readonly Status[] = [200, 400, 401, 402, 404, 422, 429, 503];
const NO_400: readonly Status[] = [200, 401, 402, 404, 422, 429, 503];

export const operations = [
  {
    ...query('microblog-a-user-posts'),
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
    ...query('livestream-clip'),
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
    ...query('microblog-b-profile'),
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
    ...query('citygame-daily'),
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
    ...query('shortvideo-user-following'),
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
    ...query('linkpage-page'),
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
    ...query('shortvideo-video-comments'),
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
    ...query('professional-post'),
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
    ...query('microblog-c-user-posts'),
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
    ...query('microblog-b-user-notes'),
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
    ...query('shortvideo-user-live'),
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
    ...query('microblog-b-note'),
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
    ...query('shortvideo-search-hashtag'),
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
