import * as resources from '../platforms/linkpage/resources';
import * as site from '../platforms/linkpage/site';
import { NO_400, type Operation } from './entry';

/** The table's entries of linkpage (shared/operations.ts lists them; shared/operations/entry.ts says what an entry holds). */
export const page = {
  id: 'linkpage-page',
  path: '/v1/linkpage/page',
  params: { url: { schema: site.pageUrlParam, required: true, description: 'Public page URL', example: 'https://pillar.io/somecreator' } },
  number: 6,
  platform: 'linkpage',
  summary: 'A creator page: profile, socials, theme and content blocks with click counts.',
  data: resources.PageData,
  required: resources.REQUIRED,
  responses: NO_400,
  status: 'live',
  parsesHtml: false,
} as const satisfies Operation;
