import { extractionFailed, notFound } from '../../errors';
import type { Log } from '../../log';
import { type ScrapeContext, upstreamClient } from '../../scrape/http';
import { isObject } from '../../scrape/map';
import { UPSTREAM, WEB_ORIGIN } from './site';

/**
 * livestream upstream calls for a clip:
 *   GET /api/v2/clips/<clipId>        -> {"clip": {…}}  (the web app's own call)
 *   GET /api/v2/clips/<clipId>/play   -> {"clip": {…}}  (fallback, same shape)
 * A newer {"data": {…}, "message": "success"} envelope is accepted from either.
 * Errors are {"message": "…"}; an unknown clip is a 404, a vanished one may be {"clip": null} / {"data": null}.
 */
const api = upstreamClient(UPSTREAM);

export type RawClip = Record<string, unknown>;

type Answer =
  | { kind: 'clip'; clip: RawClip }
  | { kind: 'gone'; why: string }
  | { kind: 'unexpected'; why: string };

/** What one answer means: a clip, a clear not-found, or something we do not recognise. */
export function classifyAnswer(status: number, data: unknown): Answer {
  const body = isObject(data) ? data : undefined;
  if (status >= 200 && status < 300 && body) {
    const key = 'clip' in body ? 'clip' : 'data' in body ? 'data' : undefined;
    const clip = key ? body[key] : undefined;
    if (isObject(clip) && typeof clip.id === 'string' && clip.id !== '') return { kind: 'clip', clip };
    if (key && clip === null) return { kind: 'gone', why: `${status} with ${key}: null` };
  }
  if ((status === 404 || status === 410) && body && typeof body.message === 'string') {
    return { kind: 'gone', why: `${status}: ${body.message}` };
  }
  const shape = body ? `keys [${Object.keys(body).slice(0, 8).join(', ')}]` : typeof data;
  return { kind: 'unexpected', why: `${status} with ${shape}` };
}

/** The raw upstream clip object (the Referer is the site: the clip id alone identifies the clip). */
export async function fetchClip(ctx: ScrapeContext, clipId: string, log: Log): Promise<RawClip> {
  const headers = { referer: `${WEB_ORIGIN}/` };
  const id = encodeURIComponent(clipId);

  const first = await api.getJson(ctx, `/api/v2/clips/${id}`, { headers });
  const a = classifyAnswer(first.status, first.data);
  if (a.kind === 'clip') return a.clip;
  if (a.kind === 'gone') throw notFound();

  log.warn('clip endpoint answered an unknown shape; trying the play endpoint', { clipId, answer: a.why });
  const second = await api.getJson(ctx, `/api/v2/clips/${id}/play`, { headers });
  const b = classifyAnswer(second.status, second.data);
  if (b.kind === 'clip') return b.clip;
  if (b.kind === 'gone') throw notFound();
  throw extractionFailed(`livestream clip ${clipId}: clips endpoint ${a.why}; play endpoint ${b.why}`);
}
