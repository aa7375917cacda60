import { bool, count, get, int, isObject, isoDate, str, text, url, type Json } from '../../scrape/map';
import { clipPageUrl } from './site';

/**
 * Pure mapping of the upstream clip object to the spec's `clip` resource. Accepts the v2 web shape
 * (views/likes, clip_url/video_url, vod{id}, vod_starts_at) and the newer one (views_count,
 * playback_url, video{id, offset}). Missing fields become null.
 */
export interface ClipAccount {
  id: number | null;
  username: string | null;
  slug: string | null;
  profilePicture: string | null;
}

export interface ClipCategory {
  id: number | null;
  name: string | null;
  slug: string | null;
  parentCategory: string | null;
  imageUrl: string | null;
}

/** 'public' | 'unlisted' | 'private' as seen so far; other upstream values pass through lowercased. */
export type ClipPrivacy = 'public' | 'unlisted' | 'private' | (string & {});

export interface Clip {
  id: string | null;
  title: string | null;
  url: string | null;
  privacy: ClipPrivacy;
  isMature: boolean | null;
  durationSeconds: number | null;
  views: number | null;
  likes: number | null;
  thumbnailUrl: string | null;
  videoUrl: string | null;
  /** 'hls' for the playlist every current clip has; 'mp4' for 2023-era clips that only have a file. */
  videoFormat: 'hls' | 'mp4' | null;
  createdAt: string | null;
  startedAt: string | null;
  vodStartsAt: number | null;
  livestreamId: string | null;
  vodId: string | null;
  category: ClipCategory | null;
  channel: ClipAccount;
  creator: ClipAccount | null;
}

/** Privacy values the service returns; anything else is not public (404). */
export const VISIBLE_PRIVACY: ReadonlySet<string> = new Set(['public', 'unlisted']);

/**
 * "CLIP_PRIVACY_PUBLIC" (v2) and "public" (newer API) both become "public". An answer without the
 * field (the newer shape omits it) was served to an anonymous client, so it counts as public.
 */
export function normalizePrivacy(v: unknown): ClipPrivacy {
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

export function mapAccount(a: Json): ClipAccount {
  return {
    id: int(get(a, 'id')),
    username: str(get(a, 'username')),
    slug: str(get(a, 'slug')),
    profilePicture: url(get(a, 'profile_picture')),
  };
}

export function mapCategory(c: Json, fallbackId?: unknown): ClipCategory {
  return {
    id: int(get(c, 'id') ?? fallbackId),
    name: str(get(c, 'name')),
    slug: str(get(c, 'slug')),
    parentCategory: parentCategory(get(c, 'parent_category')),
    imageUrl: url(get(c, 'banner')) ?? url(get(c, 'responsive')),
  };
}

export function mapClip(c: Json): Clip {
  const id = str(get(c, 'id'));
  const channelSlug = str(get(c, 'channel', 'slug'));
  const video = streamUrl(get(c, 'video_url'), get(c, 'clip_url'), get(c, 'playback_url'));
  return {
    id,
    title: text(get(c, 'title')),
    url: id && channelSlug ? clipPageUrl(channelSlug, id) : null,
    privacy: normalizePrivacy(get(c, 'privacy')),
    isMature: bool(get(c, 'is_mature')),
    durationSeconds: count(get(c, 'duration')),
    views: count(get(c, 'views') ?? get(c, 'view_count') ?? get(c, 'views_count')),
    likes: count(get(c, 'likes') ?? get(c, 'likes_count')),
    thumbnailUrl: url(get(c, 'thumbnail_url')),
    videoUrl: video,
    videoFormat: video === null ? null : /\.m3u8$/i.test(new URL(video).pathname) ? 'hls' : 'mp4',
    createdAt: isoDate(get(c, 'created_at')),
    startedAt: isoDate(get(c, 'started_at')),
    vodStartsAt: count(get(c, 'vod_starts_at') ?? get(c, 'video', 'offset')),
    livestreamId: str(get(c, 'livestream_id')),
    vodId: str(get(c, 'vod', 'id') ?? get(c, 'video', 'id')),
    category: isObject(get(c, 'category')) ? mapCategory(get(c, 'category'), get(c, 'category_id')) : null,
    channel: mapAccount(get(c, 'channel')),
    creator: isObject(get(c, 'creator')) ? mapAccount(get(c, 'creator')) : null,
  };
}
