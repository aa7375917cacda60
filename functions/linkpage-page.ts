import { page } from '../shared/operations/linkpage';
import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, GraphQL queries, mappers) is loaded on the first live request, not at cold start.
// The canary (shared/status/canary.ts) runs the same scraper.
export const scraper = () => import('../shared/platforms/linkpage/scrape').then((m) => m.scrapePage);
export const handler = createHandler(page, scraper);
