import type * as v from 'valibot';
import { ApiError, extractionFailed, validationError } from '../../errors';
import type { Log } from '../../log';
import { allInOrder } from '../../scrape/concurrent';
import type { ScrapeContext } from '../../scrape/context';
import { get, str } from '../../scrape/map';
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
 * - Page size: 20 timeline items (`limit=20`, the web client's value). Replies are not included:
 *   upstream's `exclude_replies=true` leaves out replies to others but keeps the account's own thread
 *   continuations, which we drop as well (the spec: own posts, quotes and reposts, no replies). A page
 *   can therefore hold fewer than 20 posts; the cursor still advances by whole upstream pages.
 * - Pinned posts lead page 1 (as on the profile page), with `isPinned: true`, fetched with
 *   `pinned=true` concurrently with the timeline; a pinned post that also appears in the page-1
 *   timeline is removed there. Page 1 can therefore hold up to 20 + the pinned posts. Later pages
 *   are the plain timeline (`isPinned` from upstream's own flag).
 * - Reposts are returned as the original post, with `repostedBy` = {id, handle, displayName, url,
 *   avatarUrl} of the reposting account and `repostedAt` = the time of the repost.
 * - `cursor` = the `max_id` of upstream's `Link: …; rel="next"`; without a Link header, the id of the
 *   page's last timeline item when the page was full (20 items). That is the id of the timeline item,
 *   so for a repost it is the repost's id, not the original post's. `hasMore` = cursor !== null; the
 *   last page gives `cursor: null, hasMore: false`. A cursor that is not a snowflake id of this
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

async function userPosts(ctx: ScrapeContext, log: Log, account: Promise<RawAccount>, who: Who, cursor: string | undefined): Promise<UserPostsData> {
  const firstPage = cursor === undefined;
  // Settled together; the account's failure (not found) wins over the timeline's, whatever finished first.
  const [rawAccount, page, pinnedItems] = await allInOrder([
    account,
    fetchTimeline(ctx, who, cursor),
    firstPage ? fetchPinned(ctx, who) : Promise.resolve([] as unknown[]),
  ]);

  const user = mapAccount(rawAccount);

  const pinned = pinnedItems.map((item) => mapPost(item, { pinned: true })).filter((p): p is Post => p !== null);
  const pinnedIds = new Set(pinned.map((p) => p.id));

  const timeline: Post[] = [];
  let unreadable = 0;
  let replies = 0;
  for (const item of page.items) {
    const id = str(get(item, 'id'));
    if (id && pinnedIds.has(id)) continue; // it already leads the page
    if (id && str(get(item, 'in_reply_to_id'))) {
      replies += 1;
      continue;
    }
    const post = id ? mapPost(item) : null;
    if (post) timeline.push(post);
    else unreadable += 1;
  }
  if (unreadable > 0 && unreadable === page.items.length) {
    throw extractionFailed(`statuses of ${user.id}: ${unreadable} items, none of them a status`);
  }
  if (unreadable > 0) log.warn('skipped timeline items that are not statuses', { unreadable });
  if (replies > 0) log.debug('left out replies', { replies });

  const lastId = str(get(page.items[page.items.length - 1], 'id'));
  const next = page.nextMaxId === undefined ? (page.items.length >= PAGE_SIZE ? lastId : null) : (page.nextMaxId ?? null);

  const posts = [...pinned, ...timeline];
  return { user, posts, count: posts.length, cursor: next, hasMore: next !== null };
}
