import * as resources from '../../platforms/shortvideo/resources/comments';
import * as site from '../../platforms/shortvideo/site';
import { ALL, cursor, type Operation } from '../entry';

/**
 * The table's entry of shortvideo-video-comments (shared/operations.ts lists it; shared/operations/entry.ts says
 * what an entry holds). One module per shortvideo operation, so that its function builds no other
 * operation's schemas at cold start (shared/platforms/shortvideo/resources.ts).
 */
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
