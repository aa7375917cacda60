import * as resources from '../platforms/microblog-a/resources';
import * as site from '../platforms/microblog-a/site';
import { ALL, cursor, type Operation } from './entry';

/** The table's entries of microblog-a (shared/operations.ts lists them; shared/operations/entry.ts says what an entry holds). */
export const userPosts = {
  id: 'microblog-a-user-posts',
  path: '/v1/microblog-a/user/posts',
  params: {
    handle: { schema: site.handleParam, description: 'Handle, @handle, bare name (read as <name>.bsky.social), or profile URL', example: 'alice.bsky.social' },
    userId: { schema: site.userIdParam, description: 'Decentralized identifier, did:plc:<24 base32 chars>', example: 'did:plc:abcdefghijklmnopqrstuvwx' },
    cursor: cursor(site.cursorParam, 'The cursor of the previous page'),
  },
  oneOf: [['handle', 'userId']],
  number: 1,
  platform: 'microblog-a',
  summary: "An account's posts, newest first, as on its profile's Posts tab (posts, reposts, own threads; pinned post first on page 1).",
  pageSize: 30,
  data: resources.UserPostsData,
  required: resources.REQUIRED,
  responses: ALL,
  status: 'live',
  parsesHtml: false,
} as const satisfies Operation;
