import * as v from 'valibot';
import { NO_VALUE, type RequiredValues, boolean, dateTime, dateTimeOrNull, deviation, hlsPlaylist, integer, integerOrNull, omitted, required, string, stringOrNull } from '../../scrape/resource';

/**
 * microblog-a: the spec's resources (Account, Post) as the precise shapes the mappers produce
 * (conventions in shared/scrape/resource.ts). The operation table names `UserPostsData` as
 * operation 1's `data`; map.ts returns these output types, and the contract tests validate every
 * response against them. Shapes the spec leaves open are the ones the README lists for operation 1.
 */

/** "decentralized identifier of the form did:plc:<id>". */
const didPlc = v.pipe(v.string(), v.regex(/^did:plc:[^\s/]+$/, 'Must be did:plc:<id>'));
/** "of the form at://<did>/<collection>/<id>". */
const atUri = v.pipe(v.string(), v.regex(/^at:\/\/[^/\s]+\/[^/\s]+\/[^/\s]+$/, 'Must be at://<did>/<collection>/<id>'));
const strings = v.array(string);

// ---- Account (data.user, posts[].author, repostedBy, …) -------------------------------------------

const accountEntries = {
  did: didPlc,
  handle: string,
  displayName: string,
  /** The profile link; by DID when the handle no longer resolves ("handle.invalid"). */
  url: string,
  avatarUrl: deviation(stringOrNull, `${NO_VALUE}: an account without a profile picture`),
  pronouns: stringOrNull,
  /** false when the AppView leaves `verification` out (it does for unverified accounts). */
  isVerified: omitted(boolean, 'null when the account\'s verification is there but its verifiedStatus cannot be read (the AppView leaves verification out for unverified accounts: false then)'),
  /** Label values ("!no-unauthenticated", "porn", …). */
  labels: strings,
  createdAt: deviation(dateTimeOrNull, `${NO_VALUE}: the AppView leaves createdAt out for some accounts`),
};
export const Account = v.object(accountEntries);
export type Account = v.InferOutput<typeof Account>;

/** data.user: the account fields plus what the profile view adds (README, operation 1). */
export const Profile = v.object({
  ...accountEntries,
  description: string,
  website: stringOrNull,
  bannerUrl: stringOrNull,
  followersCount: integerOrNull,
  followsCount: integerOrNull,
  postsCount: integerOrNull,
  pinnedPostUri: v.nullable(atUri),
});
export type Profile = v.InferOutput<typeof Profile>;

// ---- media ------------------------------------------------------------------------------------------

export const Image = v.object({
  url: string,
  thumbnailUrl: omitted(string),
  alt: string,
  width: deviation(integerOrNull, `${NO_VALUE}: an image posted without its aspect ratio has no size`),
  height: deviation(integerOrNull, `${NO_VALUE}: an image posted without its aspect ratio has no size`),
});
export type Image = v.InferOutput<typeof Image>;

export const Video = v.object({
  playlistUrl: hlsPlaylist,
  thumbnailUrl: deviation(stringOrNull, `${NO_VALUE}: a video still being processed has no thumbnail`),
  alt: stringOrNull,
  // "width, height (nullable)": read as both nullable.
  width: integerOrNull,
  height: integerOrNull,
  /** Added: the video is a GIF (presented looping and muted). */
  isGif: boolean,
});
export type Video = v.InferOutput<typeof Video>;

/** "media.link: url, title, description, thumbnailUrl" (no types given: strings). */
export const Link = v.object({
  url: deviation(stringOrNull, `${NO_VALUE}: a link card whose address is not a web (http/https) address`),
  title: string,
  description: string,
  thumbnailUrl: deviation(stringOrNull, `${NO_VALUE}: a link card without a preview image`),
});
export type Link = v.InferOutput<typeof Link>;

export const Media = v.object({ images: v.array(Image), video: v.nullable(Video), link: v.nullable(Link) });
export type Media = v.InferOutput<typeof Media>;

// ---- what a post and a quoted post share ----------------------------------------------------------

const postCoreEntries = {
  /** The record key (the last segment of `uri`). */
  id: string,
  uri: atUri,
  cid: string,
  url: string,
  text: string,
  createdAt: deviation(dateTimeOrNull, `${NO_VALUE}: a post record whose createdAt (written by the posting client) is not a date`),
  indexedAt: dateTime,
  langs: strings,
  author: Account,
  // Optional in app.bsky.feed.defs#postView (and #viewRecord): null when the AppView leaves one out.
  likeCount: omitted(integer),
  repostCount: omitted(integer),
  replyCount: omitted(integer),
  quoteCount: omitted(integer),
};

// ---- quote: a post-like object, or a reference that cannot be shown -------------------------------

export const QuoteUnavailable = v.object({
  uri: atUri,
  /** Why the quoted post is not shown; `hidden`: its author hides from logged-out viewers. */
  unavailable: v.picklist(['notFound', 'blocked', 'detached', 'hidden']),
});
export const QuotedPost = v.object({
  ...postCoreEntries,
  media: Media,
  labels: strings,
  unavailable: v.null(),
});
export const Quote = v.union([QuotedPost, QuoteUnavailable]);
export type Quote = v.InferOutput<typeof Quote>;

// ---- embeddedRecord: a feed, list, starter pack or labeler ----------------------------------------

const embeddedCommon = { uri: atUri, creator: v.nullable(Account) };
export const EmbeddedRecord = v.variant('type', [
  v.object({ type: v.literal('feed'), ...embeddedCommon, name: string, description: stringOrNull, avatarUrl: stringOrNull, likeCount: integerOrNull }),
  v.object({ type: v.literal('list'), ...embeddedCommon, name: string, description: stringOrNull, avatarUrl: stringOrNull, purpose: stringOrNull, listItemCount: integerOrNull }),
  v.object({ type: v.literal('starterPack'), ...embeddedCommon, name: string, description: stringOrNull, listItemCount: integerOrNull, joinedAllTimeCount: integerOrNull }),
  v.object({ type: v.literal('labeler'), ...embeddedCommon, name: string, likeCount: integerOrNull }),
]);
export type EmbeddedRecord = v.InferOutput<typeof EmbeddedRecord>;

// ---- reply: {root, parent, grandparentAuthor} -----------------------------------------------------

export const ReplyRef = v.union([
  v.object({
    uri: atUri,
    id: string,
    url: string,
    text: string,
    author: v.object({ did: didPlc, handle: string, displayName: string }),
    unavailable: v.null(),
  }),
  /** `notHydrated`: the feed gave only the record's reference (no view of the post). */
  v.object({ uri: atUri, unavailable: v.picklist(['notFound', 'blocked', 'hidden', 'notHydrated']) }),
]);
export type ReplyRef = v.InferOutput<typeof ReplyRef>;

export const ReplyContext = v.object({ root: ReplyRef, parent: ReplyRef, grandparentAuthor: v.nullable(Account) });
export type ReplyContext = v.InferOutput<typeof ReplyContext>;

// ---- replySettings: null when anyone may reply ----------------------------------------------------

export const ReplyRule = v.variant('type', [
  v.object({ type: v.literal('mentioned') }),
  v.object({ type: v.literal('followers') }),
  v.object({ type: v.literal('following') }),
  v.object({ type: v.literal('list'), list: v.nullable(atUri), name: stringOrNull }),
]);
export const ReplySettings = v.object({ everybody: boolean, allow: v.array(ReplyRule), hiddenReplies: strings });
export type ReplySettings = v.InferOutput<typeof ReplySettings>;

// ---- Post (data.posts[]) --------------------------------------------------------------------------

export const Post = v.object({
  ...postCoreEntries,
  /** The record's own tags (not in the text). */
  tags: strings,
  /** The client that posted it, when it says. */
  via: stringOrNull,
  /** Facets: hashtags as written (without '#'), mentions by DID with the handle as written, links with their text. */
  hashtags: strings,
  mentions: v.array(v.object({ did: string, handle: stringOrNull })),
  links: v.array(v.object({ url: string, text: string })),
  bookmarkCount: deviation(integerOrNull, `${NO_VALUE}: a post view from an AppView that does not count bookmarks (they were added in 2025; older answers carry no bookmarkCount)`),
  media: Media,
  quote: v.nullable(Quote),
  embeddedRecord: v.nullable(EmbeddedRecord),
  isReply: boolean,
  reply: v.nullable(ReplyContext),
  isRepost: boolean,
  repostedBy: v.nullable(Account),
  repostedAt: dateTimeOrNull,
  isPinned: boolean,
  threadPostIndex: integerOrNull,
  threadPostCount: integerOrNull,
  replySettings: v.nullable(ReplySettings),
  labels: strings,
});
export type Post = v.InferOutput<typeof Post>;

export const UserPostsData = v.object({
  /** The spec makes `user` nullable; the profile is always read (404 without it), so it is never null. */
  user: Profile,
  posts: v.array(Post),
  count: integer,
  cursor: stringOrNull,
  hasMore: boolean,
});
export type UserPostsData = v.InferOutput<typeof UserPostsData>;

// ---- required values (issue 31) --------------------------------------------------------------------

const LEXICONS = 'the atproto lexicons (shared/upstream-samples/microblog-a/lexicons/)';
/**
 * What operation 1 cannot build without: the `required` of the lexicons, where the resource is built
 * on it. app.bsky.feed.defs#postView requires uri, cid, author, record and indexedAt (every count is
 * optional); app.bsky.actor.defs#profileViewBasic and #profileViewDetailed require did and handle.
 * `record` is not listed: a post whose record is unreadable keeps its identity (text "" and createdAt null).
 * Nested parts left out (and counted) when they lack their own: an image without `fullsize`
 * (embed.images#viewImage), a video without `playlist` (embed.video#view), a quoted post or
 * embedded record without `uri` (embed.record#view*), a reply reference without `uri`, a reposter
 * or grandparent author without did/handle.
 */
export const REQUIRED: readonly RequiredValues[] = [
  required('profile', 'user', { did: 'did', handle: 'handle' }, `${LEXICONS}: app.bsky.actor.defs#profileViewDetailed requires did, handle`),
  required(
    'post',
    'posts[]',
    {
      uri: 'post.uri',
      id: 'post.uri',
      cid: 'post.cid',
      'author.did': 'post.author.did',
      'author.handle': 'post.author.handle',
      indexedAt: 'post.indexedAt',
      // A reply is on the Posts tab only inside the account's own thread (operation 1's contract):
      // its parent's, root's and grandparent's authors place it.
      "(a reply's place) parent author": 'reply.parent.author.did | reply.parent.uri',
      "(a reply's place) root author": 'reply.root.author.did | reply.root.uri',
      "(a reply's place) grandparent author": 'reply.grandparentAuthor.did',
    },
    `${LEXICONS}: app.bsky.feed.defs#postView requires uri, cid, author, record, indexedAt; its author (#profileViewBasic) did, handle; a reply's place: app.bsky.feed.defs#replyRef (root, parent required, grandparentAuthor optional) and the Posts tab's filter (research note upstream-microblog-a.md §1, step 4)`,
  ),
];
