/**
 * What the spec (/work/shared/spec/service-spec.md, "Resources and their fields" and the operation
 * sections) says of each field of each operation's `data`: named and not nullable (`T`), nullable
 * (`N(evidence)`), and, where it shows one, the inner shape. Derived by hand from the spec, kept as
 * data so the tests need no Markdown parser: test/contract/nullable.test.ts walks every response
 * schema of the operation table against it, and checks it against the spec file when that file is
 * there (each `N` quotes the spec's words, and every nullable statement of the spec is quoted).
 *
 * Reading rules, where the spec's wording allows two readings (the stricter one is taken: a field
 * is nullable only where the spec plainly says so; a wider schema then needs a recorded deviation):
 * - A parenthesis after a list of names applies to the last name only, unless it is a plural type
 *   ("(strings)", "(strings, nullable)", "(integers)") or names a pair that is one quantity
 *   ("`width`, `height` (nullable)"). So in `thumbnailUrl`, `alt` (nullable) only `alt` is nullable,
 *   and in `category`, `game` (nullable) only `game`.
 * - A field the spec names with no shape ("`labels` | array", "`card`, `poll` | nullable") is `T` or
 *   `N` with no inner shape: its inner fields are the service's choice (shapes "not shown").
 * - Fields the spec does not name are not listed; they are the service's additions.
 */
export interface SpecField {
  nullable: boolean;
  /** For `N`: the spec's words that make the field nullable (a verbatim substring of the spec). */
  evidence?: string;
  /** The value is an array (of `shape` when given). */
  array?: boolean;
  /** The inner fields the spec names, when it shows them; a function for a recursive shape. */
  shape?: SpecShape | (() => SpecShape);
}
export type SpecShape = { readonly [field: string]: SpecField };

const T: SpecField = { nullable: false };
const N = (evidence: string, shape?: SpecShape | (() => SpecShape)): SpecField => ({ nullable: true, evidence, ...(shape ? { shape } : {}) });
const obj = (shape: SpecShape | (() => SpecShape)): SpecField => ({ nullable: false, shape });
const arrayOf = (shape: SpecShape): SpecField => ({ nullable: false, array: true, shape });
const names = (list: string, field: SpecField = T): SpecShape => Object.fromEntries(list.split(/\s+/).map((n) => [n, field]));

// ---- microblog-a (operation 1) -------------------------------------------------------------------

const A_ACCOUNT: SpecShape = {
  ...names('did handle displayName url avatarUrl isVerified labels createdAt'),
  pronouns: N('| `pronouns` | string, nullable |'),
};
const A_POST: SpecShape = {
  ...names('id uri cid url text createdAt indexedAt langs tags hashtags mentions links'),
  via: N('| `via` | nullable |'),
  author: obj(A_ACCOUNT),
  ...names('likeCount repostCount replyCount quoteCount bookmarkCount'),
  media: obj({
    images: arrayOf(names('url thumbnailUrl alt width height')),
    video: N('`video` (object or null)', {
      ...names('playlistUrl thumbnailUrl'),
      alt: N('`alt` (nullable)'),
      width: N('`width`, `height` (nullable)'),
      height: N('`width`, `height` (nullable)'),
    }),
    link: N('`link` (object or null)', names('url title description thumbnailUrl')),
  }),
  quote: N('| `quote` | nullable; the quoted post |'),
  embeddedRecord: N('| `embeddedRecord` | nullable; an embedded feed, list or starter pack |'),
  isReply: T,
  reply: N('| `reply` | nullable; reply context (parent, root and grandparent author) |'),
  isRepost: T,
  repostedBy: N('| `repostedBy`, `repostedAt` | nullable; who reposted it and when |'),
  repostedAt: N('| `repostedBy`, `repostedAt` | nullable; who reposted it and when |'),
  isPinned: T,
  threadPostIndex: N('| `threadPostIndex`, `threadPostCount` | nullable integers |'),
  threadPostCount: N('| `threadPostIndex`, `threadPostCount` | nullable integers |'),
  replySettings: N('| `replySettings` | nullable; reply restrictions |'),
  labels: T,
};

// ---- livestream (operation 2) ----------------------------------------------------------------------

const CLIP_CHANNEL = names('id username slug profilePicture');
const CLIP: SpecShape = {
  ...names('id title url privacy isMature durationSeconds views likes thumbnailUrl videoUrl createdAt startedAt vodStartsAt livestreamId'),
  vodId: N('| `vodId` | string, nullable |'),
  category: obj(names('id name slug parentCategory imageUrl')),
  channel: obj(CLIP_CHANNEL),
  creator: obj({ ...CLIP_CHANNEL, profilePicture: N('`profilePicture` may be null') }),
};

// ---- microblog-b (operations 3, 10, 12) --------------------------------------------------------------

const B_PROFILE: SpecShape = {
  ...names('id name screenName url bio location avatarUrl avatarUrlHd bannerUrl verified protected professional profileImageShape joined'),
  website: obj(names('url displayUrl expandedUrl')),
  stats: obj(names('followers following notes')),
  verifiedType: N('| `verifiedType`, `professionalCategory` | string, nullable |'),
  professionalCategory: N('| `verifiedType`, `professionalCategory` | string, nullable |'),
};
const B_NOTE: SpecShape = {
  ...names('id url text isLongForm createdAtMs createdAt views media hashtags cashtags isReply isQuote'),
  lang: N('| `lang` | string, nullable |'),
  counts: obj({ ...names('likes reposts replies bookmarks'), quotes: N('`quotes` (integer, nullable)') }),
  mentions: arrayOf(names('screenName id indices')),
  urls: arrayOf(names('url expandedUrl displayUrl')),
  card: N('| `card` | nullable object `{legacy (nullable), id}` |', { legacy: N('`{legacy (nullable), id}`'), id: T }),
  communityNote: N('| `communityNote` | nullable |'),
  article: N('| `article` | nullable object:', {
    ...names('id title previewText raw'),
    coverImage: obj(names('url width height')),
    fullText: N('`fullText` (nullable)'),
  }),
  replyToNoteId: N('| `replyToNoteId`, `replyToUserId`, `quotedNoteId` | string, nullable |'),
  replyToUserId: N('| `replyToNoteId`, `replyToUserId`, `quotedNoteId` | string, nullable |'),
  quotedNoteId: N('| `replyToNoteId`, `replyToUserId`, `quotedNoteId` | string, nullable |'),
  quotedNote: N('| `quotedNote` | nullable |'),
  possiblySensitive: N('| `possiblySensitive` | boolean, nullable |'),
  conversationControl: N('| `conversationControl`, `editNoteIds`, `place` | nullable |'),
  editNoteIds: N('| `conversationControl`, `editNoteIds`, `place` | nullable |'),
  place: N('| `conversationControl`, `editNoteIds`, `place` | nullable |'),
};
const B_USER_NOTE: SpecShape = { ...B_NOTE, isPinned: T };
const B_THREAD_NOTE: SpecShape = {
  ...B_NOTE,
  author: obj({
    ...names('id name screenName url avatarUrl avatarUrlHd followers following noteCount verified verifiedType protected profileImageShape professionalCategory'),
    bio: N('`bio` (nullable)'),
  }),
};

// ---- citygame (operation 4) ------------------------------------------------------------------------

const BULLETIN = names('date weekday weather headline tip');

// ---- shortvideo (operations 5, 7, 11, 13) ----------------------------------------------------------------

const SV_FOLLOWED: SpecShape = {
  ...names('id secUid handle nickname bio url avatarUrl verified privateAccount secret platformSeller openFavorite ftc isADVirtual downloadSetting'),
  avatars: obj(names('large medium thumb')),
  stats: obj(names('followerCount followingCount likeCount videoCount friendCount diggCount')),
};
const SV_COMMENT_IMAGE = names('url urls uri width height');
const SV_COMMENT: SpecShape = {
  ...names('id videoId text createdAt language likeCount replyCount isLikedByCreator isPinnedByCreator isTranslatable allowsPhotoDownload labels emojis'),
  parentId: N('| `parentId`, `replyToId` | string, nullable |'),
  replyToId: N('| `parentId`, `replyToId` | string, nullable |'),
  author: obj(names('id secUid handle nickname avatarUrl url')),
  images: arrayOf({ original: obj(SV_COMMENT_IMAGE), crop: obj(SV_COMMENT_IMAGE) }),
  sticker: N('| `sticker` | nullable |'),
  shareInfo: obj({ ...names('url title description'), acl: obj(names('code addToStoryCode')) }),
  topReply: N('| `topReply` | nullable |'),
};
const SV_LIVE: SpecShape = {
  ...names('roomId streamId shareUrl coverUrl startedAt viewerCount totalViewers newFollowers category broadcastType isCoHosting'),
  title: N('`title` (nullable)'),
  game: N('`category`, `game` (nullable)'),
  battle: obj({ ...names('id startedAt durationSeconds isFinished opponentUserId'), scores: arrayOf(names('userId score isHost')) }),
  topGifters: arrayOf(names('userId secUid handle nickname avatarUrl followerCount gifterLevel giftScore')),
  ...names('ageRestricted subscriberOnly isPaidEvent hasShop chatEnabled giftsEnabled shopProductCount'),
  streams: arrayOf({
    ...names('quality name codec isAudioOnly resolution width height bitrate flvUrl hlsUrl expiresAt'),
    dashUrl: N('`dashUrl` (nullable)'),
  }),
};
const SV_VIDEO: SpecShape = {
  ...names('id url type createdAt language mentions stickerTexts anchors warnings playlistId isAd isPinned isPrivate isCommerce'),
  ...names('aigcDescription aigcLabelType duetEnabled stitchEnabled shareEnabled canRepost commentStatus suggestedSearches'),
  description: N('`description` (nullable)'),
  stats: obj(names('playCount likeCount commentCount shareCount collectCount repostCount')),
  author: obj({
    ...names('id secUid handle nickname bio avatarUrl verified privateAccount'),
    stats: obj(names('followerCount followingCount likeCount videoCount friendCount diggCount')),
  }),
  video: obj({
    ...names('duration width height definition format codec bitrate quality size coverUrl originCoverUrl dynamicCoverUrl playUrl downloadUrl subtitles'),
    volume: obj(names('loudness peak')),
    formats: arrayOf(names('gearName qualityType codec format bitrate fps width height size url')),
  }),
  photo: N('`photo` (nullable; images of a photo post)'),
  music: obj(names('id title url authorName album duration preciseDuration shootDuration original isCopyrighted isCommerceMusic isUnlimitedMusic isPrivate coverUrl playUrl streaming')),
  hashtags: arrayOf(names('id name description')),
  effects: arrayOf(names('id name')),
  location: N('`location` (nullable)'),
  contentCategory: obj(names('id name')),
};

// ---- linkpage (operation 6) ------------------------------------------------------------------------

const LINK_ITEMS = '`title`, `subtitle`, `url`, `imageUrl`, `cta` (strings, nullable)';
const LINK_PAGE: SpecShape = {
  ...names('username name displayName avatarUrl influencerId userId createdAt itemCount totalItems'),
  tagline: N('| `tagline`, `location`, `bannerImageUrl` | string, nullable |'),
  location: N('| `tagline`, `location`, `bannerImageUrl` | string, nullable |'),
  bannerImageUrl: N('| `tagline`, `location`, `bannerImageUrl` | string, nullable |'),
  theme: obj({ ...names('name textColor backgroundColor itemStyle itemsFont isDark'), backgroundImageUrl: N('`backgroundImageUrl` (nullable)') }),
  socialLinks: arrayOf(names('platform url')),
  items: arrayOf({
    ...names('id type clicks order currency brandName'),
    ...names('title subtitle url imageUrl cta', N(LINK_ITEMS)),
    price: N('`price` (number, nullable)'),
    text: N('`text` (nullable)'),
    blocks: N('`blocks` (nullable)'),
  }),
};

// ---- microblog-c (operation 9) ---------------------------------------------------------------------

const C_ACCOUNT: SpecShape = {
  ...names('id handle displayName url avatarUrl headerUrl website websiteUrl bioMentions bioLinks emojis'),
  ...names('isVerified isPremium isPrivate isBot isGroup isTvAccount acceptsMessages followerCount followingCount postCount createdAt lastPostDate'),
  bio: N('| `bio`, `location` | string, nullable |'),
  location: N('| `bio`, `location` | string, nullable |'),
  isDiscoverable: N('| `isDiscoverable` | boolean, nullable |'),
};
const C_POST = (): SpecShape => ({
  ...names('id url createdAt replyCount repostCount likeCount hashtags links isReply isPinned isSensitive isSponsored visibility'),
  text: N('| `text` | string, nullable |'),
  editedAt: N('| `editedAt` | string, nullable |'),
  language: N('| `language` | string, nullable |'),
  author: obj(names('id handle displayName url avatarUrl isVerified isPremium followerCount')),
  media: arrayOf({
    ...names('id type url previewUrl width height'),
    durationSeconds: N('durationSeconds (nullable)'),
    altText: N('altText (nullable)'),
  }),
  card: N('| `card`, `poll` | nullable |'),
  poll: N('| `card`, `poll` | nullable |'),
  mentions: arrayOf(names('id handle url')),
  quotedPost: N('| `quotedPost` | nullable; same shape as a post |', C_POST),
  inReplyToPostId: N('| `inReplyToPostId`, `inReplyToAccountId` | string, nullable |'),
  inReplyToAccountId: N('| `inReplyToPostId`, `inReplyToAccountId` | string, nullable |'),
  spoilerText: N('| `spoilerText` | string, nullable |'),
  repostedBy: N('| `repostedBy`, `repostedAt` | nullable; set when the item is a repost of an original post |'),
  repostedAt: N('| `repostedBy`, `repostedAt` | nullable; set when the item is a repost of an original post |'),
});

// ---- the operations' `data` (without fetchedAt, which the pipeline adds) ---------------------------

/** By the spec's operation number. */
export const SPEC_DATA: Record<number, SpecShape> = {
  1: {
    user: N('`data.user` itself is nullable.', A_ACCOUNT),
    posts: arrayOf(A_POST),
    count: T,
    cursor: N('Response `cursor` is a string or null'),
    hasMore: T,
  },
  2: { clip: obj(CLIP) },
  3: { profile: obj(B_PROFILE) },
  4: BULLETIN,
  5: {
    profile: obj(names('id secUid handle nickname url followingCount')),
    following: arrayOf(SV_FOLLOWED),
    ...names('count total hasMore'),
    cursor: N('`cursor` is null on the last page. `total` is the total number followed.'),
  },
  6: { page: obj(LINK_PAGE) },
  7: {
    video: obj(names('id url handle')),
    comments: arrayOf(SV_COMMENT),
    ...names('count total hasMore'),
    cursor: N('`cursor` is the value returned by the previous page; it is null on the last page.'),
  },
  // "Exact field names and types inside `content`: not shown."
  8: { content: T },
  // The spec gives op. 9's cursor no type and does not say it may be null.
  9: { user: obj(C_ACCOUNT), posts: arrayOf(C_POST()), ...names('count cursor hasMore') },
  10: { notes: arrayOf(B_USER_NOTE), noteCount: T },
  11: {
    isLive: T,
    user: obj(names('id secUid handle nickname bio avatarUrl verified isPrivate followerCount followingCount profileUrl liveUrl')),
    live: N('| `live` | object or null (null when not live) |', SV_LIVE),
    lastLive: N('| `lastLive` | object or null; the most recent live as the source reports it |'),
  },
  12: { focalNote: obj(B_THREAD_NOTE), replies: arrayOf(B_THREAD_NOTE), replyCount: T },
  13: {
    hashtag: obj(names('id name url description coverUrl profileImageUrl announcement videoCount viewCount isCommerce')),
    ...names('region regionName servedRegion'),
    videos: arrayOf(SV_VIDEO),
    mediaHeaders: obj(names('Cookie Referer')),
    cursor: N('- `cursor` is null on the last page.'),
  },
};

/**
 * Spec sentences about null that make no field nullable (the convention itself) or restate what a
 * quoted table row already says; every other nullable statement of the spec is quoted by an `N`.
 */
export const ALSO_SAID = [
  'Field types follow JSON. `nullable` means the value may be null.',
  '- Not live: `isLive` is false, `live` is null, and `lastLive` describes the most recent live, or is null when there is none.',
];
