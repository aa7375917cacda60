import { ApiError, notFound } from '../../http/errors';
import type { Log } from '../../runtime/log';
import { allInOrder } from '../../scrape/concurrent';
import type { Drops, ScrapeContext } from '../../scrape/context';
import { keepGood, listGood } from '../../scrape/map';
import { RememberedIds } from '../../scrape/remembered';
import type { Scraper } from '../../scrape/scraper';
import { fetchConversation, fetchNote, fetchUser, fetchUserNotes } from './client';
import { directReplies, focalNoteOf, mapProfile, mapThreadNote, mapUserNote, type TimelineItem, trimNote, trimUserNote, userIdentity, userOf, userTimeline } from './map';
import type { NoteData, ProfileData, ThreadNote, UserNote, UserNotesData } from './resources';

/**
 * microblog-b operations (logged out, guest token; upstream calls in client.ts):
 *   3.  /v1/microblog-b/profile     UserByScreenName: 1 round trip.
 *   10. /v1/microblog-b/user-notes  UserTweets by the user's id: 1 round trip when this container
 *       knows the handle's id, else UserByScreenName first (2).
 *   12. /v1/microblog-b/note        TweetResultByRestId and TweetDetail together (1 round trip);
 *       trim=true: TweetResultByRestId only.
 * `handle` arrives lower-cased (site.handleParam); `url` as {noteId}.
 */

/** Handles this container resolved to ids (public accounts only: a protected one must be looked up). */
const knownIds = new RememberedIds('microblog-b');
export const rememberHandle = (handle: string, id: string) => knownIds.remember(handle, id);

export const scrapeProfile: Scraper<{ handle: string }, ProfileData> = async ({ handle }, ctx, log) => {
  const profile = mapProfile(userOf(await fetchUser(ctx, log, handle)));
  if (!profile.protected) knownIds.remember(handle, profile.id);
  return { profile };
};

export const scrapeUserNotes: Scraper<{ handle: string; trim?: boolean }, UserNotesData> = async ({ handle, trim }, ctx, log) => {
  const finish = (items: TimelineItem[]) => {
    const notes = userNotes(items, ctx.drops(log));
    return trim ? { notes: notes.map(trimUserNote), noteCount: notes.length } : { notes, noteCount: notes.length };
  };

  const known = knownIds.get(handle);
  if (known !== undefined) {
    try {
      const items = userTimeline(await fetchUserNotes(ctx, log, known));
      // The timeline's own entries name its owner: a handle that moved to another account is looked up again.
      const owner = items.find((i) => i.ownerScreenName)?.ownerScreenName;
      if (!owner || owner.toLowerCase() === handle) return finish(items);
      log.info('a known handle now names another account; looking it up again');
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'NOT_FOUND')) throw err;
    }
    knownIds.forget(handle);
  }

  // The timeline is asked for by id: a handle costs a lookup first.
  const user = userIdentity(userOf(await fetchUser(ctx, log, handle)));
  if (user.protected) throw notFound("This account's notes are protected: the source shows them only to approved followers");
  knownIds.remember(handle, user.id);
  return finish(userTimeline(await fetchUserNotes(ctx, log, user.id)));
};

/** Newer first by id: a note id is a snowflake, whose top bits are its creation time (and lower bits break ties). */
const newerFirst = (a: string, b: string) => {
  const [x, y] = [/^\d{1,20}$/.test(a) ? BigInt(a) : 0n, /^\d{1,20}$/.test(b) ? BigInt(b) : 0n];
  return x === y ? 0 : y > x ? 1 : -1;
};

/**
 * The profile page's order: the pinned note first, then newest to oldest (logged out the upstream
 * sends its most-liked notes in its own order; the order is by id, whose top bits are the time, so a
 * note whose created_at cannot be read keeps its place). A repost is shown as its original; a note
 * met twice (pinned and in the timeline, or reposted twice) once. A note without its id is left out
 * and counted as drift.
 */
function userNotes(items: TimelineItem[], drops: Drops): UserNote[] {
  const byId = new Map<string, UserNote>();
  for (const note of keepGood(items, (item) => mapUserNote((item as TimelineItem).note, (item as TimelineItem).pinned, drops), 'note', drops)) {
    const seen = byId.get(note.id);
    if (seen) seen.isPinned ||= note.isPinned;
    else byId.set(note.id, note);
  }
  return [...byId.values()].sort((a, b) => Number(b.isPinned) - Number(a.isPinned) || newerFirst(a.id, b.id));
}

export const scrapeNote: Scraper<{ url: { noteId: string }; trim?: boolean }, NoteData> = async ({ url: { noteId }, trim }, ctx, log) => {
  const drops = ctx.drops(log);
  if (trim) return { focalNote: trimNote(mapUserNote(focalNoteOf(await fetchNote(ctx, log, noteId)), false, drops)) };
  const [focal, replies] = await allInOrder([fetchNote(ctx, log, noteId), replyNotes(ctx, log, noteId, drops)] as const);
  const focalNote = mapThreadNote(focalNoteOf(focal), drops);
  return { focalNote, replies, replyCount: focalNote.counts.replies };
};

/**
 * The direct replies the guest view gives, in upstream order, or [] when it refuses them (Denied by
 * access control, 401/403, 429, an answer without a conversation): logged out, replies are mostly
 * walled. Only the focal note's own call decides between 200 and an error.
 */
async function replyNotes(ctx: ScrapeContext, log: Log, noteId: string, drops: Drops): Promise<ThreadNote[]> {
  let raw;
  try {
    raw = directReplies(await fetchConversation(ctx, log, noteId), noteId);
  } catch (err) {
    if (err instanceof ApiError && (err.code === 'UPSTREAM_BLOCKED' || err.code === 'NOT_FOUND')) {
      log.info('the guest view refused the replies; returning the note without them', { code: err.code, cause: err.internal ?? err.message });
      return [];
    }
    throw err;
  }
  if (raw === null) {
    log.info('the conversation answer holds no conversation; returning the note without replies');
    return [];
  }
  // A reply without a required value is left out and counted; the replies are best effort, so even
  // none of them readable leaves the focal note's answer standing.
  return listGood(raw, (r) => mapThreadNote(r as Record<string, unknown>, drops), 'reply', drops);
}
