import type * as v from 'valibot';
import { extractionFailed, notFound } from '../../http/errors';
import { MissingValue } from '../../scrape/map';
import { arr, get, isObject, keepGood, need, str } from '../../scrape/map';
import type { Scraper } from '../../scrape/scraper';
import { getAuthorFeed, getProfile } from './client';
import { hasNoUnauthenticated, mapFeedItem, mapProfile, reasonOf } from './map';
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
  const did = need(str(get(profile, 'did')), 'profile did');
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
  // An item without a value the post cannot be built (or placed) without is left out and counted
  // as drift; the page keeps the others.
  const drops = ctx.drops(log);
  const posts: Post[] = keepGood(
    get(feed, 'feed'),
    (item) => {
      const verdict = keep(item, did, pinnedUri, laterPage, seen);
      if (verdict === 'hidden') hidden += 1;
      return verdict === true ? mapFeedItem(item, drops) : null;
    },
    'post',
    drops,
  );
  annotateThreads(posts, did);
  if (hidden) log.debug('dropped items hidden from logged-out viewers', { hidden });

  const cursor = str(get(feed, 'cursor'));
  return { user: mapProfile(profile), posts, count: posts.length, cursor, hasMore: cursor !== null };
};

function keep(item: unknown, did: string, pinnedUri: string | null, laterPage: boolean, seen: Set<string>): boolean | 'hidden' {
  const post = get(item, 'post');
  if (hasNoUnauthenticated(get(post, 'author', 'labels')) || hasNoUnauthenticated(get(post, 'labels'))) return 'hidden';
  const uri = str(get(post, 'uri'));
  // No uri: the mapper leaves the item out and counts it.
  if (!uri) return true;
  const reason = reasonOf(get(item, 'reason'));
  const isRepost = reason === 'repost';
  const isPin = reason === 'pin';
  const key = isRepost ? `repost:${uri}` : uri;
  if (seen.has(key)) return false;
  if (laterPage && !isRepost && uri === pinnedUri) return false;
  seen.add(key);
  if (isRepost || isPin) return true;
  const reply = get(item, 'reply');
  if (!isObject(get(post, 'record', 'reply')) || !isObject(reply)) return true;
  // A reply belongs to the Posts tab only inside the account's own thread: its parent's, root's and
  // grandparent's authors decide, so a reply whose authors cannot be read cannot be placed.
  const gp = get(reply, 'grandparentAuthor');
  return authorDid(get(reply, 'parent'), 'parent') === did && authorDid(get(reply, 'root'), 'root') === did && (gp === undefined || need(str(get(gp, 'did')), 'reply grandparent author did') === did);
}

/** The DID of a reply reference's author: its author view's, else the authority of its at:// uri (the same DID). */
function authorDid(ref: unknown, role: string): string {
  const did = str(get(ref, 'author', 'did')) ?? str(get(ref, 'uri'))?.match(/^at:\/\/(did:[^/]+)\//)?.[1];
  if (!did) throw new MissingValue(`reply ${role} author did`);
  return did;
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
