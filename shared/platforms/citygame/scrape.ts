import { ApiError } from '../../http/errors';
import type { Scraper } from '../../scrape/scraper';
import { fetchBulletin } from './client';
import { mapJsonBulletin, notFound } from './map';
import type { DailyData } from './resources';
import { type CitygameSource, SourceConfigError, configuredSource } from './source';

/**
 * Operation 4, /v1/citygame/daily: today's bulletin, read from the source the deployment names
 * (CITYGAME_SOURCE_URL, CITYGAME_FIELDS: ./source.ts). No parameters: the cache key is the
 * operation itself. One upstream round trip.
 *   no source named                -> 503 PLATFORM_UNAVAILABLE, saying so
 *   a source named but unusable    -> 503 PLATFORM_UNAVAILABLE (the log says what is wrong with it)
 *   the source fails               -> as every platform's failures (shared/scrape/answers.ts)
 *   no date, or a bad date         -> 503 EXTRACTION_FAILED naming the date in the log
 *   another field missing          -> null, and the log names it and where it was looked for
 */
export const NO_SOURCE_MESSAGE = 'This deployment names no citygame source, so there is no bulletin to read';
export const BAD_SOURCE_MESSAGE = "This deployment's citygame source is misconfigured, so there is no bulletin to read";

export const scrapeDaily: Scraper<Record<string, never>, DailyData> = async (_params, ctx, log) => {
  const source = sourceOrRefuse();
  const answer = await fetchBulletin(ctx, source);
  let data: DailyData;
  try {
    if (source.kind === 'json') data = mapJsonBulletin(answer.data, source.fields);
    else {
      // The HTML parser is loaded for an HTML source only.
      const { mapHtmlBulletin } = await import('./page');
      data = mapHtmlBulletin(answer.body, source.fields);
    }
  } catch (err) {
    throw err instanceof SourceConfigError ? misconfigured(err) : err;
  }
  const missing = notFound(data, source.fields, source.kind === 'json' ? 'JSON Pointer' : 'CSS selector');
  if (missing.length) log.warn('the citygame source answered without some of the bulletin; they are null', { missing });
  return data;
};

function sourceOrRefuse(): CitygameSource {
  let source: CitygameSource | undefined;
  try {
    source = configuredSource();
  } catch (err) {
    if (err instanceof SourceConfigError) throw misconfigured(err);
    throw err;
  }
  // A deployment without a source is a choice, not a failure: its 503 is logged as a WARN, not an ERROR.
  if (!source) throw new ApiError('PLATFORM_UNAVAILABLE', NO_SOURCE_MESSAGE, { internal: 'CITYGAME_SOURCE_URL is not set', logLevel: 'warn' });
  return source;
}

const misconfigured = (err: SourceConfigError) => new ApiError('PLATFORM_UNAVAILABLE', BAD_SOURCE_MESSAGE, { internal: err.message });
