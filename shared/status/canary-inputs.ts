import type { OperationId } from '../operations';

/**
 * THE config file of the canaries' known-good inputs (shared/status/canary.ts): per operation, a
 * query that should answer 200 with a full answer for as long as the platform works. A deployer
 * overrides any of them with the stack context `canaryInputs` (JSON, `{"<operation>": {…query}}`),
 * which reaches the function as CANARY_INPUTS; `npm run canary` reads the same variable.
 *
 * `null`: no default. Those operations take a URL of one piece of content (a clip, a page, a post,
 * a video, a note), and no piece of content is known to stay up for good; their canary reports
 * "no input" until the deployer names one.
 */
export const CANARY_INPUTS: Record<OperationId, Record<string, string> | null> = {
  'microblog-a-user-posts': { handle: 'bsky.app' },
  'livestream-clip': null,
  'microblog-b-profile': { handle: 'nasa' },
  // No parameters: the bulletin comes from the source the deployment names (CITYGAME_SOURCE_URL).
  'citygame-daily': {},
  'shortvideo-user-following': { handle: 'tiktok' },
  'linkpage-page': null,
  'shortvideo-video-comments': null,
  'professional-post': null,
  'microblog-c-user-posts': { handle: 'realDonaldTrump' },
  'microblog-b-user-notes': { handle: 'nasa' },
  'shortvideo-user-live': { handle: 'tiktok' },
  'microblog-b-note': null,
  'shortvideo-search-hashtag': { hashtag: 'football' },
};
