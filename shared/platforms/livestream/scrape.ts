import { notFound } from '../../http/errors';
import type { Scraper } from '../../scrape/scraper';
import { fetchClip } from './client';
import { VISIBLE_PRIVACY, mapClip, normalizePrivacy } from './map';
import type { ClipData } from './resources';
import type { ClipRef } from './site';

/**
 * Operation 2, /v1/livestream/clip: one clip by its public URL.
 * `url` arrives normalized by site.urlParam to {clipId}: the cache key is the clip, whatever channel the URL named.
 */
export const scrapeClip: Scraper<{ url: Pick<ClipRef, 'clipId'> }, ClipData> = async ({ url }, ctx, log) => {
  const raw = await fetchClip(ctx, url.clipId, log);
  // Only public data is returned: a clip the owner made private is "not found" to our callers.
  if (!VISIBLE_PRIVACY.has(normalizePrivacy(raw.privacy))) throw notFound();
  return { clip: mapClip(raw, ctx.drops(log)) };
};
