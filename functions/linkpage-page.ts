import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, GraphQL queries, mappers) is loaded on the first live request, not at cold start.
export const handler = createHandler('linkpage-page', () => import('../shared/platforms/linkpage/scrape').then((m) => m.scrapePage));
