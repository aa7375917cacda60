import * as resources from '../platforms/professional/resources';
import * as site from '../platforms/professional/site';
import { NO_400, type Operation } from './entry';

/** The table's entries of professional (shared/operations.ts lists them; shared/operations/entry.ts says what an entry holds). */
export const post = {
  id: 'professional-post',
  path: '/v1/professional/post',
  params: { url: { schema: site.contentUrlParam, required: true, description: 'Post (.../posts/<slug>) or article (.../pulse/<slug>) URL', example: 'https://www.linkedin.com/pulse/some-article-slug' } },
  number: 8,
  platform: 'professional',
  summary: 'A post or article as a logged-out visitor sees it.',
  data: resources.PostData,
  required: resources.REQUIRED,
  responses: NO_400,
  status: 'live',
  parsesHtml: true,
} as const satisfies Operation;
