import * as resources from '../../platforms/shortvideo/resources/hashtag';
import * as site from '../../platforms/shortvideo/site';
import { ALL, cursor, type Operation } from '../entry';

/**
 * The table's entry of shortvideo-search-hashtag (shared/operations.ts lists it; shared/operations/entry.ts says
 * what an entry holds). One module per shortvideo operation, so that its function builds no other
 * operation's schemas at cold start (shared/platforms/shortvideo/resources.ts).
 */
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
