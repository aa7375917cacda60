import { searchHashtag } from '../shared/operations/shortvideo/search-hashtag';
import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, signer, mappers) is loaded on the first live request, not at cold start.
// The canary (shared/status/canary.ts) runs the same scraper.
export const scraper = () => import('../shared/platforms/shortvideo/scrape').then((m) => m.scrapeHashtag);
export const handler = createHandler(searchHashtag, scraper);
