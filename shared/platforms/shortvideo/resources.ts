import * as v from 'valibot';
import { NO_VALUE, type RequiredValues, anyOrNull, boolean, booleanOrNull, dateTime, dateTimeOrNull, deviation, digits, given, integer, integerOrNull, number, numberOrNull, objectOrNull, omitted, required, string, stringOrNull } from '../../scrape/resource';

/**
 * shortvideo: the spec's resources as valibot schemas (see shared/scrape/resource.ts for the
 * conventions). The operation table names each operation's `data` schema from here; mappers return
 * their output types, and the contract tests validate every response against them.
 */
// ---- 5. following ---------------------------------------------------------------------------------

const NO_PICTURE = `${NO_VALUE}: an account without a picture`;
export const FollowedAccount = v.object({
  id: digits,
  secUid: omitted(string),
  handle: string,
  nickname: omitted(string),
  bio: string,
  url: string,
  avatarUrl: deviation(stringOrNull, NO_PICTURE),
  avatars: v.object({ large: deviation(stringOrNull, NO_PICTURE), medium: deviation(stringOrNull, NO_PICTURE), thumb: deviation(stringOrNull, NO_PICTURE) }),
  verified: omitted(boolean),
  privateAccount: omitted(boolean),
  secret: omitted(boolean),
  platformSeller: omitted(boolean),
  openFavorite: omitted(boolean),
  ftc: omitted(boolean),
  isADVirtual: omitted(boolean),
  downloadSetting: omitted(integer),
  stats: v.object({ followerCount: omitted(integer), followingCount: omitted(integer), likeCount: omitted(integer), videoCount: omitted(integer), friendCount: omitted(integer), diggCount: omitted(integer) }),
});
export type FollowedAccount = v.InferOutput<typeof FollowedAccount>;
export const FollowingData = v.object({
  profile: v.object({ id: digits, secUid: string, handle: string, nickname: omitted(string), url: string, followingCount: omitted(integer) }),
  following: v.array(FollowedAccount),
  count: integer,
  total: omitted(integer),
  cursor: stringOrNull, // "cursor is null on the last page"
  hasMore: boolean,
});
export type FollowingData = v.InferOutput<typeof FollowingData>;

// ---- 7. comments ---------------------------------------------------------------------------------

/** A field the spec names without a type, null when the upstream leaves it out. */
const orNull = <S extends v.GenericSchema>(s: S, why = NO_VALUE) => deviation(v.nullable(s), why);

/** One rendition of a comment image: the first mirror, every mirror, the storage key, the size. */
const CommentImageVariant = v.object({ url: string, urls: v.array(string), uri: omitted(string), width: omitted(integer), height: omitted(integer) });
export const CommentImage = v.object({ original: CommentImageVariant, crop: omitted(CommentImageVariant) });
/** Shape chosen: the platform's label as shown ({text: "Creator", type: 1}, …). */
export const CommentLabel = v.object({ text: string, type: integerOrNull });
/** Shape chosen: a sticker comment's sticker (absent from logged-out samples; read from `sticker`). */
export const CommentSticker = v.object({ id: stringOrNull, url: stringOrNull, animatedUrl: stringOrNull, width: integerOrNull, height: integerOrNull });
export const CommentAuthor = v.object({
  id: digits,
  secUid: omitted(string),
  handle: string,
  nickname: omitted(string),
  avatarUrl: orNull(string, `${NO_VALUE}: an account without a picture`),
  url: string,
});
const commentEntries = {
  id: digits,
  videoId: digits,
  parentId: stringOrNull,
  replyToId: stringOrNull,
  /** Mentions stay plain text. */
  text: string,
  createdAt: omitted(dateTime),
  /** The upstream's language code ("un" when it could not tell). */
  language: omitted(string),
  likeCount: omitted(integer),
  replyCount: omitted(integer),
  author: CommentAuthor,
  isLikedByCreator: omitted(boolean),
  isPinnedByCreator: omitted(boolean),
  isTranslatable: omitted(boolean),
  allowsPhotoDownload: omitted(boolean),
  labels: v.array(CommentLabel),
  images: v.array(CommentImage),
  sticker: v.nullable(CommentSticker),
  /** Shape chosen: the distinct emoji of `text`, in order of first appearance. */
  emojis: v.array(string),
  shareInfo: v.object({
    url: string,
    title: string,
    description: string,
    acl: v.object({
      code: omitted(integer),
      addToStoryCode: orNull(
        integer,
        "the web API does not carry it: a web comment's share_info.acl holds only `code` and `extra` (a JSON string such as {\"is_share_handler_failed\":\"1\"}), and no sample, client model or research note of the web API shows an add-to-story code; sharing to a story is an app action",
      ),
    }),
  }),
};
/** Shape chosen for `topReply`: the first reply the upstream shows, as a comment without its own topReply. */
export const CommentReply = v.object(commentEntries);
export const Comment = v.object({ ...commentEntries, topReply: v.nullable(CommentReply) });
export type Comment = v.InferOutput<typeof Comment>;
export type CommentReply = v.InferOutput<typeof CommentReply>;

export const CommentsData = v.object({
  video: v.object({ id: digits, url: string, handle: string }),
  comments: v.array(Comment),
  count: integer,
  total: omitted(integer),
  cursor: stringOrNull, // "null on the last page"
  hasMore: boolean,
});
export type CommentsData = v.InferOutput<typeof CommentsData>;

// ---- 11. live status --------------------------------------------------------------------------------

/** One quality of the stream (FLV and HLS links, and DASH where offered). */
export const LiveStream = v.object({
  /** The upstream's key: origin, uhd_60, hd_60, hd, sd, ld, ao (audio only). */
  quality: string,
  /** The name the player shows ("Original", "1080p60", "720p", … "Audio only"). */
  name: string,
  codec: orNull(string, `${NO_VALUE}: a quality whose sdk_params (a JSON string) are missing or name no VCodec`),
  isAudioOnly: boolean,
  resolution: orNull(v.pipe(v.string(), v.regex(/^\d+x\d+$/, 'Must be <width>x<height>')), `${NO_VALUE}: an audio-only stream has no picture`),
  width: orNull(integer, `${NO_VALUE}: an audio-only stream has no picture`),
  height: orNull(integer, `${NO_VALUE}: an audio-only stream has no picture`),
  bitrate: orNull(integer, `${NO_VALUE}: a quality whose sdk_params (a JSON string) are missing or carry no vbitrate`),
  flvUrl: orNull(string, `${NO_VALUE}: a quality offered in HLS only`),
  hlsUrl: orNull(string, `${NO_VALUE}: a quality offered in FLV only`),
  dashUrl: stringOrNull,
  expiresAt: orNull(dateTime, `${NO_VALUE}: a URL without an expire parameter`),
});
export const LiveBattle = v.object({
  id: string,
  startedAt: orNull(dateTime, `${NO_VALUE}: a battle being set up, which has not started (battle_settings.start_time_ms and start_time are 0)`),
  durationSeconds: omitted(integer),
  isFinished: boolean,
  opponentUserId: orNull(string, `${NO_VALUE}: a battle whose opponent is not known yet (no rival_anchor_id in link_mic and no other account in battle_scores)`),
  scores: v.array(v.object({ userId: string, score: integer, isHost: omitted(boolean, 'null when the room does not name its host (owner.id_str), so no score can be told to be the host\'s') })),
});
export const TopGifter = v.object({
  userId: string,
  secUid: omitted(string),
  handle: omitted(string),
  nickname: omitted(string),
  avatarUrl: orNull(string, `${NO_VALUE}: an account without a picture`),
  followerCount: omitted(integer),
  gifterLevel: omitted(integer),
  giftScore: omitted(integer),
});
export const LiveDetails = v.object({
  roomId: digits,
  streamId: orNull(string, `${NO_VALUE}: an age-restricted room hides its stream`),
  title: stringOrNull,
  shareUrl: string,
  coverUrl: orNull(string, `${NO_VALUE}: a room without a cover picture (neither room.cover nor the lookup's coverUrl has one)`),
  startedAt: omitted(dateTime),
  viewerCount: omitted(integer),
  totalViewers: omitted(integer),
  newFollowers: orNull(integer, `${NO_VALUE}: an age-restricted room, whose room info (with its stats) the upstream withholds from logged-out readers`),
  category: orNull(string, `${NO_VALUE}: a live without a topic (the room has no hashtag)`),
  game: stringOrNull,
  /** camera, screen (screen share), software (streaming software), audio. */
  broadcastType: omitted(v.picklist(['camera', 'screen', 'software', 'audio'])),
  isCoHosting: boolean,
  battle: orNull(LiveBattle, `${NO_VALUE}: no battle is going on`),
  topGifters: v.array(TopGifter),
  ageRestricted: boolean,
  subscriberOnly: omitted(boolean),
  isPaidEvent: omitted(boolean),
  hasShop: omitted(boolean),
  chatEnabled: omitted(boolean),
  giftsEnabled: omitted(boolean),
  shopProductCount: orNull(integer, `${NO_VALUE}: an age-restricted room, whose room info (with its commerce_info) the upstream withholds from logged-out readers`),
  streams: v.array(LiveStream),
});
/** Shape chosen: the most recent live as the room lookup reports it. */
export const LastLive = v.object({ roomId: stringOrNull, title: stringOrNull, startedAt: dateTime, endedAt: dateTimeOrNull, durationSeconds: integerOrNull, totalViewers: integerOrNull });
/** The account fields the live user and a video's author share, as the spec lists them. */
const ACCOUNT = {
  id: digits,
  secUid: omitted(string),
  handle: string,
  nickname: omitted(string),
  bio: string,
  avatarUrl: orNull(string, `${NO_VALUE}: an account without a picture`),
  verified: omitted(boolean),
};
export const LiveUser = v.object({
  ...ACCOUNT,
  isPrivate: omitted(boolean),
  followerCount: omitted(integer),
  followingCount: omitted(integer),
  profileUrl: string,
  liveUrl: string,
});
export const LiveData = v.object({
  isLive: boolean,
  user: LiveUser,
  live: v.nullable(LiveDetails),
  lastLive: v.nullable(LastLive),
});
export type LiveData = v.InferOutput<typeof LiveData>;
export type LiveDetails = v.InferOutput<typeof LiveDetails>;

// ---- 13. hashtag videos ----------------------------------------------------------------------------

const countOrNull = omitted(integer);
const counts = <K extends string>(...keys: K[]) => v.object(Object.fromEntries(keys.map((k) => [k, countOrNull])) as Record<K, typeof countOrNull>);

/** One entry of `bitrateInfo`; an entry without its name, quality, codec, bitrate, size or URL is left out. */
export const VideoFormat = v.object({
  gearName: string,
  qualityType: integer,
  codec: string,
  format: string,
  bitrate: integer,
  fps: orNull(number, `${NO_VALUE}: a format whose bitrateInfo entry carries no BitrateFPS (the hashtag and search item lists mostly leave it out)`),
  width: integer,
  height: integer,
  size: integer,
  url: string,
});
/** Shape chosen: one caption track. */
export const Subtitle = v.object({ language: stringOrNull, languageId: stringOrNull, format: stringOrNull, source: stringOrNull, version: stringOrNull, size: integerOrNull, url: string, expiresAt: dateTimeOrNull });
export const VideoMedia = v.object({
  duration: omitted(integer),
  width: orNull(integer, `${NO_VALUE}: a photo post (its video object describes no video)`),
  height: orNull(integer, `${NO_VALUE}: a photo post (its video object describes no video)`),
  definition: orNull(string, `${NO_VALUE}: a photo post (its video object describes no video), or a video whose definition is empty`),
  format: orNull(string, `${NO_VALUE}: a photo post (its video object describes no video), or a video whose container format is empty`),
  codec: orNull(string, `${NO_VALUE}: a photo post (its video object describes no video), or a video whose codecType is empty`),
  bitrate: orNull(integer, `${NO_VALUE}: a photo post (its video object describes no video), or a video without a bitrate`),
  quality: orNull(string, `${NO_VALUE}: a photo post (its video object describes no video), or a video whose videoQuality is empty`),
  size: orNull(integer, `${NO_VALUE}: a photo post (its video object describes no video), or a video without a file size`),
  coverUrl: orNull(string, `${NO_VALUE}: a video without a cover picture`),
  originCoverUrl: orNull(string, `${NO_VALUE}: a video without an original-size cover picture`),
  dynamicCoverUrl: orNull(string, `${NO_VALUE}: a video without an animated cover (photo posts have none)`),
  playUrl: orNull(string, `${NO_VALUE}: photo posts have no video stream`),
  downloadUrl: orNull(string, `${NO_VALUE}: photo posts, and videos whose owner disabled downloads`),
  volume: orNull(v.object({ loudness: number, peak: number }), `${NO_VALUE}: a video whose volumeInfo lacks Loudness or Peak (photo posts have none)`),
  formats: v.array(VideoFormat),
  subtitles: v.array(Subtitle),
});
/** Shape chosen: the images of a photo post. */
export const PhotoPost = v.object({
  title: stringOrNull,
  coverUrl: stringOrNull,
  images: v.array(v.object({ url: string, urls: v.array(string), width: integerOrNull, height: integerOrNull })),
});
/** Shape chosen for `streaming`: the external music-service links of the track. */
export const MusicStreaming = v.object({ platform: integer, songId: stringOrNull });
const WEB_SOUND = 'the web item lists leave it out of most sounds (it is filled for commercial-library sounds)';
export const Music = v.object({
  id: string,
  title: orNull(string, `${NO_VALUE}: a sound whose title is empty`),
  /** The sound's page, built from its title and id. */
  url: string,
  authorName: orNull(string, `${NO_VALUE}: a sound whose author name is empty`),
  album: orNull(string, `${NO_VALUE}: a sound outside any album (the upstream sends an empty album)`),
  duration: orNull(integer, `${NO_VALUE}: a sound without a duration`),
  preciseDuration: orNull(number, `${NO_VALUE}: ${WEB_SOUND}`),
  shootDuration: orNull(integer, `${NO_VALUE}: ${WEB_SOUND}`),
  original: orNull(boolean, `${NO_VALUE}: a sound whose item does not say whether it is original`),
  isCopyrighted: orNull(boolean, `${NO_VALUE}: a sound whose item does not say whether it is copyrighted`),
  isCommerceMusic: orNull(boolean, `${NO_VALUE}: ${WEB_SOUND}`),
  isUnlimitedMusic: orNull(boolean, `${NO_VALUE}: ${WEB_SOUND}`),
  isPrivate: orNull(boolean, `${NO_VALUE}: a sound whose item does not say whether it is private`),
  coverUrl: orNull(string, `${NO_VALUE}: a sound without a cover picture`),
  playUrl: orNull(string, `${NO_VALUE}: a sound whose audio the upstream does not offer (removed or restricted sounds)`),
  streaming: v.array(MusicStreaming),
});
export const VideoAuthor = v.object({
  ...ACCOUNT,
  privateAccount: omitted(boolean),
  stats: counts('followerCount', 'followingCount', 'likeCount', 'videoCount', 'friendCount', 'diggCount'),
});
/** Shape chosen: an account mentioned in the description. */
export const Mention = v.object({ handle: string, userId: stringOrNull, secUid: stringOrNull });
/** Shape chosen: a place tag. */
export const Location = v.object({ id: string, name: string, address: stringOrNull, city: stringOrNull, province: stringOrNull, country: stringOrNull, category: stringOrNull });
/** Shape chosen: a link shown under the video (effect, CapCut template, product…). */
export const Anchor = v.object({ id: stringOrNull, type: integerOrNull, keyword: stringOrNull, description: stringOrNull, url: stringOrNull, iconUrl: stringOrNull });
/** Shape chosen: a content warning shown on the video. */
export const Warning = v.object({ type: stringOrNull, text: string, url: stringOrNull });
export const HashtagVideo = v.object({
  id: digits,
  url: string,
  /** "video" or "photo". */
  type: v.picklist(['video', 'photo']),
  description: stringOrNull,
  createdAt: omitted(dateTime),
  /** The description's language code ("un" when the upstream could not tell). */
  language: omitted(string),
  stats: counts('playCount', 'likeCount', 'commentCount', 'shareCount', 'collectCount', 'repostCount'),
  author: VideoAuthor,
  video: VideoMedia,
  photo: v.nullable(PhotoPost),
  music: orNull(Music, `${NO_VALUE}: a video without a sound`),
  hashtags: v.array(
    v.object({
      id: orNull(string, `${NO_VALUE}: a hashtag of the description that the upstream lists only in textExtra, without a hashtagId (it links no challenge)`),
      name: string,
      description: string,
    }),
  ),
  mentions: v.array(Mention),
  effects: v.array(v.object({ id: string, name: string })),
  stickerTexts: v.array(string),
  location: v.nullable(Location),
  contentCategory: v.object({
    id: orNull(integer, `${NO_VALUE}: an item without CategoryType`),
    name: orNull(string, 'the upstream gives only a numeric category (CategoryType) for most videos; a name only where it adds diversificationLabels'),
  }),
  anchors: v.array(Anchor),
  warnings: v.array(Warning),
  playlistId: orNull(string, `${NO_VALUE}: a video outside any playlist`),
  isAd: omitted(boolean),
  isPinned: omitted(boolean),
  isPrivate: omitted(boolean),
  isCommerce: omitted(boolean),
  aigcDescription: string,
  aigcLabelType: orNull(integer, `${NO_VALUE}: an item without an AI-generated-content label (the upstream sends aigcLabelType only for labelled items)`),
  duetEnabled: omitted(boolean),
  stitchEnabled: omitted(boolean),
  shareEnabled: omitted(boolean),
  canRepost: omitted(boolean),
  commentStatus: omitted(integer),
  /** Shape chosen: the searches the platform suggests under the video. */
  suggestedSearches: v.array(string),
});
export type HashtagVideo = v.InferOutput<typeof HashtagVideo>;

export const HashtagInfo = v.object({
  id: digits,
  name: string,
  url: string,
  description: string,
  coverUrl: orNull(string, `${NO_VALUE}: a hashtag without a cover`),
  profileImageUrl: orNull(string, `${NO_VALUE}: a hashtag without a picture`),
  /** Shape chosen: {title, body} of the hashtag's announcement. */
  announcement: orNull(v.object({ title: string, body: string }), `${NO_VALUE}: most hashtags have no announcement`),
  videoCount: omitted(integer),
  viewCount: omitted(integer),
  isCommerce: omitted(boolean),
});
export type HashtagInfo = v.InferOutput<typeof HashtagInfo>;

export const HashtagData = v.object({
  hashtag: HashtagInfo,
  region: string,
  regionName: string,
  servedRegion: string,
  videos: v.array(HashtagVideo),
  mediaHeaders: v.object({ Cookie: orNull(string, `${NO_VALUE}: the upstream set no tt_chain_token`), Referer: string }),
  cursor: stringOrNull, // "cursor is null on the last page"
});
export type HashtagData = v.InferOutput<typeof HashtagData>;

// ---- required values (issue 31) --------------------------------------------------------------------

const NOTE = 'research note upstream-shortvideo.md';
/**
 * Every answer of the web API says how it went in its status code (0 = OK; statusCode or
 * status_code): an object without one is not the API answering as itself (an interstitial, a changed
 * shape), so it is EXTRACTION_FAILED naming it, never read as an empty success. Research note §0.5.
 */
const ANSWER = required('answer', '(every answer of the web API)', { '(its status code)': 'statusCode | status_code' }, `${NOTE} §0.5 (status codes)`);
const ACCOUNT_ID = (at: string) => ({ id: `${at}id`, handle: `${at}uniqueId`, url: `${at}uniqueId` });
/**
 * Operation 5: the queried profile (its id, handle, and secUid: the list is asked for by secUid) and
 * each followed account (id and handle: its URL is built from the handle). Research note §A.
 */
export const FOLLOWING_REQUIRED: readonly RequiredValues[] = [
  ANSWER,
  required('profile', 'profile', { id: 'userInfo.user.id', handle: 'userInfo.user.uniqueId', url: 'userInfo.user.uniqueId', '(the list is asked by) secUid': 'userInfo.user.secUid' }, `${NOTE} §A.1 (user-detail) and §A.2 (the list by secUid)`),
  required('followed account', 'following[]', ACCOUNT_ID('user.'), `${NOTE} §A.2 field table`),
];
/**
 * Operation 7: the video (the platform's own item detail: its id, which must be the one asked for,
 * and its author's handle, which its URL is built from) and each comment (its cid, and its author's
 * uid and unique_id). A comment's aweme_id, when it cannot be read, is the video asked for. Left
 * out and counted: a comment image without a URL, a top reply lacking its own. Research note §B.
 */
export const COMMENTS_REQUIRED: readonly RequiredValues[] = [
  ANSWER,
  required('video', 'video', { id: 'id', handle: 'author.uniqueId', url: 'author.uniqueId' }, `${NOTE} §B (the video page's itemStruct)`),
  required('comment', 'comments[]', { id: 'cid', 'author.id': 'user.uid', 'author.handle': 'user.unique_id', 'author.url': 'user.unique_id' }, `${NOTE} §B field table`),
];
/**
 * Operation 11: the account (id and handle: its URLs are built from it) and, when it is live, the
 * room's id. Left out and counted: a top gifter without its id, a battle without its id. Research note §C.
 */
export const LIVE_REQUIRED: readonly RequiredValues[] = [
  ANSWER,
  required('live user', 'user', { id: 'id', handle: 'uniqueId', profileUrl: 'uniqueId', liveUrl: 'uniqueId' }, `${NOTE} §C.1 (api-live user)`),
  required('live', 'live', { roomId: 'id_str' }, `${NOTE} §C field table (live.roomId: id_str / user.roomId)`),
];
/**
 * Operation 13: the hashtag (its id: the videos are asked for by it) and each video (its id, and its
 * author's id and uniqueId: the URL is built from the handle). Research note §D.
 */
export const HASHTAG_REQUIRED: readonly RequiredValues[] = [
  ANSWER,
  required('hashtag', 'hashtag', { '(the videos are asked by) id': 'id' }, `${NOTE} §D.1 (challenge/detail) and §D.2 (item_list by challengeID)`),
  required('video', 'videos[]', { id: 'id', 'author.id': 'author.id', 'author.handle': 'author.uniqueId', url: 'author.uniqueId' }, `${NOTE} §D itemStruct field table`),
];
