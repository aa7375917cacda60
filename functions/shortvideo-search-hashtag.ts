import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, signer, mappers) is loaded on the first live request, not at cold start.
export const handler = createHandler('shortvideo-search-hashtag', () => import('../shared/platforms/shortvideo/scrape').then((m) => m.scrapeHashtag));
