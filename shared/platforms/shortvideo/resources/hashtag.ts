import * as v from 'valibot';
import { NO_VALUE, type RequiredValues, boolean, dateTime, dateTimeOrNull, digits, integer, integerOrNull, number, omitted, required, string, stringOrNull } from '../../../scrape/resource';
import { ACCOUNT, ANSWER, NOTE, orNull } from './common';

/** shortvideo, operation 13 (hashtag videos): the resource schemas (see ../resources.ts) and the values it cannot be built without. */

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

/**
 * Operation 13: the hashtag (its id: the videos are asked for by it) and each video (its id, and its
 * author's id and uniqueId: the URL is built from the handle). Research note §D.
 */
export const HASHTAG_REQUIRED: readonly RequiredValues[] = [
  ANSWER,
  required('hashtag', 'hashtag', { '(the videos are asked by) id': 'id' }, `${NOTE} §D.1 (challenge/detail) and §D.2 (item_list by challengeID)`),
  required('video', 'videos[]', { id: 'id', 'author.id': 'author.id', 'author.handle': 'author.uniqueId', url: 'author.uniqueId' }, `${NOTE} §D itemStruct field table`),
];
