import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, mappers) is loaded on the first live request, not at cold start.
export const handler = createHandler('livestream-clip', () => import('../shared/platforms/livestream/scrape').then((m) => m.scrapeClip));
