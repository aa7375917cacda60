import type * as v from 'valibot';
import { extractionFailed, notFound } from '../../http/errors';
import { arr, get, isObject, str } from '../../scrape/map';
import type { Scraper } from '../../scrape/scraper';
import { getAuthorFeed, getProfile } from './client';
import { hasNoUnauthenticated, mapFeedItem, mapProfile } from './map';
import type { Post, UserPostsData } from './resources';
import type { cursorParam, handleParam, userIdParam } from './site';

/**
 * Operation 1, an account's Posts tab as a logged-out visitor sees it.
 *
 * - getProfile and getAuthorFeed go out concurrently: a page costs one upstream round trip.
 * - The profile decides visibility: unknown, suspended, deactivated, or labelled
 *   `!no-unauthenticated` (sign-in required) -> 404.
 * - Feed items are filtered as the web client does logged out: items whose post or author carries
 *   `!no-unauthenticated` are dropped; replies are kept only inside the author's own threads.
 * - Page 1 asks for the pinned post (it comes first, isPinned); later pages drop it if it shows
 *   up again at its natural place, so it is never repeated.
 * - threadPostIndex/threadPostCount: for posts of one own thread present on the same page,
 *   the 1-based chronological position and the number of that thread's posts on the page.
 */
/** The validated parameters (site.ts schemas; the table makes exactly one of handle and userId present). */
type Params = {
  handle?: v.InferOutput<typeof handleParam>;
  userId?: v.InferOutput<typeof userIdParam>;
  cursor?: v.InferOutput<typeof cursorParam>;
};

export const scrapeUserPosts: Scraper<Params, UserPostsData> = async (params, ctx, log) => {
  const actor = params.handle ?? params.userId;
  if (!actor) throw extractionFailed('no actor after validation');
  const [profileResult, feedResult] = await Promise.allSettled([getProfile(ctx, actor), getAuthorFeed(ctx, actor, params.cursor)]);
  if (profileResult.status === 'rejected') throw profileResult.reason;
  const profile = profileResult.value;
  const did = str(get(profile, 'did'));
  if (!isObject(profile) || !did) throw extractionFailed('getProfile answered without a did');
  if (hasNoUnauthenticated(get(profile, 'labels'))) {
    throw notFound('This account is visible to signed-in users only');
  }
  if (feedResult.status === 'rejected') throw feedResult.reason;
  const feed = feedResult.value;
  if (!Array.isArray(get(feed, 'feed'))) throw extractionFailed('getAuthorFeed answered without a feed array');

  const pinnedUri = str(get(profile, 'pinnedPost', 'uri'));
  const laterPage = params.cursor !== undefined;
  const seen = new Set<string>();
  let hidden = 0;
  const posts: Post[] = [];
  for (const item of arr(get(feed, 'feed'))) {
    const verdict = keep(item, did, pinnedUri, laterPage, seen);
    if (verdict === 'hidden') hidden += 1;
    if (verdict === true) posts.push(mapFeedItem(item));
  }
  annotateThreads(posts, did);
  if (hidden) log.debug('dropped items hidden from logged-out viewers', { hidden });

  const cursor = str(get(feed, 'cursor'));
  return { user: mapProfile(profile), posts, count: posts.length, cursor, hasMore: cursor !== null };
};

function keep(item: unknown, did: string, pinnedUri: string | null, laterPage: boolean, seen: Set<string>): boolean | 'hidden' {
  const post = get(item, 'post');
  const uri = str(get(post, 'uri'));
  if (!uri) return false;
  if (hasNoUnauthenticated(get(post, 'author', 'labels')) || hasNoUnauthenticated(get(post, 'labels'))) return 'hidden';
  const reasonType = str(get(item, 'reason', '$type')) ?? '';
  const isRepost = reasonType.endsWith('#reasonRepost');
  const isPin = reasonType.endsWith('#reasonPin');
  const key = isRepost ? `repost:${uri}` : uri;
  if (seen.has(key)) return false;
  if (laterPage && !isRepost && uri === pinnedUri) return false;
  seen.add(key);
  if (isRepost || isPin) return true;
  const reply = get(item, 'reply');
  if (!isObject(get(post, 'record', 'reply')) || !isObject(reply)) return true;
  const own = (account: unknown) => account === undefined || get(account, 'did') === did;
  return get(reply, 'parent', 'author', 'did') === did && get(reply, 'root', 'author', 'did') === did && own(get(reply, 'grandparentAuthor'));
}

function annotateThreads(posts: Post[], did: string) {
  const threads = new Map<string, Post[]>();
  for (const p of posts) {
    if (p.isRepost || p.author.did !== did) continue;
    const root = p.reply ? p.reply.root.uri : p.uri;
    threads.set(root, [...(threads.get(root) ?? []), p]);
  }
  for (const members of threads.values()) {
    if (members.length < 2) continue;
    const ordered = [...members].sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? ''));
    ordered.forEach((p, i) => {
      p.threadPostIndex = i + 1;
      p.threadPostCount = ordered.length;
    });
  }
}
