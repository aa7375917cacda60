import { userFollowing } from '../shared/operations/shortvideo/user-following';
import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, signer, mappers) is loaded on the first live request, not at cold start.
// The canary (shared/status/canary.ts) runs the same scraper.
export const scraper = () => import('../shared/platforms/shortvideo/scrape').then((m) => m.scrapeFollowing);
export const handler = createHandler(userFollowing, scraper);
