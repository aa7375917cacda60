import { ApiError, extractionFailed } from '../../http/errors';
import type { Log } from '../../runtime/log';
import type { AnswerRules } from '../../scrape/answers';
import { type ScrapeContext, upstreamClient } from '../../scrape/http';
import { get, isObject, str } from '../../scrape/map';
import { UPSTREAM } from './site';

/**
 * livestream upstream calls for a clip:
 *   GET /api/v2/clips/<clipId>        -> {"clip": {…}}  (the web app's own call)
 *   GET /api/v2/clips/<clipId>/play   -> {"clip": {…}}  (fallback, same shape)
 * A newer {"data": {…}, "message": "success"} envelope is accepted from either.
 * Errors are {"message": "…"}; an unknown clip is a 404 with a message, a vanished one may be
 * {"clip": null} / {"data": null}. Any other answer (a 2xx without a clip, a 400, an empty 404) is
 * unknown: the play endpoint is tried before giving up with EXTRACTION_FAILED.
 */
const RULES: AnswerRules = {
  platform: 'livestream',
  message: (data) => str(get(data, 'message')),
  notFound: [
    { status: [404, 410], message: /./ },
    { status: 200, test: (a) => isObject(a.data) && ((('clip' in a.data) && a.data.clip === null) || (!('clip' in a.data) && 'data' in a.data && a.data.data === null)) },
  ],
};
const api = upstreamClient(UPSTREAM, RULES);

export type RawClip = Record<string, unknown>;

/**
 * The clip object of a usable answer, or null for an answer we do not recognise. A clip object
 * without its id is still the clip: the mapper names the missing id (EXTRACTION_FAILED).
 */
function clipOf(data: unknown): RawClip | null {
  if (!isObject(data)) return null;
  const clip = 'clip' in data ? data.clip : data.data;
  return isObject(clip) ? clip : null;
}

/** The raw upstream clip object. */
export async function fetchClip(ctx: ScrapeContext, clipId: string, log: Log): Promise<RawClip> {
  const id = encodeURIComponent(clipId);
  const ask = (path: string) =>
    api.answer(ctx, path, { what: `clip ${clipId}` }).then(
      (a) => clipOf(a.data) ?? `${a.status} without a clip`,
      (err: unknown) => {
        // Unknown answers (a 400, an empty 404) get a second chance on the play endpoint.
        if (err instanceof ApiError && err.code === 'EXTRACTION_FAILED') return err.internal ?? err.message;
        throw err;
      },
    );

  const first = await ask(`/api/v2/clips/${id}`);
  if (typeof first !== 'string') return first;
  log.warn('clip endpoint answered an unknown shape; trying the play endpoint', { clipId, answer: first });
  const second = await ask(`/api/v2/clips/${id}/play`);
  if (typeof second !== 'string') return second;
  throw extractionFailed(`livestream clip ${clipId}: clips endpoint ${first}; play endpoint ${second}`);
}
