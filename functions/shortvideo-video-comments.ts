import { videoComments } from '../shared/operations/shortvideo/video-comments';
import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, signer, mappers) is loaded on the first live request, not at cold start.
// The canary (shared/status/canary.ts) runs the same scraper.
export const scraper = () => import('../shared/platforms/shortvideo/scrape').then((m) => m.scrapeComments);
export const handler = createHandler(videoComments, scraper);
