import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, HTML parser, mappers) is loaded on the first live request, not at cold start.
export const handler = createHandler('professional-post', () => import('../shared/platforms/professional/scrape').then((m) => m.scrapePost));
