import { post } from '../shared/operations/professional';
import { createHandler } from '../shared/pipeline';

// The scraper (HTTP client, HTML parser, mappers) is loaded on the first live request, not at cold start.
// The canary (shared/status/canary.ts) runs the same scraper.
export const scraper = () => import('../shared/platforms/professional/scrape').then((m) => m.scrapePost);
export const handler = createHandler(post, scraper);
