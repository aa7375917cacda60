import { extractionFailed } from '../../http/errors';
import { type Drops, IGNORED_DROPS } from '../../scrape/context';
import { arr, bool, count, get, int, isObject, isoDate, list, listGood, need, num, orDropped, str, text, url, type Json } from '../../scrape/map';
import type * as R from './resources';
import { liveUrl, musicUrl, profileUrl, tagUrl, videoUrl } from './site';

/**
 * Pure mappers from the web API's JSON to the spec's resources (resources.ts), one object literal
 * per resource. Counts come from the `statsV2` strings (exact: `stats` overflows 32 bits for big
 * accounts and rounds), falling back to `stats` (the research note shows both in real answers).
 * Required (`need`) are only the values REQUIRED in resources.ts names (ids and handles: the URLs are
 * built from the handle); every other value is null when the answer leaves it out (or "" / [] where
 * resources.ts documents that reading), never an invented 0, false or another field's value.
 */

/** statsV2.<key> (exact string) else stats.<key>; null when neither carries it (never an invented 0). */
export function exactCount(statsV2: Json, stats: Json, key: string, ...fallbackKeys: string[]): number | null {
  for (const k of [key, ...fallbackKeys]) {
    const n = count(get(statsV2, k)) ?? count(get(stats, k));
    if (n !== null) return n;
  }
  return null;
}

const idOrNull = (v: unknown): string | null => {
  const s = str(v);
  return s && s !== '0' ? s : null;
};

// ---- comments --------------------------------------------------------------------------------------

function imageVariant(x: Json, what: string) {
  const urls = list(get(x, 'url_list'), (u) => url(u));
  return {
    url: need(urls[0], `${what} URL`),
    urls,
    uri: text(get(x, 'uri')),
    width: int(get(x, 'width')),
    height: int(get(x, 'height')),
  };
}

/**
 * A comment image: its original rendition (required: its URL), and its crop (the original for an
 * image the platform sends no crop of; null for a crop whose URL cannot be read).
 */
function commentImage(img: Json, i: number) {
  const crop = get(img, 'crop_url') ?? get(img, 'origin_url');
  return {
    original: imageVariant(get(img, 'origin_url'), `comment image ${i}`),
    crop: list(get(crop, 'url_list'), (u) => url(u)).length ? imageVariant(crop, `comment image ${i} crop`) : null,
  };
}

/** A flag the platform sends on every object of its kind: null when it is not there (never an invented false). */
const flag = (v: unknown): boolean | null => bool(v);

/** Emoji presentation sequences (with modifiers, ZWJ joins and flags) of a text, each once. */
const EMOJI = /\p{RI}\p{RI}|(?:\p{Extended_Pictographic}|\p{Emoji_Presentation})(?:\p{EMod}|\uFE0F|\u20E3)*(?:\u200D(?:\p{Extended_Pictographic}|\p{Emoji_Presentation})(?:\p{EMod}|\uFE0F)*)*/gu;
export function emojisOf(s: string): string[] {
  return [...new Set(s.match(EMOJI) ?? [])];
}

function sticker(x: Json): R.Comment['sticker'] {
  if (!isObject(x)) return null;
  const first = (k: string) => url(get(x, k, 'url_list', 0));
  return {
    id: str(get(x, 'id')) ?? str(get(x, 'id_str')),
    url: first('static_url') ?? first('static_image') ?? url(get(x, 'url')),
    animatedUrl: first('animate_url') ?? first('animate_image'),
    width: int(get(x, 'width')),
    height: int(get(x, 'height')),
  };
}

/** Pinned by the creator: `author_pin`, also `stick_position` != 0; null when neither can be read. */
function pinnedByCreator(c: Json): boolean | null {
  const pin = bool(get(c, 'author_pin'));
  const stick = int(get(c, 'stick_position'));
  if (pin === true || (stick !== null && stick !== 0)) return true;
  return pin === null && stick === null ? null : false;
}

/** A comment; `videoId` is the video whose comments were asked for (the comment's aweme_id, when it cannot be read). */
export function mapCommentFields(c: Json, videoId?: string, drops: Drops = IGNORED_DROPS): R.CommentReply {
  const handle = need(str(get(c, 'user', 'unique_id')), 'comment author handle');
  const commentText = text(get(c, 'text')) ?? '';
  return {
    id: need(str(get(c, 'cid')), 'comment id'),
    videoId: need(str(get(c, 'aweme_id')) ?? videoId, 'comment video id'),
    parentId: idOrNull(get(c, 'reply_id')),
    replyToId: idOrNull(get(c, 'reply_to_reply_id')),
    text: commentText,
    createdAt: isoDate(get(c, 'create_time')),
    language: str(get(c, 'comment_language')),
    likeCount: count(get(c, 'digg_count')),
    replyCount: count(get(c, 'reply_comment_total')),
    author: {
      id: need(str(get(c, 'user', 'uid')), 'comment author id'),
      secUid: str(get(c, 'user', 'sec_uid')),
      handle,
      nickname: text(get(c, 'user', 'nickname')),
      avatarUrl: url(get(c, 'user', 'avatar_thumb', 'url_list', 0)),
      url: profileUrl(handle),
    },
    isLikedByCreator: flag(get(c, 'is_author_digged')),
    isPinnedByCreator: pinnedByCreator(c),
    isTranslatable: flag(get(c, 'is_comment_translatable')),
    allowsPhotoDownload: flag(get(c, 'allow_download_photo')),
    labels: list(get(c, 'label_list'), (l) => {
      const t = str(get(l, 'text')) ?? str(get(l, 'label_text'));
      return t ? { text: t, type: int(get(l, 'type')) ?? int(get(l, 'label_type')) } : null;
    }),
    images: listGood(get(c, 'image_list'), commentImage, 'comment image', drops),
    sticker: sticker(get(c, 'sticker')),
    emojis: emojisOf(commentText),
    shareInfo: {
      url: text(get(c, 'share_info', 'url')) ?? '',
      title: text(get(c, 'share_info', 'title')) ?? '',
      description: text(get(c, 'share_info', 'desc')) ?? '',
      acl: {
        code: int(get(c, 'share_info', 'acl', 'code')),
        addToStoryCode: int(get(c, 'share_info', 'acl', 'add_to_story_code')) ?? int(get(c, 'share_info', 'acl', 'addToStoryCode')),
      },
    },
  };
}

export function mapComment(c: Json, videoId?: string, drops: Drops = IGNORED_DROPS): R.Comment {
  const reply = arr(get(c, 'reply_comment'))[0];
  return { ...mapCommentFields(c, videoId, drops), topReply: isObject(reply) ? orDropped(() => mapCommentFields(reply, videoId, drops), 'top reply', drops) : null };
}

/**
 * `data.video` of the comments: the video's author and page as the platform names them, from an
 * /api/item/detail/ answer (never from the caller's URL, which may name anyone: the site serves a
 * video under any handle). The answer must be about the video asked for.
 */
export function mapCommentedVideo(detail: Json, videoId: string): R.CommentsData['video'] {
  const item = get(detail, 'itemInfo', 'itemStruct');
  const id = need(str(get(item, 'id')), 'video id');
  if (id !== videoId) throw extractionFailed(`shortvideo item detail of ${videoId}: the answer is about ${id}`);
  const handle = need(str(get(item, 'author', 'uniqueId')), 'video author handle');
  return { id: videoId, url: videoUrl(handle, videoId, isObject(get(item, 'imagePost')) ? 'photo' : 'video'), handle };
}

// ---- hashtag videos ------------------------------------------------------------------------------------

const firstUrl = (...xs: unknown[]): string | null => {
  for (const x of xs) {
    const u = url(x);
    if (u) return u;
  }
  return null;
};
const nonEmpty = (v: unknown): string | null => str(v);
const urlList = (x: Json) => list(get(x, 'urlList') ?? get(x, 'url_list') ?? get(x, 'UrlList'), (u) => url(u));

export function mapHashtagInfo(detail: Json, fallbackName: string): R.HashtagInfo {
  const ch = get(detail, 'challengeInfo', 'challenge');
  const stats = get(detail, 'challengeInfo', 'stats');
  const statsV2 = get(detail, 'challengeInfo', 'statsV2');
  const name = str(get(ch, 'title')) ?? fallbackName;
  const ann = get(detail, 'challengeInfo', 'challengeAnnouncement');
  const annBody = str(get(ann, 'body'));
  return {
    id: need(str(get(ch, 'id')), 'hashtag id'),
    name,
    url: tagUrl(name),
    description: text(get(ch, 'desc')) ?? '',
    coverUrl: firstUrl(get(ch, 'coverLarger'), get(ch, 'coverMedium'), get(ch, 'coverThumb')),
    profileImageUrl: firstUrl(get(ch, 'profileLarger'), get(ch, 'profileMedium'), get(ch, 'profileThumb')),
    announcement: annBody ? { title: text(get(ann, 'title')) ?? '', body: annBody } : null,
    videoCount: exactCount(statsV2, stats, 'videoCount'),
    viewCount: exactCount(statsV2, stats, 'viewCount'),
    isCommerce: flag(get(ch, 'isCommerce')),
  };
}

/** One bitrateInfo entry; null (left out) when it lacks a field the spec types as non-null. */
function mapFormat(b: Json, videoFormat: string | null): R.HashtagVideo['video']['formats'][number] | null {
  const format = {
    gearName: str(get(b, 'GearName')),
    qualityType: int(get(b, 'QualityType')),
    codec: str(get(b, 'CodecType')),
    format: videoFormat ?? 'mp4',
    bitrate: int(get(b, 'Bitrate')),
    fps: num(get(b, 'BitrateFPS')) ?? num(get(b, 'FPS')),
    width: int(get(b, 'PlayAddr', 'Width')),
    height: int(get(b, 'PlayAddr', 'Height')),
    size: int(get(b, 'PlayAddr', 'DataSize')),
    url: urlList(get(b, 'PlayAddr'))[0] ?? null,
  };
  const { gearName, qualityType, codec, bitrate, width, height, size, url: u } = format;
  if (gearName === null || qualityType === null || codec === null || bitrate === null || width === null || height === null || size === null || u === null) return null;
  return { ...format, gearName, qualityType, codec, bitrate, width, height, size, url: u };
}

function mapVideoMedia(vd: Json): R.HashtagVideo['video'] {
  const format = str(get(vd, 'format'));
  const loudness = num(get(vd, 'volumeInfo', 'Loudness'));
  const peak = num(get(vd, 'volumeInfo', 'Peak'));
  return {
    duration: int(get(vd, 'duration')),
    width: int(get(vd, 'width')),
    height: int(get(vd, 'height')),
    definition: nonEmpty(get(vd, 'definition')),
    format,
    codec: nonEmpty(get(vd, 'codecType')),
    bitrate: int(get(vd, 'bitrate')),
    quality: nonEmpty(get(vd, 'videoQuality')),
    size: int(get(vd, 'size')),
    coverUrl: url(get(vd, 'cover')),
    originCoverUrl: url(get(vd, 'originCover')),
    dynamicCoverUrl: url(get(vd, 'dynamicCover')),
    playUrl: url(get(vd, 'playAddr')),
    downloadUrl: url(get(vd, 'downloadAddr')),
    volume: loudness !== null && peak !== null ? { loudness, peak } : null,
    formats: list(get(vd, 'bitrateInfo'), (b) => mapFormat(b, format)),
    subtitles: list(get(vd, 'subtitleInfos'), (s) => {
      const u = url(get(s, 'Url'));
      return u
        ? {
            language: str(get(s, 'LanguageCodeName')),
            languageId: str(get(s, 'LanguageID')),
            format: str(get(s, 'Format')),
            source: str(get(s, 'Source')),
            version: str(get(s, 'Version')),
            size: int(get(s, 'Size')),
            url: u,
            expiresAt: isoDate(get(s, 'UrlExpire')),
          }
        : null;
    }),
  };
}

function mapPhoto(ip: Json): R.HashtagVideo['photo'] {
  if (!isObject(ip)) return null;
  return {
    title: nonEmpty(get(ip, 'title')),
    coverUrl: urlList(get(ip, 'cover', 'imageURL'))[0] ?? null,
    images: list(get(ip, 'images'), (img) => {
      const urls = urlList(get(img, 'imageURL'));
      return urls[0] ? { url: urls[0], urls, width: int(get(img, 'imageWidth')), height: int(get(img, 'imageHeight')) } : null;
    }),
  };
}

function mapMusic(m: Json): R.HashtagVideo['music'] {
  const id = str(get(m, 'id')) ?? str(get(m, 'idStr'));
  if (!id) return null;
  const title = nonEmpty(get(m, 'title'));
  const precise = get(m, 'preciseDuration');
  return {
    id,
    title,
    url: musicUrl(title, id),
    authorName: nonEmpty(get(m, 'authorName')),
    album: nonEmpty(get(m, 'album')),
    duration: int(get(m, 'duration')),
    preciseDuration: num(precise) ?? num(get(precise, 'preciseDuration')),
    shootDuration: int(get(m, 'shootDuration')) ?? int(get(precise, 'preciseShootDuration')),
    original: bool(get(m, 'original')),
    isCopyrighted: bool(get(m, 'isCopyrighted')),
    isCommerceMusic: bool(get(m, 'isCommerceMusic')),
    isUnlimitedMusic: bool(get(m, 'isUnlimitedMusic')),
    isPrivate: bool(get(m, 'private')),
    coverUrl: firstUrl(get(m, 'coverLarge'), get(m, 'coverMedium'), get(m, 'coverThumb')),
    playUrl: url(get(m, 'playUrl')),
    streaming: list(get(m, 'tt2dsp', 'tt_to_dsp_song_infos'), (x) => {
      const platform = int(get(x, 'platform'));
      return platform === null ? null : { platform, songId: str(get(x, 'song_id')) ?? str(get(x, 'meta_song_id')) };
    }),
  };
}

function hashtagsOf(item: Json): R.HashtagVideo['hashtags'] {
  const out = new Map<string, R.HashtagVideo['hashtags'][number]>();
  for (const c of arr(get(item, 'challenges'))) {
    const name = str(get(c, 'title'));
    if (name) out.set(name.toLowerCase(), { id: str(get(c, 'id')), name, description: text(get(c, 'desc')) ?? '' });
  }
  for (const t of arr(get(item, 'textExtra'))) {
    const name = str(get(t, 'hashtagName'));
    if (int(get(t, 'type')) === 1 && name && !out.has(name.toLowerCase())) out.set(name.toLowerCase(), { id: str(get(t, 'hashtagId')), name, description: '' });
  }
  return [...out.values()];
}

/** Commercial when the item is an ad or a hashtag of it is commercial; null when none of those flags can be read. */
const isCommerceItem = (item: Json): boolean | null => {
  const flags = [bool(get(item, 'isAd')), ...arr(get(item, 'textExtra')).map((t) => bool(get(t, 'isCommerce'))), ...arr(get(item, 'challenges')).map((c) => bool(get(c, 'isCommerce')))];
  return flags.includes(true) ? true : flags.includes(false) ? false : null;
};

/** A setting the item states, else read from its display twin (research note D: "missing → derive duetDisplay==0"); null when neither is there. */
const enabled = (setting: unknown, display: unknown): boolean | null => {
  const d = int(display);
  return bool(setting) ?? (d === null ? null : d === 0);
};

export function mapHashtagVideo(item: Json, drops: Drops = IGNORED_DROPS): R.HashtagVideo {
  const id = need(str(get(item, 'id')), 'video id');
  const a = get(item, 'author');
  const handle = need(str(get(a, 'uniqueId')), 'video author handle');
  const photo = mapPhoto(get(item, 'imagePost'));
  const sV2 = get(item, 'statsV2');
  const s = get(item, 'stats');
  const aV2 = get(item, 'authorStatsV2');
  const aS = get(item, 'authorStats');
  const poi = get(item, 'poi');
  const category = int(get(item, 'CategoryType'));
  return {
    id,
    url: videoUrl(handle, id, photo ? 'photo' : 'video'),
    type: photo ? 'photo' : 'video',
    description: nonEmpty(get(item, 'desc')),
    createdAt: isoDate(get(item, 'createTime')),
    language: str(get(item, 'textLanguage')),
    stats: {
      playCount: exactCount(sV2, s, 'playCount'),
      likeCount: exactCount(sV2, s, 'diggCount'),
      commentCount: exactCount(sV2, s, 'commentCount'),
      shareCount: exactCount(sV2, s, 'shareCount'),
      collectCount: exactCount(sV2, s, 'collectCount'),
      repostCount: exactCount(sV2, s, 'repostCount'),
    },
    author: {
      id: need(str(get(a, 'id')), 'video author id'),
      secUid: str(get(a, 'secUid')),
      handle,
      nickname: text(get(a, 'nickname')),
      bio: text(get(a, 'signature')) ?? '',
      avatarUrl: firstUrl(get(a, 'avatarLarger'), get(a, 'avatarMedium'), get(a, 'avatarThumb')),
      verified: flag(get(a, 'verified')),
      privateAccount: flag(get(a, 'privateAccount')),
      stats: {
        followerCount: exactCount(aV2, aS, 'followerCount'),
        followingCount: exactCount(aV2, aS, 'followingCount'),
        likeCount: exactCount(aV2, aS, 'heartCount', 'heart'),
        videoCount: exactCount(aV2, aS, 'videoCount'),
        friendCount: exactCount(aV2, aS, 'friendCount'),
        diggCount: exactCount(aV2, aS, 'diggCount'),
      },
    },
    video: mapVideoMedia(get(item, 'video')),
    photo,
    music: orDropped(() => mapMusic(get(item, 'music')), 'music', drops),
    hashtags: hashtagsOf(item),
    mentions: list(get(item, 'textExtra'), (t) => {
      const h = str(get(t, 'userUniqueId'));
      return int(get(t, 'type')) === 0 && h ? { handle: h, userId: str(get(t, 'userId')), secUid: str(get(t, 'secUid')) } : null;
    }),
    effects: list(get(item, 'effectStickers'), (e) => {
      const eid = str(get(e, 'ID')) ?? str(get(e, 'id'));
      return eid ? { id: eid, name: text(get(e, 'name')) ?? '' } : null;
    }),
    stickerTexts: arr(get(item, 'stickersOnItem')).flatMap((st) => list(get(st, 'stickerText'), (t) => str(t))),
    location: isObject(poi) && str(get(poi, 'id'))
      ? {
          id: str(get(poi, 'id'))!,
          name: text(get(poi, 'name')) ?? '',
          address: nonEmpty(get(poi, 'address')),
          city: nonEmpty(get(poi, 'city')),
          province: nonEmpty(get(poi, 'province')),
          country: nonEmpty(get(poi, 'country')),
          category: nonEmpty(get(poi, 'category')),
        }
      : null,
    contentCategory: { id: category, name: str(get(item, 'diversificationLabels', 0)) },
    anchors: list(get(item, 'anchors'), (an) => ({
      id: str(get(an, 'id')),
      type: int(get(an, 'type')),
      keyword: nonEmpty(get(an, 'keyword')),
      description: nonEmpty(get(an, 'description')),
      url: url(get(an, 'schema')),
      iconUrl: urlList(get(an, 'icon'))[0] ?? null,
    })),
    warnings: list(get(item, 'warnInfo'), (w) => {
      const t = str(get(w, 'text'));
      return t ? { type: str(get(w, 'type')), text: t, url: url(get(w, 'url')) } : null;
    }),
    playlistId: str(get(item, 'playlistId')),
    isAd: flag(get(item, 'isAd')),
    isPinned: flag(get(item, 'isPinnedItem')),
    isPrivate: flag(get(item, 'privateItem')),
    isCommerce: isCommerceItem(item),
    aigcDescription: text(get(item, 'AIGCDescription')) ?? '',
    aigcLabelType: int(get(item, 'aigcLabelType')),
    duetEnabled: enabled(get(item, 'duetEnabled'), get(item, 'duetDisplay')),
    stitchEnabled: enabled(get(item, 'stitchEnabled'), get(item, 'stitchDisplay')),
    shareEnabled: flag(get(item, 'shareEnabled')),
    canRepost: flag(get(item, 'item_control', 'can_repost')),
    commentStatus: int(get(item, 'itemCommentStatus')),
    suggestedSearches: [
      ...new Set(arr(get(item, 'videoSuggestWordsList', 'video_suggest_words_struct')).flatMap((w) => list(get(w, 'words'), (x) => str(get(x, 'word'))))),
    ],
  };
}

// ---- live status -----------------------------------------------------------------------------------

/** A JSON value the upstream sends as a string (stream_data, sdk_params), parsed; undefined when it is not JSON. */
function jsonString(v: unknown): unknown {
  if (typeof v !== 'string' || v === '') return isObject(v) ? v : undefined;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
}

/** expiresAt from a stream URL's `expire` (unix seconds) parameter. */
function expiryOf(...urls: (string | null)[]): string | null {
  for (const u of urls) {
    if (!u) continue;
    const e = new URL(u).searchParams.get('expire') ?? new URL(u).searchParams.get('x-expires');
    const t = e ? isoDate(Number(e)) : null;
    if (t) return t;
  }
  return null;
}

const QUALITY_NAMES: Record<string, string> = { ao: 'Audio only' };

/** Every quality of one pull_data ({options.qualities, stream_data: "<JSON>"}). */
export function mapStreams(pullData: Json): R.LiveDetails['streams'] {
  const names = new Map(list(get(pullData, 'options', 'qualities'), (q) => {
    const k = str(get(q, 'sdk_key'));
    const n = str(get(q, 'name'));
    return k && n ? ([k, n] as const) : null;
  }));
  const data = get(jsonString(get(pullData, 'stream_data')), 'data');
  if (!isObject(data)) return [];
  return Object.entries(data).flatMap(([quality, q]) => {
    const main = get(q, 'main');
    const flvUrl = url(get(main, 'flv'));
    const hlsUrl = url(get(main, 'hls'));
    if (!flvUrl && !hlsUrl) return [];
    const sdk = jsonString(get(main, 'sdk_params'));
    const resolution = str(get(sdk, 'resolution'));
    const wh = resolution?.match(/^(\d+)x(\d+)$/);
    const isAudioOnly = quality === 'ao' || /[?&]only_audio=1\b/.test(flvUrl ?? hlsUrl ?? '');
    return [
      {
        quality,
        name: names.get(quality) ?? QUALITY_NAMES[quality] ?? quality,
        codec: str(get(sdk, 'VCodec')),
        isAudioOnly,
        resolution: wh && !isAudioOnly ? resolution : null,
        width: wh && !isAudioOnly ? Number(wh[1]) : null,
        height: wh && !isAudioOnly ? Number(wh[2]) : null,
        bitrate: int(get(sdk, 'vbitrate')),
        flvUrl,
        hlsUrl,
        dashUrl: url(get(main, 'dash')),
        expiresAt: expiryOf(flvUrl, hlsUrl),
      },
    ];
  });
}

/** The account as the room lookup (api-live/user/room) gives it. */
export function mapLiveUser(d: Json): R.LiveData['user'] {
  const u = get(d, 'user');
  const handle = need(str(get(u, 'uniqueId')), 'live user handle');
  return {
    id: need(str(get(u, 'id')), 'live user id'),
    secUid: str(get(u, 'secUid')),
    handle,
    nickname: text(get(u, 'nickname')),
    bio: text(get(u, 'signature')) ?? '',
    avatarUrl: firstUrl(get(u, 'avatarLarger'), get(u, 'avatarMedium'), get(u, 'avatarThumb')),
    verified: flag(get(u, 'verified')),
    // The lookup has no privateAccount for every account; `secret` is its private flag there.
    isPrivate: bool(get(u, 'privateAccount')) ?? bool(get(u, 'secret')),
    followerCount: exactCount(get(d, 'statsV2'), get(d, 'stats'), 'followerCount'),
    followingCount: exactCount(get(d, 'statsV2'), get(d, 'stats'), 'followingCount'),
    profileUrl: profileUrl(handle),
    liveUrl: liveUrl(handle),
  };
}

/** The last live of an offline account: what the room lookup still reports of it, or null. */
export function mapLastLive(d: Json): R.LiveData['lastLive'] {
  const room = get(d, 'liveRoom');
  const startedAt = isoDate(int(get(room, 'startTime')) || null);
  if (!startedAt) return null;
  const endedAt = isoDate(int(get(room, 'finishTime')) || int(get(room, 'endTime')) || null);
  return {
    roomId: idOrNull(get(d, 'user', 'roomId')),
    title: str(get(room, 'title')),
    startedAt,
    endedAt,
    durationSeconds: endedAt ? Math.max(0, Math.round((Date.parse(endedAt) - Date.parse(startedAt)) / 1000)) : null,
    totalViewers: count(get(room, 'liveRoomStats', 'enterCount')),
  };
}

/** From the room's live_type_* flags; camera when it says so or every other kind is read as false; null when the flags cannot tell. */
function broadcastType(r: Json): R.LiveDetails['broadcastType'] | null {
  const [audio, screen, software] = ['live_type_audio', 'live_type_screenshot', 'live_type_third_party'].map((k) => bool(get(r, k)));
  if (audio) return 'audio';
  if (screen) return 'screen';
  if (software) return 'software';
  if (bool(get(r, 'live_type_normal')) === true || (audio === false && screen === false && software === false)) return 'camera';
  return null;
}

function battleOf(r: Json): R.LiveDetails['battle'] {
  const s = get(r, 'link_mic', 'battle_settings');
  // 64-bit ids arrive as JSON numbers too (rounded by any JSON parser): the _str twin wins.
  const id = idOrNull(get(s, 'battle_id_str')) ?? idOrNull(get(s, 'battle_id'));
  if (!id) return null;
  const hostId = str(get(r, 'owner', 'id_str'));
  const startMs = int(get(s, 'start_time_ms')) || (int(get(s, 'start_time')) ?? 0) * 1000;
  const scores = list(get(r, 'link_mic', 'battle_scores'), (x) => {
    const userId = str(get(x, 'user_id')) ?? str(get(x, 'user_id_str'));
    const score = int(get(x, 'score'));
    return userId && score !== null ? { userId, score, isHost: hostId === null ? null : userId === hostId } : null;
  });
  return {
    id,
    startedAt: startMs ? isoDate(startMs) : null,
    durationSeconds: int(get(s, 'duration')),
    isFinished: (int(get(s, 'finished')) ?? 0) !== 0 || bool(get(s, 'finished')) === true,
    opponentUserId: idOrNull(get(r, 'link_mic', 'rival_anchor_id_str')) ?? idOrNull(get(r, 'link_mic', 'rival_anchor_id')) ?? scores.find((x) => !x.isHost)?.userId ?? null,
    scores,
  };
}

/**
 * A live room: room/info `data` (`room`), completed by the room lookup (`lookup`) where the room
 * hides something (an age-restricted room gives almost nothing without a session).
 */
/** 1/0 (or a flag) of the room, else of the lookup's live room; null when neither says. */
const either = (roomValue: unknown, lookupValue: unknown, on: (n: number) => boolean): boolean | null => {
  const n = int(roomValue) ?? int(lookupValue);
  return n === null ? null : on(n);
};

export function mapLive(room: Json, lookup: Json, ageRestricted: boolean, drops: Drops = IGNORED_DROPS): R.LiveDetails {
  const lr = get(lookup, 'liveRoom');
  const roomId = need(str(get(room, 'id_str')) ?? str(get(lookup, 'user', 'roomId')), 'live room id');
  const pull = get(room, 'stream_url', 'live_core_sdk_data', 'pull_data') ?? get(lr, 'streamData', 'pull_data');
  const streams = ageRestricted ? [] : [...mapStreams(pull), ...mapStreams(get(lr, 'hevcStreamData', 'pull_data')).filter((h) => h.codec === 'h265')];
  // The same quality may come twice (the H.264 and the H.265 ladder): keep both, once each.
  const unique = [...new Map(streams.map((x) => [`${x.quality}|${x.codec}|${x.flvUrl}`, x])).values()];
  return {
    roomId,
    streamId: str(get(room, 'stream_id_str')) ?? str(get(lr, 'streamId')),
    title: str(get(room, 'title')) ?? str(get(lr, 'title')),
    shareUrl: url(get(room, 'share_url')) ?? liveUrl(need(str(get(lookup, 'user', 'uniqueId')), 'live user handle')),
    coverUrl: url(get(room, 'cover', 'url_list', 0)) ?? url(get(lr, 'coverUrl')),
    // The stream's start (research note §C: start_time / liveRoom.startTime), never the room's create_time.
    startedAt: isoDate(int(get(room, 'start_time')) || int(get(lr, 'startTime')) || null),
    viewerCount: count(get(room, 'user_count')) ?? count(get(lr, 'liveRoomStats', 'userCount')),
    totalViewers: count(get(room, 'stats', 'total_user')) ?? count(get(lr, 'liveRoomStats', 'enterCount')),
    newFollowers: count(get(room, 'stats', 'follow_count')),
    category: str(get(room, 'hashtag', 'title')),
    game: str(get(room, 'game_tag_detail', 'display_name')) ?? str(get(room, 'game_tag', 0, 'show_name')),
    broadcastType: broadcastType(room),
    isCoHosting: arr(get(room, 'social_interaction', 'cohost', 'linked_users')).length > 0 || arr(get(room, 'link_mic', 'linked_user_list')).length > 0,
    battle: orDropped(() => battleOf(room), 'battle', drops),
    topGifters: listGood(
      get(room, 'top_fans'),
      (f) => {
        const u = get(f, 'user');
        return {
          userId: need(str(get(u, 'id_str')), 'top gifter id'),
          secUid: str(get(u, 'sec_uid')),
          handle: str(get(u, 'display_id')),
          nickname: text(get(u, 'nickname')),
          avatarUrl: url(get(u, 'avatar_thumb', 'url_list', 0)),
          followerCount: count(get(u, 'follow_info', 'follower_count')),
          gifterLevel: int(get(u, 'pay_grade', 'level')),
          giftScore: count(get(f, 'fan_ticket')),
        };
      },
      'top gifter',
      drops,
    ),
    ageRestricted,
    subscriberOnly: either(get(room, 'live_sub_only'), get(lr, 'liveSubOnly'), (n) => n === 1),
    isPaidEvent: either(get(room, 'paid_event', 'paid_type'), get(lr, 'paidEvent', 'paid_type'), (n) => n !== 0),
    hasShop: ageRestricted ? false : flag(get(room, 'has_commerce_goods')),
    // An age-restricted room withholds its settings from logged-out readers: no chat or gifts for them.
    chatEnabled: bool(get(room, 'room_auth', 'Chat')) ?? (ageRestricted ? false : null),
    giftsEnabled: bool(get(room, 'room_auth', 'Gift')) ?? (ageRestricted ? false : null),
    shopProductCount: count(get(room, 'commerce_info', 'product_num')),
    streams: unique,
  };
}

// ---- following -------------------------------------------------------------------------------------

/** The `__UNIVERSAL_DATA_FOR_REHYDRATION__` JSON of a web page, or undefined (a client-rendered shell). */
export function rehydrationData(html: string): unknown {
  const m = html.match(/<script\b[^>]*\bid=["']__UNIVERSAL_DATA_FOR_REHYDRATION__["'][^>]*>([\s\S]*?)<\/script>/i);
  if (!m?.[1]) return undefined;
  try {
    return JSON.parse(m[1]);
  } catch {
    return undefined;
  }
}

/** `data.profile` from a user-detail object ({userInfo: {user, stats, statsV2}}). */
export function mapFollowingProfile(detail: Json): R.FollowingData['profile'] {
  const u = get(detail, 'userInfo', 'user');
  const handle = need(str(get(u, 'uniqueId')), 'profile handle');
  return {
    id: need(str(get(u, 'id')), 'profile id'),
    // The following list is asked for by secUid.
    secUid: need(str(get(u, 'secUid')), 'profile secUid'),
    handle,
    nickname: text(get(u, 'nickname')),
    url: profileUrl(handle),
    followingCount: exactCount(get(detail, 'userInfo', 'statsV2'), get(detail, 'userInfo', 'stats'), 'followingCount'),
  };
}

export function mapFollowed(entry: Json): R.FollowedAccount {
  const u = get(entry, 'user');
  const handle = need(str(get(u, 'uniqueId')), 'followed account handle');
  const sV2 = get(entry, 'statsV2');
  const s = get(entry, 'stats');
  const large = url(get(u, 'avatarLarger'));
  const medium = url(get(u, 'avatarMedium'));
  const thumb = url(get(u, 'avatarThumb'));
  return {
    id: need(str(get(u, 'id')), 'followed account id'),
    secUid: str(get(u, 'secUid')),
    handle,
    nickname: text(get(u, 'nickname')),
    bio: text(get(u, 'signature')) ?? '',
    url: profileUrl(handle),
    avatarUrl: large ?? medium ?? thumb,
    avatars: { large, medium, thumb },
    verified: flag(get(u, 'verified')),
    privateAccount: flag(get(u, 'privateAccount')),
    secret: flag(get(u, 'secret')),
    platformSeller: flag(get(u, 'ttSeller')),
    openFavorite: flag(get(u, 'openFavorite')),
    ftc: flag(get(u, 'ftc')),
    isADVirtual: flag(get(u, 'isADVirtual')),
    downloadSetting: int(get(u, 'downloadSetting')),
    stats: {
      followerCount: exactCount(sV2, s, 'followerCount'),
      followingCount: exactCount(sV2, s, 'followingCount'),
      likeCount: exactCount(sV2, s, 'heartCount', 'heart'),
      videoCount: exactCount(sV2, s, 'videoCount'),
      friendCount: exactCount(sV2, s, 'friendCount'),
      diggCount: exactCount(sV2, s, 'diggCount'),
    },
  };
}
