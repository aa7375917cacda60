import * as v from 'valibot';
import { ERROR_STATUS, type ErrorCode } from '../../shared/errors';
import type { OperationId } from '../../shared/operations';

/**
 * The spec's response shapes as valibot schemas, transcribed field by field from
 * /work/shared/spec/service-spec.md ("Response envelope", "Resources and their fields", "Errors").
 *
 * Conventions, applied everywhere:
 * - Objects are loose: the implementation may add fields, but every field the spec lists is required.
 * - A field is nullable only where the spec says "nullable" (or "object or null", "or null on the
 *   last page"); `data.user` on microblog-a is the one nullable resource object.
 * - "integer(s)" are checked as integers, "number" as a finite number, "date-time" as an ISO 8601
 *   timestamp that also parses as a date, "`YYYY-MM-DD`" as a calendar date.
 * - Where the spec names a field but gives no type, the field must be present and not null
 *   (`given`); where it says only "nullable", any value including null is accepted (`anyOrNull`).
 * - Where the spec gives a field's form ("did:plc:<id>", "at://<did>/<collection>/<id>", "HLS
 *   playlist", "string of digits", "upper-case"), the form is checked.
 * Shapes the spec marks "not shown" are not checked beyond what the spec does say.
 */

// ---- primitives ---------------------------------------------------------------------------------

const str = v.string();
const nstr = v.nullable(v.string());
const bool = v.boolean();
const nbool = v.nullable(v.boolean());
const int = v.pipe(v.number(), v.integer('Expected an integer'));
const nint = v.nullable(int);
const num = v.pipe(v.number(), v.finite('Expected a finite number'));
const nnum = v.nullable(num);
const arr = v.array(v.unknown());

/** Present and not null; the spec names the field but gives no type. */
const given = v.pipe(v.unknown(), v.check((x) => x !== null && x !== undefined, 'Expected a value (the spec does not make this field nullable)'));
/** Present; the spec says only "nullable" (shape not shown). */
const anyOrNull = v.unknown();
/** An object (not an array); inner shape not shown by the spec. */
const obj = v.looseObject({});
const nobj = v.nullable(obj);

const parsesAsDate = v.check((s: string) => !Number.isNaN(Date.parse(s)), 'Must parse as a date');
/** "string, date-time": ISO 8601 date and time (offset or Z), parseable. */
export const dateTime = v.pipe(v.string(), v.isoTimestamp('Must be an ISO 8601 date-time'), parsesAsDate);
/** "string, ISO 8601 date-time, UTC" (envelope fields). */
export const utcDateTime = v.pipe(dateTime, v.regex(/Z$/, 'Must be in UTC (…Z)'));
const ndateTime = v.nullable(dateTime);
/** "`YYYY-MM-DD`". */
const calendarDate = v.pipe(v.string(), v.isoDate('Must be a YYYY-MM-DD date'), parsesAsDate);
const digits = v.pipe(v.string(), v.regex(/^\d+$/, 'Must be a string of digits'));
const upperCase = v.pipe(v.string(), v.regex(/^[A-Z0-9_]+$/, 'Must be upper-case'));
const hlsPlaylist = v.pipe(
  v.string(),
  v.check((s) => {
    try {
      return new URL(s).pathname.toLowerCase().endsWith('.m3u8');
    } catch {
      return false;
    }
  }, 'Must be an HLS playlist URL (.m3u8)'),
);

// ---- envelope -----------------------------------------------------------------------------------

const metaLive = v.looseObject({
  requestId: str,
  creditsCharged: int,
  creditsRemaining: int,
  cached: v.literal(false),
  cachedAt: v.optional(v.never('cachedAt is only sent on a cache hit')),
});
const metaCached = v.looseObject({
  requestId: str,
  creditsCharged: int,
  creditsRemaining: int,
  cached: v.literal(true),
  cachedAt: utcDateTime,
});
export const metaSchema = v.variant('cached', [metaLive, metaCached]);

/** Every `data` always contains `fetchedAt` (UTC date-time). */
const dataBase = { fetchedAt: utcDateTime };

export function successSchema<T extends v.GenericSchema>(data: T) {
  return v.looseObject({ data, meta: metaSchema });
}

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];
const detail = v.looseObject({ path: str, message: str });
const otherCodes = ERROR_CODES.filter((c) => c !== 'VALIDATION_ERROR') as [ErrorCode, ...ErrorCode[]];
export const errorSchema = v.looseObject({
  error: v.variant('code', [
    v.looseObject({ code: v.literal('VALIDATION_ERROR'), message: str, requestId: str, details: v.array(detail) }),
    v.looseObject({
      code: v.picklist(otherCodes),
      message: str,
      requestId: str,
      details: v.optional(v.never('details is only sent with VALIDATION_ERROR')),
    }),
  ]),
});

// ---- 1. microblog-a -----------------------------------------------------------------------------

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

const microblogAUserPosts = v.looseObject({
  ...dataBase,
  user: v.nullable(microblogAAccount),
  posts: v.array(microblogAPost),
  count: int,
  cursor: nstr,
  hasMore: bool,
});

// ---- 2. livestream ------------------------------------------------------------------------------

const livestreamAccount = { id: int, username: str, slug: str };
export const livestreamClip = v.looseObject({
  id: str,
  title: str,
  url: str,
  privacy: str,
  isMature: bool,
  durationSeconds: int,
  views: int,
  // Deviations from the spec's table, each because the upstream has no value to give (README, op 2):
  // likes and livestreamId are absent from the newer upstream shape; startedAt is the 0001-01-01
  // placeholder on 2023-era clips (the issue asks for null); vodStartsAt is absent when there is
  // no VOD; a category may have no parent or banner. Those are null rather than invented.
  likes: nint,
  thumbnailUrl: str,
  // HLS playlist; 2023-era clips only ever had an MP4 file, served with videoFormat 'mp4'.
  videoUrl: v.union([hlsPlaylist, v.pipe(str, v.regex(/\.mp4(\?|$)/, 'Expected an .mp4 URL'))]),
  videoFormat: v.picklist(['hls', 'mp4']),
  createdAt: dateTime,
  startedAt: ndateTime,
  vodStartsAt: nint,
  livestreamId: nstr,
  vodId: nstr,
  category: v.looseObject({ id: int, name: str, slug: str, parentCategory: nstr, imageUrl: nstr }),
  channel: v.looseObject({ ...livestreamAccount, profilePicture: str }),
  creator: v.looseObject({ ...livestreamAccount, profilePicture: nstr }),
});
const livestreamClipData = v.looseObject({ ...dataBase, clip: livestreamClip });

// ---- 3. microblog-b profile ---------------------------------------------------------------------

export const microblogBProfile = v.looseObject({
  id: str,
  name: str,
  screenName: str,
  url: str,
  bio: str,
  location: str,
  website: v.looseObject({ url: given, displayUrl: given, expandedUrl: given }),
  avatarUrl: str,
  avatarUrlHd: str,
  bannerUrl: str,
  stats: v.looseObject({ followers: int, following: int, notes: int }),
  verified: bool,
  protected: bool,
  professional: bool,
  verifiedType: nstr,
  professionalCategory: nstr,
  profileImageShape: str,
  joined: str,
});
const microblogBProfileData = v.looseObject({ ...dataBase, profile: microblogBProfile });

// ---- 4. citygame --------------------------------------------------------------------------------

const citygameDaily = v.looseObject({ ...dataBase, date: calendarDate, weekday: str, weather: str, headline: str, tip: str });

// ---- 5. shortvideo following --------------------------------------------------------------------

export const shortvideoFollowed = v.looseObject({
  id: digits,
  secUid: str,
  handle: str,
  nickname: str,
  bio: str,
  url: str,
  avatarUrl: str,
  avatars: v.looseObject({ large: str, medium: str, thumb: str }),
  verified: bool,
  privateAccount: bool,
  secret: bool,
  platformSeller: bool,
  openFavorite: bool,
  ftc: bool,
  isADVirtual: bool,
  downloadSetting: int,
  stats: v.looseObject({ followerCount: int, followingCount: int, likeCount: int, videoCount: int, friendCount: int, diggCount: int }),
});
const shortvideoFollowing = v.looseObject({
  ...dataBase,
  profile: v.looseObject({ id: str, secUid: str, handle: str, nickname: str, url: str, followingCount: int }),
  following: v.array(shortvideoFollowed),
  count: int,
  total: int,
  cursor: nstr, // "cursor is null on the last page"
  hasMore: bool,
});

// ---- 6. linkpage --------------------------------------------------------------------------------

const linkpageItem = v.looseObject({
  id: str,
  type: upperCase,
  title: nstr,
  subtitle: nstr,
  url: nstr,
  imageUrl: nstr,
  cta: nstr,
  clicks: int,
  order: int,
  price: nnum,
  currency: given,
  brandName: given,
  text: anyOrNull,
  blocks: anyOrNull,
});
export const linkpagePage = v.looseObject({
  username: str,
  name: str,
  displayName: str,
  tagline: nstr,
  location: nstr,
  bannerImageUrl: nstr,
  avatarUrl: str,
  influencerId: str,
  userId: str,
  createdAt: dateTime, // "date-time with offset"
  theme: v.looseObject({
    name: str,
    textColor: str,
    backgroundColor: str,
    itemStyle: str,
    itemsFont: str,
    isDark: bool,
    backgroundImageUrl: anyOrNull,
  }),
  socialLinks: v.array(v.looseObject({ platform: upperCase, url: str })),
  items: v.array(linkpageItem),
  itemCount: int,
  totalItems: int,
});
const linkpageData = v.looseObject({ ...dataBase, page: linkpagePage });

// ---- 7. shortvideo comments ---------------------------------------------------------------------

const commentImageVariant = v.looseObject({ url: given, urls: arr, uri: given, width: given, height: given });
export const shortvideoComment = v.looseObject({
  id: str,
  videoId: str,
  parentId: nstr,
  replyToId: nstr,
  text: str,
  createdAt: dateTime,
  language: str,
  likeCount: int,
  replyCount: int,
  author: v.looseObject({ id: given, secUid: given, handle: given, nickname: given, avatarUrl: given, url: given }),
  isLikedByCreator: bool,
  isPinnedByCreator: bool,
  isTranslatable: bool,
  allowsPhotoDownload: bool,
  labels: arr,
  images: v.array(v.looseObject({ original: commentImageVariant, crop: commentImageVariant })),
  sticker: anyOrNull,
  emojis: arr,
  shareInfo: v.looseObject({ url: given, title: given, description: given, acl: v.looseObject({ code: int, addToStoryCode: int }) }),
  topReply: anyOrNull,
});
const shortvideoComments = v.looseObject({
  ...dataBase,
  video: v.looseObject({ id: given, url: given, handle: given }),
  comments: v.array(shortvideoComment),
  count: int,
  total: int,
  cursor: nstr, // "null on the last page"
  hasMore: bool,
});

// ---- 8. professional ----------------------------------------------------------------------------

// Field names inside `content`: not shown.
const professionalPost = v.looseObject({ ...dataBase, content: obj });

// ---- 9. microblog-c -----------------------------------------------------------------------------

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
const microblogCUserPosts = v.looseObject({
  ...dataBase,
  user: microblogCAccount,
  posts: v.array(microblogCPost),
  count: int,
  // Op. 9 gives no type for `cursor`; like op. 1's it is read as a string, null on the last page.
  cursor: nstr,
  hasMore: bool,
});

// ---- 10, 12. microblog-b notes ------------------------------------------------------------------

const noteBase = {
  id: str,
  url: str,
  text: str,
  isLongForm: bool,
  lang: nstr,
  createdAtMs: int,
  createdAt: dateTime,
  counts: v.looseObject({ likes: int, reposts: int, replies: int, bookmarks: int, quotes: nint }),
  views: digits,
  media: arr,
  mentions: v.array(v.looseObject({ screenName: given, id: given, indices: v.tuple([int, int]) })),
  urls: v.array(v.looseObject({ url: given, expandedUrl: given, displayUrl: given })),
  hashtags: arr,
  cashtags: arr,
  card: v.nullable(v.looseObject({ legacy: anyOrNull, id: given })),
  communityNote: anyOrNull,
  article: v.nullable(
    v.looseObject({
      id: given,
      title: given,
      previewText: given,
      coverImage: v.looseObject({ url: given, width: given, height: given }),
      fullText: anyOrNull,
      raw: obj,
    }),
  ),
  isReply: bool,
  isQuote: bool,
  replyToNoteId: nstr,
  replyToUserId: nstr,
  quotedNoteId: nstr,
  quotedNote: anyOrNull,
  possiblySensitive: nbool,
  conversationControl: anyOrNull,
  editNoteIds: anyOrNull,
  place: anyOrNull,
};
// The author's fields are named like the profile's; their types are the profile table's.
const noteAuthor = v.looseObject({
  id: str,
  name: str,
  screenName: str,
  url: str,
  bio: nstr,
  avatarUrl: str,
  avatarUrlHd: str,
  followers: int,
  following: int,
  noteCount: int,
  verified: bool,
  verifiedType: nstr,
  protected: bool,
  profileImageShape: str,
  professionalCategory: nstr,
});
/** A note in `/user-notes`: no author, `isPinned` present. */
export const userNote = v.looseObject({ ...noteBase, isPinned: bool });
/** A note in `/note` (full form): with its author. */
export const threadNote = v.looseObject({ ...noteBase, author: noteAuthor });
const microblogBUserNotes = v.looseObject({ ...dataBase, notes: v.array(userNote), noteCount: int });
// The full (trim absent) form; the trim=true form omits replies and replyCount.
const microblogBNote = v.looseObject({ ...dataBase, focalNote: threadNote, replies: v.array(threadNote), replyCount: int });

// ---- 11. shortvideo live ------------------------------------------------------------------------

const liveStream = v.looseObject({
  quality: given,
  name: given,
  codec: given,
  isAudioOnly: given,
  resolution: v.pipe(v.string(), v.regex(/^\d+x\d+$/, 'Must be <width>x<height>')),
  width: given,
  height: given,
  bitrate: given,
  flvUrl: given,
  hlsUrl: given,
  dashUrl: anyOrNull,
  expiresAt: dateTime,
});
const liveDetails = v.looseObject({
  roomId: str,
  streamId: str,
  title: anyOrNull,
  shareUrl: given,
  coverUrl: given,
  startedAt: dateTime,
  viewerCount: int,
  totalViewers: int,
  newFollowers: int,
  // "`category`, `game` (nullable)": read as both nullable.
  category: anyOrNull,
  game: anyOrNull,
  broadcastType: str,
  isCoHosting: bool,
  battle: v.looseObject({
    id: given,
    startedAt: given,
    durationSeconds: given,
    isFinished: given,
    opponentUserId: given,
    scores: v.array(v.looseObject({ userId: given, score: given, isHost: given })),
  }),
  topGifters: v.array(
    v.looseObject({ userId: given, secUid: given, handle: given, nickname: given, avatarUrl: given, followerCount: given, gifterLevel: given, giftScore: given }),
  ),
  ageRestricted: bool,
  subscriberOnly: bool,
  isPaidEvent: bool,
  hasShop: bool,
  chatEnabled: bool,
  giftsEnabled: bool,
  shopProductCount: int,
  streams: v.array(liveStream),
});
const shortvideoLive = v.looseObject({
  ...dataBase,
  isLive: bool,
  user: v.looseObject({
    id: given,
    secUid: given,
    handle: given,
    nickname: given,
    bio: given,
    avatarUrl: given,
    verified: given,
    isPrivate: given,
    followerCount: given,
    followingCount: given,
    profileUrl: given,
    liveUrl: given,
  }),
  live: v.nullable(liveDetails),
  lastLive: nobj,
});

// ---- 13. shortvideo hashtag ---------------------------------------------------------------------

const hashtagVideo = v.looseObject({
  id: given,
  url: given,
  type: str,
  description: anyOrNull,
  createdAt: given,
  language: given,
  stats: v.looseObject({ playCount: given, likeCount: given, commentCount: given, shareCount: given, collectCount: given, repostCount: given }),
  author: v.looseObject({
    id: given,
    secUid: given,
    handle: given,
    nickname: given,
    bio: given,
    avatarUrl: given,
    verified: given,
    privateAccount: given,
    stats: v.looseObject({ followerCount: given, followingCount: given, likeCount: given, videoCount: given, friendCount: given, diggCount: given }),
  }),
  video: v.looseObject({
    duration: given,
    width: given,
    height: given,
    definition: given,
    format: given,
    codec: given,
    bitrate: given,
    quality: given,
    size: given,
    coverUrl: given,
    originCoverUrl: given,
    dynamicCoverUrl: given,
    playUrl: given,
    downloadUrl: given,
    volume: v.looseObject({ loudness: num, peak: num }),
    formats: v.array(
      v.looseObject({ gearName: given, qualityType: given, codec: given, format: given, bitrate: given, fps: given, width: given, height: given, size: given, url: given }),
    ),
    subtitles: arr,
  }),
  photo: anyOrNull,
  music: v.looseObject({
    id: given,
    title: given,
    url: given,
    authorName: given,
    album: given,
    duration: given,
    preciseDuration: given,
    shootDuration: given,
    original: given,
    isCopyrighted: given,
    isCommerceMusic: given,
    isUnlimitedMusic: given,
    isPrivate: given,
    coverUrl: given,
    playUrl: given,
    streaming: arr,
  }),
  hashtags: v.array(v.looseObject({ id: given, name: given, description: given })),
  mentions: given,
  effects: v.array(v.looseObject({ id: given, name: given })),
  stickerTexts: v.array(v.string()),
  location: anyOrNull,
  contentCategory: v.looseObject({ id: given, name: given }),
  anchors: given,
  warnings: given,
  playlistId: given,
  isAd: given,
  isPinned: given,
  isPrivate: given,
  isCommerce: given,
  aigcDescription: given,
  aigcLabelType: given,
  duetEnabled: given,
  stitchEnabled: given,
  shareEnabled: given,
  canRepost: given,
  commentStatus: int,
  suggestedSearches: given,
});
const shortvideoHashtag = v.looseObject({
  ...dataBase,
  hashtag: v.looseObject({
    id: given,
    name: given,
    url: given,
    description: given,
    coverUrl: given,
    profileImageUrl: given,
    announcement: given,
    videoCount: int,
    viewCount: int,
    isCommerce: bool,
  }),
  region: str,
  regionName: str,
  servedRegion: str,
  videos: v.array(hashtagVideo),
  mediaHeaders: v.looseObject({ Cookie: given, Referer: given }),
  cursor: nstr, // "cursor is null on the last page"
});

// ---- the map ------------------------------------------------------------------------------------

/** `data` of every operation, by operation id. */
export const dataSchemas: Record<OperationId, v.GenericSchema> = {
  'microblog-a-user-posts': microblogAUserPosts,
  'livestream-clip': livestreamClipData,
  'microblog-b-profile': microblogBProfileData,
  'citygame-daily': citygameDaily,
  'shortvideo-user-following': shortvideoFollowing,
  'linkpage-page': linkpageData,
  'shortvideo-video-comments': shortvideoComments,
  'professional-post': professionalPost,
  'microblog-c-user-posts': microblogCUserPosts,
  'microblog-b-user-notes': microblogBUserNotes,
  'shortvideo-user-live': shortvideoLive,
  'microblog-b-note': microblogBNote,
  'shortvideo-search-hashtag': shortvideoHashtag,
};

/** valibot issues as `path: message (received …)` lines, for failure messages. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  return issues
    .map((i) => {
      const sub = i.issues?.length ? ` [${describeIssues(i.issues).split('\n').join('; ')}]` : '';
      return `  ${v.getDotPath(i) ?? '(root)'}: ${i.message}${sub}`;
    })
    .join('\n');
}
