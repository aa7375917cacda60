import type * as v from 'valibot';
import { ApiError, extractionFailed, validationError } from '../../http/errors';
import type { Log } from '../../runtime/log';
import { allInOrder } from '../../scrape/concurrent';
import type { ScrapeContext } from '../../scrape/context';
import { MissingValue, get, str } from '../../scrape/map';
import { RememberedIds } from '../../scrape/remembered';
import type { Scraper } from '../../scrape/scraper';
import { PAGE_SIZE, type RawAccount, type Who, fetchAccount, fetchPinned, fetchTimeline, lookupAccount } from './client';
import { mapAccount, mapPost } from './map';
import type { Post, UserPostsData } from './resources';
import type { cursorParam, handleParam, userIdParam } from './site';

/**
 * Operation 9, /v1/microblog-c/user/posts: an account's posts, newest first, as on its profile page.
 *
 * Design decisions (README):
 * - Input: `handle` (username, @username or profile URL, normalized to the lowercased username) is
 *   resolved with accounts/lookup; `userId` (digits) is read with accounts/<id>. `cursor` is digits.
 * - Page size: 20 posts, newest first; fewer only on the last page. Replies are not included:
 *   upstream's `exclude_replies=true` leaves out replies to others but keeps the account's own thread
 *   continuations, which we drop as well (the spec: own posts, quotes and reposts, no replies; a
 *   pinned reply is still a reply). When replies were dropped, the page is filled from the following
 *   upstream pages (`limit=20` each, the web client's value), at most MAX_UPSTREAM_PAGES upstream
 *   pages per request and only while the deadline leaves room for another round trip; when either
 *   bound stops it first, the page is short but its cursor still continues exactly after its last post.
 * - Pinned posts stay in their chronological place, flagged `isPinned: true` (the pinned list,
 *   `pinned=true`, is read concurrently with the first timeline page of every request, since the
 *   timeline's own `pinned` flag is false for logged-out readers). They are not put in front of
 *   page 1: that would break the page size and the newest-first order.
 * - Reposts are returned as the original post, with `repostedBy` = {id, handle, displayName, url,
 *   avatarUrl} of the reposting account and `repostedAt` = the time of the repost.
 * - `cursor` = the id of the timeline item of the page's last post (for a repost the repost's id,
 *   not the original post's), passed upstream as `max_id` (exclusive), so pages neither repeat nor
 *   skip a post. It is null when the upstream has nothing after that post: no `Link: rel="next"`
 *   (or, without a Link header, a page shorter than 20 items) and nothing but replies left in the
 *   page read. `hasMore` = cursor !== null. A cursor that is not a snowflake id of this
 *   platform (its time part before 2021 or in the future) is 400 BAD_REQUEST from parameter validation
 *   (site.ts cursorParam), before any credit is reserved or upstream call made.
 * - Shapes: `card` {url, type, title, description, imageUrl, providerName, providerUrl, authorName,
 *   authorUrl, width, height}; `poll` {id, options[{title, votesCount}], votesCount, votersCount,
 *   isMultiple, isExpired, expiresAt}; `hashtags` [name without '#', spelled as in the text];
 *   `links` [URL] (links in the text other than mentions and hashtags, then the card's URL);
 *   `mentions` [{id, handle, url}]; `media` type 'image' | 'video' | 'gif' (gifv -> gif; a TV
 *   programme's attachment is its poster image). `visibility` is passed through (public, unlisted,
 *   group). Counts upstream withholds (-1) are null. The quote marker ("RT: <url>") is removed from
 *   `text`; the quoted post is `quotedPost`.
 * - Account: `isTvAccount`, `acceptsMessages` (accepting_messages), `isDiscoverable` (null when
 *   upstream has no opinion), `lastPostDate` YYYY-MM-DD (null for an account that never posted),
 *   `website` as typed by the user and `websiteUrl` with https:// added ("" if it is no web address),
 *   `bioMentions` [{handle, url}] and `bioLinks` [URL] read from the bio's HTML. `avatarUrl`,
 *   `headerUrl`, `website` are strings ("" when empty); `bio` and `location` are null when empty.
 * - 404 NOT_FOUND: unknown account, suspended account (200 with `suspended: true` and emptied
 *   fields), or an account hidden from logged-out viewers (upstream 401).
 */
/** The validated parameters (site.ts schemas; the table makes exactly one of handle and userId present). */
type Params = {
  handle?: v.InferOutput<typeof handleParam>;
  userId?: v.InferOutput<typeof userIdParam>;
  cursor?: v.InferOutput<typeof cursorParam>;
};

/**
 * Usernames this container has resolved: ids never change, so a known name skips the lookup and
 * costs one upstream round trip instead of two. A name can move to another account (rename), so
 * the account read by id must still carry the name; if not, or if it is gone, we look it up again.
 */
export const knownUsernames = new RememberedIds('microblog-c');

export const scrapeUserPosts: Scraper<Params, UserPostsData> = async (params, ctx, log) => {
  const { handle, userId, cursor } = params;
  if (userId !== undefined) return userPosts(ctx, log, fetchAccount(ctx, userId), { id: userId }, cursor);
  if (handle === undefined) throw validationError([{ path: 'handle', message: 'Give a handle or a userId' }]);

  const id = knownUsernames.get(handle);
  if (id !== undefined) {
    try {
      const page = await userPosts(ctx, log, fetchAccount(ctx, id), { id, username: handle }, cursor);
      if (page.user.handle.toLowerCase() === handle) return page;
      log.info('a known username now names another account; looking it up again');
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'NOT_FOUND')) throw err;
    }
    knownUsernames.forget(handle);
  }
  // By username the id is needed before the timeline: two round trips the first time.
  const found = await lookupAccount(ctx, handle);
  knownUsernames.remember(handle, found.id);
  return userPosts(ctx, log, Promise.resolve(found), { id: found.id, username: str(found.acct) ?? handle }, cursor);
};

/** Upstream timeline pages one request may read to fill its page of 20 posts (20 items each). */
export const MAX_UPSTREAM_PAGES = 5;
/** Another upstream page is asked for only while the deadline leaves at least this much. */
const FILL_RESERVE_MS = 3_000;

const isReply = (item: unknown) => str(get(item, 'in_reply_to_id')) !== null;

async function userPosts(ctx: ScrapeContext, log: Log, account: Promise<RawAccount>, who: Who, cursor: string | undefined): Promise<UserPostsData> {
  // Settled together; the account's failure (not found) wins over the timeline's, whatever finished first.
  const [rawAccount, firstPage, pinnedItems] = await allInOrder([account, fetchTimeline(ctx, who, cursor), fetchPinned(ctx, who)]);

  const user = mapAccount(rawAccount);
  const pinnedIds = new Set(pinnedItems.map((item) => str(get(item, 'id'))).filter((id): id is string => id !== null));

  const posts: Post[] = [];
  const drops = ctx.drops(log);
  let page = firstPage;
  let upstreamPages = 1;
  let seen = 0;
  let unreadable = 0;
  let dropped: MissingValue | undefined;
  let replies = 0;
  let next: string | null;
  for (;;) {
    // The id of the last timeline item this page has used up: where the next page starts (max_id is exclusive).
    let lastUsed: string | null = null;
    let i = 0;
    for (; i < page.items.length && posts.length < PAGE_SIZE; i++) {
      const item = page.items[i];
      seen += 1;
      const id = str(get(item, 'id'));
      lastUsed = id ?? lastUsed;
      if (id && isReply(item)) {
        replies += 1;
        continue;
      }
      try {
        posts.push(mapPost(item, { pinned: id !== null && pinnedIds.has(id) }, drops));
      } catch (err) {
        if (!(err instanceof MissingValue)) throw err;
        // Left out and counted as drift; the page keeps its other posts.
        drops.dropped('post', err.missing);
        dropped ??= err;
        unreadable += 1;
      }
    }
    const lastId = str(get(page.items[page.items.length - 1], 'id'));
    const upstreamNext = page.nextMaxId === undefined ? (page.items.length >= PAGE_SIZE ? lastId : null) : page.nextMaxId;
    if (posts.length >= PAGE_SIZE) {
      // Full. There is more when the rest of this upstream page holds a post, or the upstream goes on.
      const rest = page.items.slice(i).some((item) => str(get(item, 'id')) !== null && !isReply(item));
      next = rest || upstreamNext !== null ? lastUsed : null;
      break;
    }
    if (upstreamNext === null) {
      next = null;
      break;
    }
    if (upstreamPages >= MAX_UPSTREAM_PAGES || ctx.remaining() < FILL_RESERVE_MS) {
      log.info('short page: stopped filling it', { posts: posts.length, upstreamPages, remainingMs: ctx.remaining() });
      next = upstreamNext;
      break;
    }
    page = await fetchTimeline(ctx, who, upstreamNext);
    upstreamPages += 1;
  }
  // Not one item of the answer could be built: it is not a page of posts.
  if (unreadable > 0 && unreadable === seen - replies) throw dropped ?? extractionFailed(`statuses of ${user.id}: ${unreadable} items, none of them a status`);
  if (replies > 0) log.debug('left out replies', { replies, upstreamPages });

  return { user, posts, count: posts.length, cursor: next, hasMore: next !== null };
}
