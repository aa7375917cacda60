import { userLive } from '../shared/operations/shortvideo/user-live';
import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, mappers) is loaded on the first live request, not at cold start.
// The canary (shared/status/canary.ts) runs the same scraper.
export const scraper = () => import('../shared/platforms/shortvideo/scrape').then((m) => m.scrapeLive);
export const handler = createHandler(userLive, scraper);
