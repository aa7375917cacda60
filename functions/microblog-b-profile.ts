import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, mappers) is loaded on the first live request, not at cold start.
export const handler = createHandler('microblog-b-profile', () => import('../shared/platforms/microblog-b/scrape').then((m) => m.scrapeProfile));
