import { clip } from '../shared/operations/livestream';
import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, mappers) is loaded on the first live request, not at cold start.
// The canary (shared/status/canary.ts) runs the same scraper.
export const scraper = () => import('../shared/platforms/livestream/scrape').then((m) => m.scrapeClip);
export const handler = createHandler(clip, scraper);
