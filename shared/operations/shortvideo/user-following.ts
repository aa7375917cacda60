import * as resources from '../../platforms/shortvideo/resources/following';
import * as site from '../../platforms/shortvideo/site';
import { ALL, cursor, type Operation } from '../entry';

/**
 * The table's entry of shortvideo-user-following (shared/operations.ts lists it; shared/operations/entry.ts says
 * what an entry holds). One module per shortvideo operation, so that its function builds no other
 * operation's schemas at cold start (shared/platforms/shortvideo/resources.ts).
 */
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
