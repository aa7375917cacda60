import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, signer, mappers) is loaded on the first live request, not at cold start.
export const handler = createHandler('shortvideo-video-comments', () => import('../shared/platforms/shortvideo/scrape').then((m) => m.scrapeComments));
