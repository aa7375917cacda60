import { extractionFailed, notFound } from '../../errors';
import type { Scraper } from '../../pipeline';
import { fetchClip } from './client';
import { VISIBLE_PRIVACY, mapClip } from './map';

/**
 * Operation 2, /v1/livestream/clip: one clip by its public URL.
 * `url` arrives normalized by site.urlParam to {clipId}: the cache key is the clip, whatever channel the URL named.
 */
export const scrapeClip: Scraper<{ url: { clipId: string } }> = async ({ url }, ctx, log) => {
  const clip = mapClip(await fetchClip(ctx, url.clipId, log));
  if (!clip.id || clip.title === null || !clip.url) {
    throw extractionFailed(`livestream clip ${url.clipId}: no id, title or channel slug in the answer`);
  }
  // Only public data is returned: a clip the owner made private is "not found" to our callers.
  if (!VISIBLE_PRIVACY.has(clip.privacy)) throw notFound();
  return { clip };
};
