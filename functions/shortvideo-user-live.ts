import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, mappers) is loaded on the first live request, not at cold start.
export const handler = createHandler('shortvideo-user-live', () => import('../shared/platforms/shortvideo/scrape').then((m) => m.scrapeLive));
