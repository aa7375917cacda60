import * as resources from '../platforms/microblog-c/resources';
import * as site from '../platforms/microblog-c/site';
import { ALL, cursor, type Operation } from './entry';

/** The table's entries of microblog-c (shared/operations.ts lists them; shared/operations/entry.ts says what an entry holds). */
export const userPosts = {
  id: 'microblog-c-user-posts',
  path: '/v1/microblog-c/user/posts',
  params: {
    handle: { schema: site.handleParam, description: 'Username, @username, or profile URL', example: 'alice' },
    userId: { schema: site.userIdParam, description: 'Numeric account id', example: '107780257626128497' },
    cursor: cursor(site.cursorParam, 'The cursor of the previous page'),
  },
  oneOf: [['handle', 'userId']],
  number: 9,
  platform: 'microblog-c',
  summary: "An account's posts newest first, 20 per page: own posts, quotes and reposts (as the original with repostedBy); no replies.",
  pageSize: 20,
  data: resources.UserPostsData,
  required: resources.REQUIRED,
  responses: ALL,
  status: 'live',
  parsesHtml: true,
} as const satisfies Operation;
