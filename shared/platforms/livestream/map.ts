import { type Drops, IGNORED_DROPS } from '../../scrape/context';
import { bool, count, get, int, isObject, isoDate, need, orDropped, str, text, url, type Json } from '../../scrape/map';
import type * as R from './resources';
import { clipPageUrl } from './site';

/**
 * Pure mapping of the upstream clip object to the spec's `clip` resource (resources.ts). Accepts
 * the v2 web shape (views/likes, clip_url/video_url, vod{id}, vod_starts_at) and the newer one
 * (views_count, playback_url, video{id, offset}). Required (`need`: else EXTRACTION_FAILED naming
 * it) are only the values REQUIRED in resources.ts names: the clip's id and its channel's id and
 * slug (the canonical URL is https://kick.com/<channel.slug>/clips/<id>). Every other value is null
 * when the upstream leaves it out; a creator or category without its id is left out (null) and
 * reported to `drops`. Values the research saw under two names (views / view_count, channel.id /
 * channel_id) are read from both.
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

/** An account of the clip; `fallbackId` is the id the clip carries beside it (channel_id, user_id). */
export function mapAccount(a: Json, role: string, fallbackId?: unknown): R.ClipCreatorOut {
  return {
    id: need(int(get(a, 'id')) ?? int(fallbackId), `${role} id`),
    username: str(get(a, 'username')),
    slug: need(str(get(a, 'slug')), `${role} slug`),
    profilePicture: url(get(a, 'profile_picture')),
  };
}

export function mapCategory(c: Json, fallbackId?: unknown): R.ClipCategoryOut {
  return {
    id: need(int(get(c, 'id')) ?? int(fallbackId), 'category id'),
    name: str(get(c, 'name')),
    slug: str(get(c, 'slug')),
    parentCategory: parentCategory(get(c, 'parent_category')),
    imageUrl: url(get(c, 'banner')) ?? url(get(c, 'responsive')),
  };
}

/** The first of the values that reads as a count (one value the upstream sends under several names). */
const firstCount = (...vs: unknown[]) => vs.map(count).find((n) => n !== null) ?? null;

export function mapClip(c: Json, drops: Drops = IGNORED_DROPS): R.Clip {
  const id = need(str(get(c, 'id')), 'clip id');
  const channel = mapAccount(get(c, 'channel'), 'channel', get(c, 'channel_id'));
  const video = streamUrl(get(c, 'video_url'), get(c, 'clip_url'), get(c, 'playback_url'));
  return {
    id,
    title: text(get(c, 'title')),
    url: clipPageUrl(channel.slug, id),
    privacy: normalizePrivacy(get(c, 'privacy')),
    isMature: bool(get(c, 'is_mature')),
    durationSeconds: count(get(c, 'duration')),
    views: firstCount(get(c, 'views'), get(c, 'view_count'), get(c, 'views_count')),
    likes: firstCount(get(c, 'likes'), get(c, 'likes_count')),
    thumbnailUrl: url(get(c, 'thumbnail_url')),
    videoUrl: video,
    videoFormat: video === null ? null : /\.m3u8$/i.test(new URL(video).pathname) ? 'hls' : 'mp4',
    createdAt: isoDate(get(c, 'created_at')),
    startedAt: isoDate(get(c, 'started_at')),
    vodStartsAt: count(get(c, 'vod_starts_at') ?? get(c, 'video', 'offset')),
    livestreamId: str(get(c, 'livestream_id')),
    vodId: str(get(c, 'vod', 'id') ?? get(c, 'video', 'id')),
    category: isObject(get(c, 'category')) ? orDropped(() => mapCategory(get(c, 'category'), get(c, 'category_id')), 'category', drops) : null,
    channel,
    creator: isObject(get(c, 'creator')) ? orDropped(() => mapAccount(get(c, 'creator'), 'creator', get(c, 'user_id')), 'creator', drops) : null,
  };
}
