import * as v from 'valibot';
import { anyOrNull, arr, bool, calendarDate, dateTime, given, int, nbool, nint, nstr, str } from '../../scrape/resource';

/**
 * microblog-c: the spec's resources as valibot schemas (see shared/scrape/resource.ts for the
 * conventions). The operation table names each operation's `data` schema from here; mappers return
 * their output types, and the contract tests validate every response against them.
 */
export const microblogCAccount = v.looseObject({
  id: str,
  handle: str,
  displayName: str,
  url: str,
  avatarUrl: str,
  headerUrl: str,
  website: str,
  websiteUrl: str,
  bio: nstr,
  location: nstr,
  bioMentions: arr,
  bioLinks: arr,
  emojis: arr,
  isVerified: bool,
  isPremium: bool,
  isPrivate: bool,
  isBot: bool,
  isGroup: bool,
  isTvAccount: bool,
  acceptsMessages: bool,
  isDiscoverable: nbool,
  followerCount: int,
  followingCount: int,
  postCount: int,
  createdAt: dateTime,
  lastPostDate: calendarDate,
});

// The post author's fields are named like the account's; their types are the account table's.
const microblogCAuthor = v.looseObject({
  id: str,
  handle: str,
  displayName: str,
  url: str,
  avatarUrl: str,
  isVerified: bool,
  isPremium: bool,
  followerCount: int,
});
const microblogCMedia = v.looseObject({
  id: given,
  type: str, // "covers images, videos and GIFs"
  url: given,
  previewUrl: given,
  width: given,
  height: given,
  durationSeconds: anyOrNull,
  altText: anyOrNull,
});
const microblogCMention = v.looseObject({ id: given, handle: given, url: given });

export interface MicroblogCPost {
  [k: string]: unknown;
}
export const microblogCPost: v.GenericSchema<MicroblogCPost> = v.looseObject({
  id: str,
  url: str,
  text: nstr,
  createdAt: dateTime,
  editedAt: nstr,
  language: nstr,
  author: microblogCAuthor,
  // Issue 3: counts the upstream withholds (-1) become null, not -1.
  replyCount: nint,
  repostCount: nint,
  likeCount: nint,
  media: v.array(microblogCMedia),
  card: anyOrNull,
  poll: anyOrNull,
  mentions: v.array(microblogCMention),
  hashtags: arr,
  links: arr,
  quotedPost: v.nullable(v.lazy(() => microblogCPost)), // "same shape as a post"
  isReply: bool,
  isPinned: bool,
  isSensitive: bool,
  isSponsored: bool,
  inReplyToPostId: nstr,
  inReplyToAccountId: nstr,
  spoilerText: nstr,
  visibility: str,
  repostedBy: anyOrNull,
  repostedAt: anyOrNull,
});
export const UserPostsData = v.looseObject({
  user: microblogCAccount,
  posts: v.array(microblogCPost),
  count: int,
  // Op. 9 gives no type for `cursor`; like op. 1's it is read as a string, null on the last page.
  cursor: nstr,
  hasMore: bool,
});
export type UserPostsData = v.InferOutput<typeof UserPostsData>;
