import { ApiError } from '../../http/errors';
import type { Scraper } from '../../scrape/scraper';
import { fetchBulletin } from './client';
import { mapJsonBulletin } from './map';
import type { DailyData } from './resources';
import { type CitygameSource, SourceConfigError, configuredSource } from './source';

/**
 * Operation 4, /v1/citygame/daily: today's bulletin, read from the source the deployment names
 * (CITYGAME_SOURCE_URL, CITYGAME_FIELDS: ./source.ts). No parameters: the cache key is the
 * operation itself. One upstream round trip.
 *   no source named                -> 503 PLATFORM_UNAVAILABLE, saying so
 *   a source named but unusable    -> 503 PLATFORM_UNAVAILABLE (the log says what is wrong with it)
 *   the source fails               -> as every platform's failures (shared/scrape/answers.ts)
 *   a field missing, a bad date    -> 503 EXTRACTION_FAILED naming the field in the log
 */
export const NO_SOURCE_MESSAGE = 'This deployment names no citygame source, so there is no bulletin to read';
export const BAD_SOURCE_MESSAGE = "This deployment's citygame source is misconfigured, so there is no bulletin to read";

export const scrapeDaily: Scraper<Record<string, never>, DailyData> = async (_params, ctx) => {
  const source = sourceOrRefuse();
  const answer = await fetchBulletin(ctx, source);
  try {
    if (source.kind === 'json') return mapJsonBulletin(answer.data, source.fields);
    // The HTML parser is loaded for an HTML source only.
    const { mapHtmlBulletin } = await import('./page');
    return mapHtmlBulletin(answer.body, source.fields);
  } catch (err) {
    throw err instanceof SourceConfigError ? misconfigured(err) : err;
  }
};

function sourceOrRefuse(): CitygameSource {
  let source: CitygameSource | undefined;
  try {
    source = configuredSource();
  } catch (err) {
    if (err instanceof SourceConfigError) throw misconfigured(err);
    throw err;
  }
  if (!source) throw new ApiError('PLATFORM_UNAVAILABLE', NO_SOURCE_MESSAGE, { internal: 'CITYGAME_SOURCE_URL is not set' });
  return source;
}

const misconfigured = (err: SourceConfigError) => new ApiError('PLATFORM_UNAVAILABLE', BAD_SOURCE_MESSAGE, { internal: err.message });
