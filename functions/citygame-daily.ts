import { daily } from '../shared/operations/citygame';
import { createHandler } from '../shared/pipeline';
import { checkSourceAtColdStart } from '../shared/platforms/citygame/source';

// The deployer's source (CITYGAME_SOURCE_URL, CITYGAME_FIELDS) is checked once at cold start: a
// missing or unusable one is logged now, and every request then answers 503 saying so.
checkSourceAtColdStart();

// The scraper (HTTP client, HTML parser, mappers) is loaded on the first live request, not at cold start.
// The canary (shared/status/canary.ts) runs the same scraper.
export const scraper = () => import('../shared/platforms/citygame/scrape').then((m) => m.scrapeDaily);
export const handler = createHandler(daily, scraper);
