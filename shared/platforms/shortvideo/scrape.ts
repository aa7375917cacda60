import type { ScraperOf } from '../../operations';
import { arr, get, int, str } from '../../scrape/map';
import { apiGet } from './client';
import { mapComment } from './map';
import { videoUrl } from './site';

/**
 * Operation 7, /v1/shortvideo/video/comments: a video's top-level comments, 40 per page, in the
 * source's relevance order. One signed upstream call (after the warm function's first request,
 * which primes the cookie jar from the home page):
 *   GET /api/comment/list/?aweme_id=<id>&count=40&cursor=<offset>
 * A deleted, private or region-locked video is a 404 (status codes in client.ts); comments turned
 * off give 200 with no comments and total 0. The cursor is the upstream's offset.
 */
export const COMMENTS_PAGE = 40;

export const scrapeComments: ScraperOf<'shortvideo-video-comments'> = async ({ url, cursor }, ctx, log) => {
  const page = videoUrl(url.handle, url.videoId);
  const offset = cursor ?? '0';
  const { data } = await apiGet(ctx, log, {
    path: '/api/comment/list/',
    params: { aweme_id: url.videoId, count: COMMENTS_PAGE, cursor: offset, current_region: '', enter_from: 'tiktok_web', fromWeb: 1, from_page: 'video', is_non_personalized: 'false' },
    referer: page,
    fromPage: 'video',
    what: `comments of video ${url.videoId}`,
    cursor: cursor !== undefined,
  });
  // Only top-level comments (the endpoint returns those; a reply that slips in is left out).
  const comments = arr(get(data, 'comments')).map(mapComment).filter((c) => c.parentId === null);
  const next = int(get(data, 'cursor'));
  // The list ends when the upstream says so, or when its cursor stops moving forward.
  const hasMore = (int(get(data, 'has_more')) ?? 0) === 1 && next !== null && next > Number(offset) && comments.length > 0;
  return {
    video: { id: url.videoId, url: page, handle: url.handle },
    comments,
    count: comments.length,
    total: int(get(data, 'total')) ?? 0,
    cursor: hasMore ? str(next) : null,
    hasMore,
  };
};
