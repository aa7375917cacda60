import * as v from 'valibot';
import { bool, calendarDate, dateTime, deviation, int, nbool, ndateTime, nint, nnum, nstr, str } from '../../scrape/resource';

/**
 * microblog-c: the spec's resources (Account, Post) as the precise shapes the mappers produce
 * (conventions in shared/scrape/resource.ts). The operation table names `UserPostsData` as
 * operation 9's `data`; map.ts returns these output types, and the contract tests validate every
 * response against them. Shapes the spec leaves open are the ones the README lists for operation 9.
 */
const NO_VALUE = 'null where the upstream has no value to give, rather than an invented one';
const WITHHELD = 'null where the upstream withholds the count (-1) or leaves it out';
const strings = v.array(str);

// ---- Account (data.user) --------------------------------------------------------------------------

/** A mention read from the bio's HTML. */
export const BioMention = v.object({ handle: str, url: str });
/** A custom emoji of the display name or bio. */
export const Emoji = v.object({ shortcode: str, url: nstr, staticUrl: nstr });

export const Account = v.object({
  id: str,
  handle: str,
  displayName: str,
  url: str,
  /** "" when the account has none. */
  avatarUrl: str,
  headerUrl: str,
  /** As typed by the user; "" when empty. */
  website: str,
  /** `website` with https:// added; "" when it is no web address. */
  websiteUrl: str,
  bio: nstr,
  location: nstr,
  bioMentions: v.array(BioMention),
  /** URLs of the bio's links other than mentions and hashtags. */
  bioLinks: strings,
  emojis: v.array(Emoji),
  isVerified: bool,
  isPremium: bool,
  isPrivate: bool,
  isBot: bool,
  isGroup: bool,
  isTvAccount: bool,
  acceptsMessages: bool,
  isDiscoverable: nbool,
  followerCount: deviation(nint, WITHHELD),
  followingCount: deviation(nint, WITHHELD),
  postCount: deviation(nint, WITHHELD),
  createdAt: dateTime,
  lastPostDate: deviation(v.nullable(calendarDate), `${NO_VALUE}: an account that never posted`),
});
export type Account = v.InferOutput<typeof Account>;

// ---- Post parts ---------------------------------------------------------------------------------

// The post author's fields are named like the account's; their types are the account table's.
export const Author = v.object({
  id: str,
  handle: str,
  displayName: str,
  url: str,
  avatarUrl: str,
  isVerified: bool,
  isPremium: bool,
  followerCount: deviation(nint, WITHHELD),
});
export type Author = v.InferOutput<typeof Author>;

/** Who reposted the item (the spec leaves the shape open). */
export const RepostedBy = v.pick(Author, ['id', 'handle', 'displayName', 'url', 'avatarUrl']);
export type RepostedBy = v.InferOutput<typeof RepostedBy>;

export const Media = v.object({
  id: str,
  /** "covers images, videos and GIFs"; a TV programme's attachment is its poster image. */
  type: v.picklist(['image', 'video', 'gif']),
  url: deviation(nstr, `${NO_VALUE}: an attachment the upstream has not stored (no local or remote file URL)`),
  previewUrl: deviation(nstr, `${NO_VALUE}: an attachment without a preview image`),
  width: deviation(nint, `${NO_VALUE}: an attachment the upstream has not measured (no meta.original)`),
  height: deviation(nint, `${NO_VALUE}: an attachment the upstream has not measured (no meta.original)`),
  durationSeconds: nnum,
  altText: nstr,
});
export type Media = v.InferOutput<typeof Media>;

export const Card = v.object({
  url: str,
  type: nstr,
  title: nstr,
  description: nstr,
  imageUrl: nstr,
  providerName: nstr,
  providerUrl: nstr,
  authorName: nstr,
  authorUrl: nstr,
  width: nint,
  height: nint,
});
export type Card = v.InferOutput<typeof Card>;

export const Poll = v.object({
  id: nstr,
  options: v.array(v.object({ title: str, votesCount: nint })),
  votesCount: nint,
  votersCount: nint,
  isMultiple: bool,
  isExpired: bool,
  expiresAt: ndateTime,
});
export type Poll = v.InferOutput<typeof Poll>;

export const Mention = v.object({ id: str, handle: str, url: str });
export type Mention = v.InferOutput<typeof Mention>;

// ---- Post (data.posts[], and quotedPost: "same shape as a post") ----------------------------------

const postEntries = {
  id: str,
  url: str,
  text: nstr,
  createdAt: dateTime,
  editedAt: ndateTime,
  language: nstr,
  author: Author,
  replyCount: deviation(nint, WITHHELD),
  repostCount: deviation(nint, WITHHELD),
  likeCount: deviation(nint, WITHHELD),
  media: v.array(Media),
  card: v.nullable(Card),
  poll: v.nullable(Poll),
  mentions: v.array(Mention),
  /** Names without '#', spelled as in the text. */
  hashtags: strings,
  /** URLs: links in the text other than mentions and hashtags, then the card's URL. */
  links: strings,
  isReply: bool,
  isPinned: bool,
  isSensitive: bool,
  isSponsored: bool,
  inReplyToPostId: nstr,
  inReplyToAccountId: nstr,
  spoilerText: nstr,
  /** Passed through: public, unlisted, group. */
  visibility: str,
  repostedBy: v.nullable(RepostedBy),
  repostedAt: ndateTime,
};
export type Post = v.InferOutput<v.ObjectSchema<typeof postEntries, undefined>> & { quotedPost: Post | null };
export const Post: v.GenericSchema<Post> = v.object({ ...postEntries, quotedPost: v.nullable(v.lazy(() => Post)) });

export const UserPostsData = v.object({
  user: Account,
  posts: v.array(Post),
  count: int,
  // Op. 9 gives no type for `cursor`; like op. 1's it is read as a string, null on the last page.
  cursor: deviation(nstr, 'null on the last page, where there is no next page to point to (the spec gives operation 9 no cursor type; operations 1, 5, 7 and 13 make theirs null there)'),
  hasMore: bool,
});
export type UserPostsData = v.InferOutput<typeof UserPostsData>;
