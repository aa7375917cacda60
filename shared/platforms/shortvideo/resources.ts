import * as v from 'valibot';
import { anyOrNull, bool, dateTime, deviation, digits, given, int, nbool, ndateTime, nint, nnum, nobj, nstr, num, str } from '../../scrape/resource';

/**
 * shortvideo: the spec's resources as valibot schemas (see shared/scrape/resource.ts for the
 * conventions). The operation table names each operation's `data` schema from here; mappers return
 * their output types, and the contract tests validate every response against them.
 */
// ---- 5. following ---------------------------------------------------------------------------------

const NO_PICTURE = 'null where the upstream has no value to give, rather than an invented one: an account without a picture';
export const FollowedAccount = v.object({
  id: digits,
  secUid: str,
  handle: str,
  nickname: str,
  bio: str,
  url: str,
  avatarUrl: deviation(nstr, NO_PICTURE),
  avatars: v.object({ large: deviation(nstr, NO_PICTURE), medium: deviation(nstr, NO_PICTURE), thumb: deviation(nstr, NO_PICTURE) }),
  verified: bool,
  privateAccount: bool,
  secret: bool,
  platformSeller: bool,
  openFavorite: bool,
  ftc: bool,
  isADVirtual: bool,
  downloadSetting: int,
  stats: v.object({ followerCount: int, followingCount: int, likeCount: int, videoCount: int, friendCount: int, diggCount: int }),
});
export type FollowedAccount = v.InferOutput<typeof FollowedAccount>;
export const FollowingData = v.object({
  profile: v.object({ id: digits, secUid: str, handle: str, nickname: str, url: str, followingCount: int }),
  following: v.array(FollowedAccount),
  count: int,
  total: int,
  cursor: nstr, // "cursor is null on the last page"
  hasMore: bool,
});
export type FollowingData = v.InferOutput<typeof FollowingData>;

// ---- 7. comments ---------------------------------------------------------------------------------

const NO_VALUE = 'null where the upstream has no value to give, rather than an invented one';
/** A field the spec names without a type, null when the upstream leaves it out. */
const orNull = <S extends v.GenericSchema>(s: S, why = NO_VALUE) => deviation(v.nullable(s), why);

/** One rendition of a comment image: the first mirror, every mirror, the storage key, the size. */
const CommentImageVariant = v.object({ url: str, urls: v.array(str), uri: str, width: int, height: int });
export const CommentImage = v.object({ original: CommentImageVariant, crop: CommentImageVariant });
/** Shape chosen: the platform's label as shown ({text: "Creator", type: 1}, …). */
export const CommentLabel = v.object({ text: str, type: int });
/** Shape chosen: a sticker comment's sticker (absent from logged-out samples; read from `sticker`). */
export const CommentSticker = v.object({ id: nstr, url: nstr, animatedUrl: nstr, width: nint, height: nint });
export const CommentAuthor = v.object({
  id: digits,
  secUid: str,
  handle: str,
  nickname: str,
  avatarUrl: orNull(str, `${NO_VALUE}: an account without a picture`),
  url: str,
});
const commentEntries = {
  id: digits,
  videoId: digits,
  parentId: nstr,
  replyToId: nstr,
  /** Mentions stay plain text. */
  text: str,
  createdAt: dateTime,
  /** The upstream's language code; "un" when it could not tell. */
  language: str,
  likeCount: int,
  replyCount: int,
  author: CommentAuthor,
  isLikedByCreator: bool,
  isPinnedByCreator: bool,
  isTranslatable: bool,
  allowsPhotoDownload: bool,
  labels: v.array(CommentLabel),
  images: v.array(CommentImage),
  sticker: v.nullable(CommentSticker),
  /** Shape chosen: the distinct emoji of `text`, in order of first appearance. */
  emojis: v.array(str),
  shareInfo: v.object({
    url: str,
    title: str,
    description: str,
    acl: v.object({
      code: int,
      addToStoryCode: orNull(
        int,
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
  video: v.object({ id: digits, url: str, handle: str }),
  comments: v.array(Comment),
  count: int,
  total: int,
  cursor: nstr, // "null on the last page"
  hasMore: bool,
});
export type CommentsData = v.InferOutput<typeof CommentsData>;

// ---- 11. live status --------------------------------------------------------------------------------

/** One quality of the stream (FLV and HLS links, and DASH where offered). */
export const LiveStream = v.object({
  /** The upstream's key: origin, uhd_60, hd_60, hd, sd, ld, ao (audio only). */
  quality: str,
  /** The name the player shows ("Original", "1080p60", "720p", … "Audio only"). */
  name: str,
  codec: orNull(str, `${NO_VALUE}: a quality whose sdk_params (a JSON string) are missing or name no VCodec`),
  isAudioOnly: bool,
  resolution: orNull(v.pipe(v.string(), v.regex(/^\d+x\d+$/, 'Must be <width>x<height>')), `${NO_VALUE}: an audio-only stream has no picture`),
  width: orNull(int, `${NO_VALUE}: an audio-only stream has no picture`),
  height: orNull(int, `${NO_VALUE}: an audio-only stream has no picture`),
  bitrate: orNull(int, `${NO_VALUE}: a quality whose sdk_params (a JSON string) are missing or carry no vbitrate`),
  flvUrl: orNull(str, `${NO_VALUE}: a quality offered in HLS only`),
  hlsUrl: orNull(str, `${NO_VALUE}: a quality offered in FLV only`),
  dashUrl: nstr,
  expiresAt: orNull(dateTime, `${NO_VALUE}: a URL without an expire parameter`),
});
export const LiveBattle = v.object({
  id: str,
  startedAt: orNull(dateTime, `${NO_VALUE}: a battle being set up, which has not started (battle_settings.start_time_ms and start_time are 0)`),
  durationSeconds: int,
  isFinished: bool,
  opponentUserId: orNull(str, `${NO_VALUE}: a battle whose opponent is not known yet (no rival_anchor_id in link_mic and no other account in battle_scores)`),
  scores: v.array(v.object({ userId: str, score: int, isHost: bool })),
});
export const TopGifter = v.object({
  userId: str,
  secUid: str,
  handle: str,
  nickname: str,
  avatarUrl: orNull(str, `${NO_VALUE}: an account without a picture`),
  followerCount: int,
  gifterLevel: int,
  giftScore: int,
});
export const LiveDetails = v.object({
  roomId: digits,
  streamId: orNull(str, `${NO_VALUE}: an age-restricted room hides its stream`),
  title: nstr,
  shareUrl: str,
  coverUrl: orNull(str, `${NO_VALUE}: a room without a cover picture (neither room.cover nor the lookup's coverUrl has one)`),
  startedAt: dateTime,
  viewerCount: int,
  totalViewers: int,
  newFollowers: orNull(int, `${NO_VALUE}: an age-restricted room, whose room info (with its stats) the upstream withholds from logged-out readers`),
  category: orNull(str, `${NO_VALUE}: a live without a topic (the room has no hashtag)`),
  game: nstr,
  /** camera, screen (screen share), software (streaming software), audio. */
  broadcastType: v.picklist(['camera', 'screen', 'software', 'audio']),
  isCoHosting: bool,
  battle: orNull(LiveBattle, `${NO_VALUE}: no battle is going on`),
  topGifters: v.array(TopGifter),
  ageRestricted: bool,
  subscriberOnly: bool,
  isPaidEvent: bool,
  hasShop: bool,
  chatEnabled: bool,
  giftsEnabled: bool,
  shopProductCount: orNull(int, `${NO_VALUE}: an age-restricted room, whose room info (with its commerce_info) the upstream withholds from logged-out readers`),
  streams: v.array(LiveStream),
});
/** Shape chosen: the most recent live as the room lookup reports it. */
export const LastLive = v.object({ roomId: nstr, title: nstr, startedAt: dateTime, endedAt: ndateTime, durationSeconds: nint, totalViewers: nint });
/** The account fields the live user and a video's author share, as the spec lists them. */
const ACCOUNT = {
  id: digits,
  secUid: str,
  handle: str,
  nickname: str,
  bio: str,
  avatarUrl: orNull(str, `${NO_VALUE}: an account without a picture`),
  verified: bool,
};
export const LiveUser = v.object({
  ...ACCOUNT,
  isPrivate: bool,
  followerCount: int,
  followingCount: int,
  profileUrl: str,
  liveUrl: str,
});
export const LiveData = v.object({
  isLive: bool,
  user: LiveUser,
  live: v.nullable(LiveDetails),
  lastLive: v.nullable(LastLive),
});
export type LiveData = v.InferOutput<typeof LiveData>;
export type LiveDetails = v.InferOutput<typeof LiveDetails>;

// ---- 13. hashtag videos ----------------------------------------------------------------------------

const counts = <K extends string>(...keys: K[]) => v.object(Object.fromEntries(keys.map((k) => [k, int])) as Record<K, typeof int>);

/** One entry of `bitrateInfo`; an entry without its name, quality, codec, bitrate, size or URL is left out. */
export const VideoFormat = v.object({
  gearName: str,
  qualityType: int,
  codec: str,
  format: str,
  bitrate: int,
  fps: orNull(num, `${NO_VALUE}: a format whose bitrateInfo entry carries no BitrateFPS (the hashtag and search item lists mostly leave it out)`),
  width: int,
  height: int,
  size: int,
  url: str,
});
/** Shape chosen: one caption track. */
export const Subtitle = v.object({ language: str, languageId: nstr, format: nstr, source: nstr, version: nstr, size: nint, url: str, expiresAt: ndateTime });
export const VideoMedia = v.object({
  duration: int,
  width: orNull(int, `${NO_VALUE}: a photo post (its video object describes no video)`),
  height: orNull(int, `${NO_VALUE}: a photo post (its video object describes no video)`),
  definition: orNull(str, `${NO_VALUE}: a photo post (its video object describes no video), or a video whose definition is empty`),
  format: orNull(str, `${NO_VALUE}: a photo post (its video object describes no video), or a video whose container format is empty`),
  codec: orNull(str, `${NO_VALUE}: a photo post (its video object describes no video), or a video whose codecType is empty`),
  bitrate: orNull(int, `${NO_VALUE}: a photo post (its video object describes no video), or a video without a bitrate`),
  quality: orNull(str, `${NO_VALUE}: a photo post (its video object describes no video), or a video whose videoQuality is empty`),
  size: orNull(int, `${NO_VALUE}: a photo post (its video object describes no video), or a video without a file size`),
  coverUrl: orNull(str, `${NO_VALUE}: a video without a cover picture`),
  originCoverUrl: orNull(str, `${NO_VALUE}: a video without an original-size cover picture`),
  dynamicCoverUrl: orNull(str, `${NO_VALUE}: a video without an animated cover (photo posts have none)`),
  playUrl: orNull(str, `${NO_VALUE}: photo posts have no video stream`),
  downloadUrl: orNull(str, `${NO_VALUE}: photo posts, and videos whose owner disabled downloads`),
  volume: orNull(v.object({ loudness: num, peak: num }), `${NO_VALUE}: a video whose volumeInfo lacks Loudness or Peak (photo posts have none)`),
  formats: v.array(VideoFormat),
  subtitles: v.array(Subtitle),
});
/** Shape chosen: the images of a photo post. */
export const PhotoPost = v.object({
  title: nstr,
  coverUrl: nstr,
  images: v.array(v.object({ url: str, urls: v.array(str), width: nint, height: nint })),
});
/** Shape chosen for `streaming`: the external music-service links of the track. */
export const MusicStreaming = v.object({ platform: int, songId: nstr });
const WEB_SOUND = 'the web item lists leave it out of most sounds (it is filled for commercial-library sounds)';
export const Music = v.object({
  id: str,
  title: orNull(str, `${NO_VALUE}: a sound whose title is empty`),
  /** The sound's page, built from its title and id. */
  url: str,
  authorName: orNull(str, `${NO_VALUE}: a sound whose author name is empty`),
  album: orNull(str, `${NO_VALUE}: a sound outside any album (the upstream sends an empty album)`),
  duration: orNull(int, `${NO_VALUE}: a sound without a duration`),
  preciseDuration: orNull(num, `${NO_VALUE}: ${WEB_SOUND}`),
  shootDuration: orNull(int, `${NO_VALUE}: ${WEB_SOUND}`),
  original: orNull(bool, `${NO_VALUE}: a sound whose item does not say whether it is original`),
  isCopyrighted: orNull(bool, `${NO_VALUE}: a sound whose item does not say whether it is copyrighted`),
  isCommerceMusic: orNull(bool, `${NO_VALUE}: ${WEB_SOUND}`),
  isUnlimitedMusic: orNull(bool, `${NO_VALUE}: ${WEB_SOUND}`),
  isPrivate: orNull(bool, `${NO_VALUE}: a sound whose item does not say whether it is private`),
  coverUrl: orNull(str, `${NO_VALUE}: a sound without a cover picture`),
  playUrl: orNull(str, `${NO_VALUE}: a sound whose audio the upstream does not offer (removed or restricted sounds)`),
  streaming: v.array(MusicStreaming),
});
export const VideoAuthor = v.object({
  ...ACCOUNT,
  privateAccount: bool,
  stats: counts('followerCount', 'followingCount', 'likeCount', 'videoCount', 'friendCount', 'diggCount'),
});
/** Shape chosen: an account mentioned in the description. */
export const Mention = v.object({ handle: str, userId: nstr, secUid: nstr });
/** Shape chosen: a place tag. */
export const Location = v.object({ id: str, name: str, address: nstr, city: nstr, province: nstr, country: nstr, category: nstr });
/** Shape chosen: a link shown under the video (effect, CapCut template, product…). */
export const Anchor = v.object({ id: nstr, type: nint, keyword: nstr, description: nstr, url: nstr, iconUrl: nstr });
/** Shape chosen: a content warning shown on the video. */
export const Warning = v.object({ type: nstr, text: str, url: nstr });
export const HashtagVideo = v.object({
  id: digits,
  url: str,
  /** "video" or "photo". */
  type: v.picklist(['video', 'photo']),
  description: nstr,
  createdAt: dateTime,
  /** The description's language code; "un" when the upstream could not tell. */
  language: str,
  stats: counts('playCount', 'likeCount', 'commentCount', 'shareCount', 'collectCount', 'repostCount'),
  author: VideoAuthor,
  video: VideoMedia,
  photo: v.nullable(PhotoPost),
  music: orNull(Music, `${NO_VALUE}: a video without a sound`),
  hashtags: v.array(
    v.object({
      id: orNull(str, `${NO_VALUE}: a hashtag of the description that the upstream lists only in textExtra, without a hashtagId (it links no challenge)`),
      name: str,
      description: str,
    }),
  ),
  mentions: v.array(Mention),
  effects: v.array(v.object({ id: str, name: str })),
  stickerTexts: v.array(str),
  location: v.nullable(Location),
  contentCategory: v.object({
    id: orNull(int, `${NO_VALUE}: an item without CategoryType`),
    name: orNull(str, 'the upstream gives only a numeric category (CategoryType) for most videos; a name only where it adds diversificationLabels'),
  }),
  anchors: v.array(Anchor),
  warnings: v.array(Warning),
  playlistId: orNull(str, `${NO_VALUE}: a video outside any playlist`),
  isAd: bool,
  isPinned: bool,
  isPrivate: bool,
  isCommerce: bool,
  aigcDescription: str,
  aigcLabelType: orNull(int, `${NO_VALUE}: an item without an AI-generated-content label (the upstream sends aigcLabelType only for labelled items)`),
  duetEnabled: bool,
  stitchEnabled: bool,
  shareEnabled: bool,
  canRepost: bool,
  commentStatus: int,
  /** Shape chosen: the searches the platform suggests under the video. */
  suggestedSearches: v.array(str),
});
export type HashtagVideo = v.InferOutput<typeof HashtagVideo>;

export const HashtagInfo = v.object({
  id: digits,
  name: str,
  url: str,
  description: str,
  coverUrl: orNull(str, `${NO_VALUE}: a hashtag without a cover`),
  profileImageUrl: orNull(str, `${NO_VALUE}: a hashtag without a picture`),
  /** Shape chosen: {title, body} of the hashtag's announcement. */
  announcement: orNull(v.object({ title: str, body: str }), `${NO_VALUE}: most hashtags have no announcement`),
  videoCount: int,
  viewCount: int,
  isCommerce: bool,
});
export type HashtagInfo = v.InferOutput<typeof HashtagInfo>;

export const HashtagData = v.object({
  hashtag: HashtagInfo,
  region: str,
  regionName: str,
  servedRegion: str,
  videos: v.array(HashtagVideo),
  mediaHeaders: v.object({ Cookie: orNull(str, `${NO_VALUE}: the upstream set no tt_chain_token`), Referer: str }),
  cursor: nstr, // "cursor is null on the last page"
});
export type HashtagData = v.InferOutput<typeof HashtagData>;
