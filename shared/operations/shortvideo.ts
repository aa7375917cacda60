import * as resources from '../platforms/shortvideo/resources';
import * as site from '../platforms/shortvideo/site';
import { ALL, NO_400, cursor, type Operation } from './entry';

/** The table's entries of shortvideo (shared/operations.ts lists them; shared/operations/entry.ts says what an entry holds). */
export const userFollowing = {
  id: 'shortvideo-user-following',
  path: '/v1/shortvideo/user/following',
  params: {
    handle: { schema: site.handleParam, description: 'Username, @username, or profile URL', example: 'someuser' },
    userId: { schema: site.userIdParam, description: 'Numeric user id, ^\\d{1,20}$', example: '6745191554350760966' },
    cursor: cursor(site.followingCursorParam, 'The cursor of the previous page, ^\\d{1,13}$'),
  },
  oneOf: [['handle', 'userId']],
  number: 5,
  platform: 'shortvideo',
  summary: 'Accounts a user follows, most recently followed first, 30 per page.',
  pageSize: 30,
  data: resources.FollowingData,
  required: resources.FOLLOWING_REQUIRED,
  responses: ALL,
  status: 'live',
  parsesHtml: false,
} as const satisfies Operation;

export const videoComments = {
  id: 'shortvideo-video-comments',
  path: '/v1/shortvideo/video/comments',
  params: {
    url: { schema: site.videoUrlParam, required: true, description: 'Public video (or photo-post) URL, <site>/@<user>/video/<id> or /photo/<id>', example: 'https://www.tiktok.com/@someuser/video/7301234567890123456' },
    cursor: cursor(site.commentsCursorParam, 'The cursor of the previous page (1-10 digits)'),
  },
  number: 7,
  platform: 'shortvideo',
  summary: "A video's top-level comments in the source's relevance order, about 40 per page.",
  pageSize: 40,
  data: resources.CommentsData,
  required: resources.COMMENTS_REQUIRED,
  responses: ALL,
  status: 'live',
  parsesHtml: false,
} as const satisfies Operation;

export const userLive = {
  id: 'shortvideo-user-live',
  path: '/v1/shortvideo/user/live',
  params: { handle: { schema: site.handleParam, required: true, description: 'Username, @username, or profile URL', example: 'someuser' } },
  number: 11,
  platform: 'shortvideo',
  summary: 'Whether a user is live now, with stream details, or the most recent live.',
  data: resources.LiveData,
  required: resources.LIVE_REQUIRED,
  responses: NO_400,
  status: 'live',
  parsesHtml: false,
} as const satisfies Operation;

export const searchHashtag = {
  id: 'shortvideo-search-hashtag',
  path: '/v1/shortvideo/search/hashtag',
  params: {
    hashtag: { schema: site.hashtagParam, required: true, description: 'The hashtag, with or without #: 1-100 letters, digits or _, no spaces', example: 'football' },
    region: { schema: site.regionParam, description: 'ISO 3166-1 alpha-2 region code, case-insensitive; default NG', example: 'NG', default: site.DEFAULT_REGION },
    cursor: cursor(site.hashtagCursorParam, 'The opaque cursor returned by the previous page (authenticated; a tampered or foreign one is a 400)'),
  },
  number: 13,
  platform: 'shortvideo',
  summary: 'Videos shown for a hashtag in a region (default NG), up to 30 per page.',
  pageSize: 30,
  data: resources.HashtagData,
  required: resources.HASHTAG_REQUIRED,
  responses: ALL,
  status: 'live',
  parsesHtml: false,
} as const satisfies Operation;
