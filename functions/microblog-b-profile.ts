import { profile } from '../shared/operations/microblog-b';
import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, mappers) is loaded on the first live request, not at cold start.
// The canary (shared/status/canary.ts) runs the same scraper.
export const scraper = () => import('../shared/platforms/microblog-b/scrape').then((m) => m.scrapeProfile);
export const handler = createHandler(profile, scraper);
