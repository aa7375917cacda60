import * as v from 'valibot';
import { NO_VALUE, type RequiredValues, boolean, booleanOrNull, calendarDate, dateTime, dateTimeOrNull, deviation, integer, integerOrNull, numberOrNull, omitted, required, string, stringOrNull } from '../../scrape/resource';

/**
 * microblog-c: the spec's resources (Account, Post) as the precise shapes the mappers produce
 * (conventions in shared/scrape/resource.ts). The operation table names `UserPostsData` as
 * operation 9's `data`; map.ts returns these output types, and the contract tests validate every
 * response against them. Shapes the spec leaves open are the ones the README lists for operation 9.
 */
const WITHHELD = 'null where the upstream withholds the count (-1) or leaves it out';
const strings = v.array(string);

// ---- Account (data.user) --------------------------------------------------------------------------

/** A mention read from the bio's HTML. */
export const BioMention = v.object({ handle: string, url: string });
/** A custom emoji of the display name or bio. */
export const Emoji = v.object({ shortcode: string, url: stringOrNull, staticUrl: stringOrNull });

export const Account = v.object({
  id: string,
  handle: string,
  displayName: string,
  url: string,
  /** "" when the account has none. */
  avatarUrl: string,
  headerUrl: string,
  /** As typed by the user; "" when empty. */
  website: string,
  /** `website` with https:// added; "" when it is no web address. */
  websiteUrl: string,
  bio: stringOrNull,
  location: stringOrNull,
  bioMentions: v.array(BioMention),
  /** URLs of the bio's links other than mentions and hashtags. */
  bioLinks: strings,
  emojis: v.array(Emoji),
  isVerified: omitted(boolean),
  isPremium: omitted(boolean),
  isPrivate: omitted(boolean),
  isBot: omitted(boolean),
  isGroup: omitted(boolean),
  isTvAccount: omitted(boolean),
  acceptsMessages: omitted(boolean),
  isDiscoverable: booleanOrNull,
  followerCount: deviation(integerOrNull, WITHHELD),
  followingCount: deviation(integerOrNull, WITHHELD),
  postCount: deviation(integerOrNull, WITHHELD),
  createdAt: omitted(dateTime),
  lastPostDate: deviation(v.nullable(calendarDate), `${NO_VALUE}: an account that never posted`),
});
export type Account = v.InferOutput<typeof Account>;

// ---- Post parts ---------------------------------------------------------------------------------

// The post author's fields are named like the account's; their types are the account table's.
export const Author = v.object({
  id: string,
  handle: string,
  displayName: string,
  url: string,
  avatarUrl: string,
  isVerified: omitted(boolean),
  isPremium: omitted(boolean),
  followerCount: deviation(integerOrNull, WITHHELD),
});
export type Author = v.InferOutput<typeof Author>;

/** Who reposted the item (the spec leaves the shape open). */
export const RepostedBy = v.pick(Author, ['id', 'handle', 'displayName', 'url', 'avatarUrl']);
export type RepostedBy = v.InferOutput<typeof RepostedBy>;

export const Media = v.object({
  id: string,
  /** "covers images, videos and GIFs"; a TV programme's attachment is its poster image. */
  type: omitted(v.picklist(['image', 'video', 'gif'])),
  url: deviation(stringOrNull, `${NO_VALUE}: an attachment the upstream has not stored (no local or remote file URL)`),
  previewUrl: deviation(stringOrNull, `${NO_VALUE}: an attachment without a preview image`),
  width: deviation(integerOrNull, `${NO_VALUE}: an attachment the upstream has not measured (no meta.original)`),
  height: deviation(integerOrNull, `${NO_VALUE}: an attachment the upstream has not measured (no meta.original)`),
  durationSeconds: numberOrNull,
  altText: stringOrNull,
});
export type Media = v.InferOutput<typeof Media>;

export const Card = v.object({
  url: string,
  type: stringOrNull,
  title: stringOrNull,
  description: stringOrNull,
  imageUrl: stringOrNull,
  providerName: stringOrNull,
  providerUrl: stringOrNull,
  authorName: stringOrNull,
  authorUrl: stringOrNull,
  width: integerOrNull,
  height: integerOrNull,
});
export type Card = v.InferOutput<typeof Card>;

export const Poll = v.object({
  id: stringOrNull,
  options: v.array(v.object({ title: string, votesCount: integerOrNull })),
  votesCount: integerOrNull,
  votersCount: integerOrNull,
  isMultiple: booleanOrNull,
  isExpired: booleanOrNull,
  expiresAt: dateTimeOrNull,
});
export type Poll = v.InferOutput<typeof Poll>;

export const Mention = v.object({ id: string, handle: string, url: string });
export type Mention = v.InferOutput<typeof Mention>;

// ---- Post (data.posts[], and quotedPost: "same shape as a post") ----------------------------------

const postEntries = {
  id: string,
  url: string,
  text: stringOrNull,
  createdAt: omitted(dateTime),
  editedAt: dateTimeOrNull,
  language: stringOrNull,
  author: Author,
  replyCount: deviation(integerOrNull, WITHHELD),
  repostCount: deviation(integerOrNull, WITHHELD),
  likeCount: deviation(integerOrNull, WITHHELD),
  media: v.array(Media),
  card: v.nullable(Card),
  poll: v.nullable(Poll),
  mentions: v.array(Mention),
  /** Names without '#', spelled as in the text. */
  hashtags: strings,
  /** URLs: links in the text other than mentions and hashtags, then the card's URL. */
  links: strings,
  isReply: boolean,
  isPinned: boolean,
  isSensitive: omitted(boolean),
  isSponsored: omitted(boolean),
  inReplyToPostId: stringOrNull,
  inReplyToAccountId: stringOrNull,
  spoilerText: stringOrNull,
  /** Passed through: public, unlisted, group. */
  visibility: omitted(string),
  repostedBy: v.nullable(RepostedBy),
  repostedAt: dateTimeOrNull,
};
export type Post = v.InferOutput<v.ObjectSchema<typeof postEntries, undefined>> & { quotedPost: Post | null };
export const Post: v.GenericSchema<Post> = v.object({ ...postEntries, quotedPost: v.nullable(v.lazy(() => Post)) });

export const UserPostsData = v.object({
  user: Account,
  posts: v.array(Post),
  count: integer,
  // Op. 9 gives no type for `cursor`; like op. 1's it is read as a string, null on the last page.
  cursor: deviation(stringOrNull, 'null on the last page, where there is no next page to point to (the spec gives operation 9 no cursor type; operations 1, 5, 7 and 13 make theirs null there)'),
  hasMore: boolean,
});
export type UserPostsData = v.InferOutput<typeof UserPostsData>;

/**
 * What operation 9 cannot build without (issue 31). The Mastodon-compatible entities (research note
 * upstream-microblog-c.md §5) send every one of these, but only identity is required here: an
 * account's id and acct (its handle; username for a local account), a post's id and its author's
 * (the post URL is built from the author's acct). A repost is its original (`reblog`): its id and
 * author are the ones required. Left out and counted: a media attachment or mention without its id,
 * a quoted post or reposter without its identity.
 */
const ENTITIES = 'the Mastodon-compatible Account and Status entities (research note upstream-microblog-c.md §5)';
export const REQUIRED: readonly RequiredValues[] = [
  required('account', 'user', { id: 'id', handle: 'acct | username', url: 'acct | username' }, ENTITIES),
  required('post', 'posts[]', { id: 'id', 'author.id': 'account.id', 'author.handle': 'account.acct | account.username', url: 'account.acct | account.username' }, `${ENTITIES}; a repost: its reblog's`),
];
