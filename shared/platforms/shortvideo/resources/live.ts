import * as v from 'valibot';
import { NO_VALUE, type RequiredValues, boolean, dateTime, dateTimeOrNull, digits, integer, integerOrNull, omitted, required, string, stringOrNull } from '../../../scrape/resource';
import { ACCOUNT, ANSWER, NOTE, orNull } from './common';

/** shortvideo, operation 11 (live status): the resource schemas (see ../resources.ts) and the values it cannot be built without. */

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

// ---- required values (issue 31) --------------------------------------------------------------------

/**
 * Operation 11: the account (id and handle: its URLs are built from it) and, when it is live, the
 * room's id. Left out and counted: a top gifter without its id, a battle without its id. Research note §C.
 */
export const LIVE_REQUIRED: readonly RequiredValues[] = [
  ANSWER,
  required('live user', 'user', { id: 'id', handle: 'uniqueId', profileUrl: 'uniqueId', liveUrl: 'uniqueId' }, `${NOTE} §C.1 (api-live user)`),
  required('live', 'live', { roomId: 'id_str' }, `${NOTE} §C field table (live.roomId: id_str / user.roomId)`),
];
