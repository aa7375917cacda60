import * as a from './platforms/microblog-a/site';
import * as b from './platforms/microblog-b/site';
import * as c from './platforms/microblog-c/site';
import * as live from './platforms/livestream/site';
import * as link from './platforms/linkpage/site';
import * as pro from './platforms/professional/site';
import * as sv from './platforms/shortvideo/site';
import type { ParamDef, ParamSchema, ValidationRules } from './http/validation';

/**
 * What each operation accepts: its route and its query's rules (the parameters, valibot schemas
 * from the platform's site.ts, and the either-or pairs), by operation id. This is part of THE
 * operation table (shared/operations.ts): each of its entries spreads one of these (`query(id)`),
 * and nothing here is listed anywhere else. It lives apart only so that the REQUEST authorizer,
 * which validates a query exactly as the operation's function will (shared/auth/authorizer.ts),
 * bundles the parameter schemas without every platform's result schemas.
 */
export interface OperationQuery {
  path: `/v1/${string}`;
  params: Record<string, ParamDef>;
  /** Exactly one of each pair must be present. */
  oneOf?: readonly (readonly [string, string])[];
}

const cursor = <S extends ParamSchema>(schema: S, description: string) => ({ schema, cursor: true, description }) as const satisfies ParamDef<S>;

export const QUERIES = {
  'microblog-a-user-posts': {
    path: '/v1/microblog-a/user/posts',
    params: {
      handle: { schema: a.handleParam, description: 'Handle, @handle, bare name (read as <name>.bsky.social), or profile URL', example: 'alice.bsky.social' },
      userId: { schema: a.userIdParam, description: 'Decentralized identifier, did:plc:<24 base32 chars>', example: 'did:plc:abcdefghijklmnopqrstuvwx' },
      cursor: cursor(a.cursorParam, 'The cursor of the previous page'),
    },
    oneOf: [['handle', 'userId']],
  },
  'livestream-clip': {
    path: '/v1/livestream/clip',
    params: {
      url: { schema: live.urlParam, required: true, description: 'Public clip URL: https://kick.com/<channel>/clips/clip_<id> or https://kick.com/<channel>?clip=clip_<id>', example: 'https://kick.com/somechannel/clips/clip_01JQ7ZK3M8W4TYV5R2N6P9XBCD' },
    },
  },
  'microblog-b-profile': {
    path: '/v1/microblog-b/profile',
    params: { handle: { schema: b.handleParam, required: true, description: 'Handle (1-15 letters, digits, _), @handle, or profile URL on x.com / twitter.com', example: 'nasa' } },
  },
  'citygame-daily': {
    path: '/v1/citygame/daily',
    params: {},
  },
  'shortvideo-user-following': {
    path: '/v1/shortvideo/user/following',
    params: {
      handle: { schema: sv.handleParam, description: 'Username, @username, or profile URL', example: 'someuser' },
      userId: { schema: sv.userIdParam, description: 'Numeric user id, ^\\d{1,20}$', example: '6745191554350760966' },
      cursor: cursor(sv.followingCursorParam, 'The cursor of the previous page, ^\\d{1,13}$'),
    },
    oneOf: [['handle', 'userId']],
  },
  'linkpage-page': {
    path: '/v1/linkpage/page',
    params: { url: { schema: link.pageUrlParam, required: true, description: 'Public page URL', example: 'https://pillar.io/somecreator' } },
  },
  'shortvideo-video-comments': {
    path: '/v1/shortvideo/video/comments',
    params: {
      url: { schema: sv.videoUrlParam, required: true, description: 'Public video (or photo-post) URL, <site>/@<user>/video/<id> or /photo/<id>', example: 'https://www.tiktok.com/@someuser/video/7301234567890123456' },
      cursor: cursor(sv.commentsCursorParam, 'The cursor of the previous page (1-10 digits)'),
    },
  },
  'professional-post': {
    path: '/v1/professional/post',
    params: { url: { schema: pro.contentUrlParam, required: true, description: 'Post (.../posts/<slug>) or article (.../pulse/<slug>) URL', example: 'https://www.linkedin.com/pulse/some-article-slug' } },
  },
  'microblog-c-user-posts': {
    path: '/v1/microblog-c/user/posts',
    params: {
      handle: { schema: c.handleParam, description: 'Username, @username, or profile URL', example: 'alice' },
      userId: { schema: c.userIdParam, description: 'Numeric account id', example: '107780257626128497' },
      cursor: cursor(c.cursorParam, 'The cursor of the previous page'),
    },
    oneOf: [['handle', 'userId']],
  },
  'microblog-b-user-notes': {
    path: '/v1/microblog-b/user-notes',
    params: {
      handle: { schema: b.handleParam, required: true, description: 'Handle (1-15 letters, digits, _), @handle, or profile URL on x.com / twitter.com', example: 'nasa' },
      trim: { schema: b.trimParam, description: 'true or false (default): true keeps only the essential fields of each note (id, url, text, dates, counts, views, flags, lang, media URLs)' },
    },
  },
  'shortvideo-user-live': {
    path: '/v1/shortvideo/user/live',
    params: { handle: { schema: sv.handleParam, required: true, description: 'Username, @username, or profile URL', example: 'someuser' } },
  },
  'microblog-b-note': {
    path: '/v1/microblog-b/note',
    params: {
      url: { schema: b.noteUrlParam, required: true, description: 'Note permalink on x.com / twitter.com: https://x.com/<handle>/status/<id>', example: 'https://x.com/nasa/status/1841206275088290279' },
      trim: { schema: b.trimParam, description: 'true or false (default): true returns only the focal note with the essential fields, in one upstream call' },
    },
  },
  'shortvideo-search-hashtag': {
    path: '/v1/shortvideo/search/hashtag',
    params: {
      hashtag: { schema: sv.hashtagParam, required: true, description: 'The hashtag, with or without #: 1-100 letters, digits or _, no spaces', example: 'football' },
      region: { schema: sv.regionParam, description: 'ISO 3166-1 alpha-2 region code, case-insensitive; default NG', example: 'NG', default: sv.DEFAULT_REGION },
      cursor: cursor(sv.hashtagCursorParam, 'The opaque cursor returned by the previous page (authenticated; a tampered or foreign one is a 400)'),
    },
  },
} as const satisfies Record<string, OperationQuery>;

export type QueryId = keyof typeof QUERIES;

/** An operation's id with its query: what the operation table spreads into the operation's entry. */
export const query = <Id extends QueryId>(id: Id): { id: Id } & (typeof QUERIES)[Id] => ({ id, ...QUERIES[id] });

/**
 * The operation of a route (its resource path, as API Gateway names it in the authorizer's event)
 * and the rules its function validates the query with; undefined for any other route.
 */
export function queryOfRoute(path: string | null | undefined): { id: QueryId; rules: ValidationRules } | undefined {
  for (const id of Object.keys(QUERIES) as QueryId[]) {
    const q: OperationQuery = QUERIES[id];
    if (q.path === path) return { id, rules: { params: q.params, oneOf: q.oneOf } };
  }
  return undefined;
}
