import { userPosts } from '../shared/operations/microblog-a';
import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, mappers) is loaded on the first live request, not at cold start.
// The canary (shared/status/canary.ts) runs the same scraper.
export const scraper = () => import('../shared/platforms/microblog-a/scrape').then((m) => m.scrapeUserPosts);
export const handler = createHandler(userPosts, scraper);
