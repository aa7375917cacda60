import * as v from 'valibot';
import { anyOrNull, arr, bool, dateTime, given, hlsPlaylist, int, ndateTime, nint, nobj, nstr, str } from '../../scrape/resource';

/**
 * microblog-a: the spec's resources as valibot schemas (see shared/scrape/resource.ts for the
 * conventions). The operation table names each operation's `data` schema from here; mappers return
 * their output types, and the contract tests validate every response against them.
 */
export const microblogAAccount = v.looseObject({
  did: v.pipe(v.string(), v.regex(/^did:plc:[^\s/]+$/, 'Must be did:plc:<id>')),
  handle: str,
  displayName: str,
  url: str,
  avatarUrl: str,
  pronouns: nstr,
  isVerified: bool,
  labels: arr,
  createdAt: dateTime,
});

const microblogAImage = v.looseObject({ url: str, thumbnailUrl: str, alt: str, width: int, height: int });
const microblogAVideo = v.looseObject({
  playlistUrl: hlsPlaylist,
  thumbnailUrl: str,
  alt: nstr,
  // "width, height (nullable)": read as both nullable.
  width: nint,
  height: nint,
});
// "media.link: url, title, description, thumbnailUrl": no type given.
const microblogALink = v.looseObject({ url: given, title: given, description: given, thumbnailUrl: given });

export const microblogAPost = v.looseObject({
  id: str,
  uri: v.pipe(v.string(), v.regex(/^at:\/\/[^/\s]+\/[^/\s]+\/[^/\s]+$/, 'Must be at://<did>/<collection>/<id>')),
  cid: str,
  url: str,
  text: str,
  createdAt: dateTime,
  indexedAt: dateTime,
  langs: arr,
  tags: arr,
  via: anyOrNull,
  hashtags: arr,
  mentions: arr,
  links: arr,
  author: microblogAAccount,
  likeCount: int,
  repostCount: int,
  replyCount: int,
  quoteCount: int,
  bookmarkCount: int,
  media: v.looseObject({ images: v.array(microblogAImage), video: v.nullable(microblogAVideo), link: v.nullable(microblogALink) }),
  quote: nobj,
  embeddedRecord: nobj,
  isReply: bool,
  reply: nobj,
  isRepost: bool,
  repostedBy: nobj,
  repostedAt: ndateTime,
  isPinned: bool,
  threadPostIndex: nint,
  threadPostCount: nint,
  replySettings: nobj,
  labels: arr,
});

export const UserPostsData = v.looseObject({
  user: v.nullable(microblogAAccount),
  posts: v.array(microblogAPost),
  count: int,
  cursor: nstr,
  hasMore: bool,
});
export type UserPostsData = v.InferOutput<typeof UserPostsData>;
