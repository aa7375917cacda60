import * as resources from '../../platforms/shortvideo/resources/live';
import * as site from '../../platforms/shortvideo/site';
import { NO_400, type Operation } from '../entry';

/**
 * The table's entry of shortvideo-user-live (shared/operations.ts lists it; shared/operations/entry.ts says
 * what an entry holds). One module per shortvideo operation, so that its function builds no other
 * operation's schemas at cold start (shared/platforms/shortvideo/resources.ts).
 */
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
