import { bool, count, get, int, isObject, isoDate, need, str, text, url, type Json } from '../../scrape/map';
import type * as R from './resources';
import { clipPageUrl } from './site';

/**
 * Pure mapping of the upstream clip object to the spec's `clip` resource (resources.ts). Accepts
 * the v2 web shape (views/likes, clip_url/video_url, vod{id}, vod_starts_at) and the newer one
 * (views_count, playback_url, video{id, offset}). Fields the spec makes non-null are required
 * (`need`: else EXTRACTION_FAILED); the recorded deviations are null when the upstream has none.
 */
/** Privacy values the service returns; anything else is not public (404). */
export const VISIBLE_PRIVACY: ReadonlySet<string> = new Set(['public', 'unlisted']);

/**
 * "CLIP_PRIVACY_PUBLIC" (v2) and "public" (newer API) both become "public". An answer without the
 * field (the newer shape omits it) was served to an anonymous client, so it counts as public.
 */
export function normalizePrivacy(v: unknown): string {
  const s = str(v)?.trim();
  return s ? s.replace(/^CLIP_PRIVACY_/i, '').toLowerCase() : 'public';
}

/** The HLS playlist when there is one; clips from 2023 only have a progressive MP4. */
function streamUrl(...candidates: unknown[]): string | null {
  const urls = candidates.map(url).filter((u): u is string => u !== null);
  return urls.find((u) => new URL(u).pathname.toLowerCase().endsWith('.m3u8')) ?? urls[0] ?? null;
}

function parentCategory(v: unknown): string | null {
  return str(v) ?? str(get(v, 'slug')) ?? str(get(v, 'name'));
}

export function mapAccount(a: Json, role: string): R.ClipCreatorOut {
  return {
    id: need(int(get(a, 'id')), `${role} id`),
    username: need(str(get(a, 'username')), `${role} username`),
    slug: need(str(get(a, 'slug')), `${role} slug`),
    profilePicture: url(get(a, 'profile_picture')),
  };
}

export function mapCategory(c: Json, fallbackId?: unknown): R.ClipCategoryOut {
  return {
    id: need(int(get(c, 'id') ?? fallbackId), 'category id'),
    name: need(str(get(c, 'name')), 'category name'),
    slug: need(str(get(c, 'slug')), 'category slug'),
    parentCategory: parentCategory(get(c, 'parent_category')),
    imageUrl: url(get(c, 'banner')) ?? url(get(c, 'responsive')),
  };
}

export function mapClip(c: Json): R.Clip {
  const id = need(str(get(c, 'id')), 'clip id');
  const channel = mapAccount(get(c, 'channel'), 'channel');
  const video = need(streamUrl(get(c, 'video_url'), get(c, 'clip_url'), get(c, 'playback_url')), 'video URL');
  return {
    id,
    title: need(text(get(c, 'title')), 'clip title'),
    url: clipPageUrl(channel.slug, id),
    privacy: normalizePrivacy(get(c, 'privacy')),
    isMature: need(bool(get(c, 'is_mature')), 'mature flag'),
    durationSeconds: need(count(get(c, 'duration')), 'duration'),
    views: need(count(get(c, 'views') ?? get(c, 'view_count') ?? get(c, 'views_count')), 'view count'),
    likes: count(get(c, 'likes') ?? get(c, 'likes_count')),
    thumbnailUrl: need(url(get(c, 'thumbnail_url')), 'thumbnail URL'),
    videoUrl: video,
    videoFormat: /\.m3u8$/i.test(new URL(video).pathname) ? 'hls' : 'mp4',
    createdAt: need(isoDate(get(c, 'created_at')), 'creation date'),
    startedAt: isoDate(get(c, 'started_at')),
    vodStartsAt: count(get(c, 'vod_starts_at') ?? get(c, 'video', 'offset')),
    livestreamId: str(get(c, 'livestream_id')),
    vodId: str(get(c, 'vod', 'id') ?? get(c, 'video', 'id')),
    category: isObject(get(c, 'category')) ? mapCategory(get(c, 'category'), get(c, 'category_id')) : null,
    channel,
    creator: isObject(get(c, 'creator')) ? mapAccount(get(c, 'creator'), 'creator') : null,
  };
}
