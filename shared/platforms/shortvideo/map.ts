import { arr, bool, count, get, int, isObject, isoDate, list, need, num, str, text, url, type Json } from '../../scrape/map';
import type * as R from './resources';
import { profileUrl } from './site';

/**
 * Pure mappers from the web API's JSON to the spec's resources (resources.ts), one object literal
 * per resource. Counts come from the `statsV2` strings (exact: `stats` overflows 32 bits for big
 * accounts and rounds), falling back to `stats`.
 */

/** statsV2.<key> (exact string) else stats.<key>; 0 when neither has it (a count the upstream omits is zero). */
export function exactCount(statsV2: Json, stats: Json, key: string, ...fallbackKeys: string[]): number {
  for (const k of [key, ...fallbackKeys]) {
    const n = count(get(statsV2, k)) ?? count(get(stats, k));
    if (n !== null) return n;
  }
  return 0;
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
    uri: need(text(get(x, 'uri')), `${what} uri`),
    width: need(int(get(x, 'width')), `${what} width`),
    height: need(int(get(x, 'height')), `${what} height`),
  };
}

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

export function mapCommentFields(c: Json): R.CommentReply {
  const handle = need(str(get(c, 'user', 'unique_id')), 'comment author handle');
  const commentText = text(get(c, 'text')) ?? '';
  return {
    id: need(str(get(c, 'cid')), 'comment id'),
    videoId: need(str(get(c, 'aweme_id')), 'comment video id'),
    parentId: idOrNull(get(c, 'reply_id')),
    replyToId: idOrNull(get(c, 'reply_to_reply_id')),
    text: commentText,
    createdAt: need(isoDate(get(c, 'create_time')), 'comment time'),
    language: str(get(c, 'comment_language')) ?? 'un',
    likeCount: count(get(c, 'digg_count')) ?? 0,
    replyCount: count(get(c, 'reply_comment_total')) ?? 0,
    author: {
      id: need(str(get(c, 'user', 'uid')), 'comment author id'),
      secUid: need(str(get(c, 'user', 'sec_uid')), 'comment author secUid'),
      handle,
      nickname: text(get(c, 'user', 'nickname')) ?? handle,
      avatarUrl: url(get(c, 'user', 'avatar_thumb', 'url_list', 0)),
      url: profileUrl(handle),
    },
    isLikedByCreator: bool(get(c, 'is_author_digged')) ?? false,
    isPinnedByCreator: bool(get(c, 'author_pin')) === true || (int(get(c, 'stick_position')) ?? 0) !== 0,
    isTranslatable: bool(get(c, 'is_comment_translatable')) ?? false,
    allowsPhotoDownload: bool(get(c, 'allow_download_photo')) ?? false,
    labels: list(get(c, 'label_list'), (l) => {
      const t = str(get(l, 'text')) ?? str(get(l, 'label_text'));
      return t ? { text: t, type: int(get(l, 'type')) ?? int(get(l, 'label_type')) ?? 0 } : null;
    }),
    images: list(get(c, 'image_list'), (img, i) => ({
      original: imageVariant(get(img, 'origin_url'), `comment image ${i}`),
      crop: imageVariant(get(img, 'crop_url') ?? get(img, 'origin_url'), `comment image ${i} crop`),
    })),
    sticker: sticker(get(c, 'sticker')),
    emojis: emojisOf(commentText),
    shareInfo: {
      url: text(get(c, 'share_info', 'url')) ?? '',
      title: text(get(c, 'share_info', 'title')) ?? '',
      description: text(get(c, 'share_info', 'desc')) ?? '',
      acl: {
        code: int(get(c, 'share_info', 'acl', 'code')) ?? 0,
        addToStoryCode: int(get(c, 'share_info', 'acl', 'add_to_story_code')) ?? int(get(c, 'share_info', 'acl', 'addToStoryCode')),
      },
    },
  };
}

export function mapComment(c: Json): R.Comment {
  const reply = arr(get(c, 'reply_comment'))[0];
  return { ...mapCommentFields(c), topReply: isObject(reply) ? mapCommentFields(reply) : null };
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
    url: `https://www.tiktok.com/tag/${encodeURIComponent(name)}`,
    description: text(get(ch, 'desc')) ?? '',
    coverUrl: firstUrl(get(ch, 'coverLarger'), get(ch, 'coverMedium'), get(ch, 'coverThumb')),
    profileImageUrl: firstUrl(get(ch, 'profileLarger'), get(ch, 'profileMedium'), get(ch, 'profileThumb')),
    announcement: annBody ? { title: text(get(ann, 'title')) ?? '', body: annBody } : null,
    videoCount: exactCount(statsV2, stats, 'videoCount'),
    viewCount: exactCount(statsV2, stats, 'viewCount'),
    isCommerce: bool(get(ch, 'isCommerce')) ?? false,
  };
}

function mapFormat(b: Json, videoFormat: string | null, i: number): R.HashtagVideo['video']['formats'][number] | null {
  const u = urlList(get(b, 'PlayAddr'))[0];
  if (!u) return null;
  return {
    gearName: str(get(b, 'GearName')) ?? `format_${i}`,
    qualityType: int(get(b, 'QualityType')),
    codec: str(get(b, 'CodecType')),
    format: videoFormat ?? 'mp4',
    bitrate: int(get(b, 'Bitrate')),
    fps: num(get(b, 'BitrateFPS')) ?? num(get(b, 'FPS')),
    width: int(get(b, 'PlayAddr', 'Width')),
    height: int(get(b, 'PlayAddr', 'Height')),
    size: int(get(b, 'PlayAddr', 'DataSize')),
    url: u,
  };
}

function mapVideoMedia(vd: Json): R.HashtagVideo['video'] {
  const format = str(get(vd, 'format'));
  const loudness = num(get(vd, 'volumeInfo', 'Loudness'));
  const peak = num(get(vd, 'volumeInfo', 'Peak'));
  return {
    duration: int(get(vd, 'duration')) ?? 0,
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
    formats: list(get(vd, 'bitrateInfo'), (b, i) => mapFormat(b, format, i)),
    subtitles: list(get(vd, 'subtitleInfos'), (s) => {
      const u = url(get(s, 'Url'));
      return u
        ? {
            language: str(get(s, 'LanguageCodeName')) ?? 'und',
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

/** The music page URL the web app links to: /music/<title words>-<id>. */
const musicUrl = (title: string | null, id: string) => `https://www.tiktok.com/music/${encodeURIComponent((title ?? 'sound').replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '') || 'sound')}-${id}`;

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
    if (name) out.set(name.toLowerCase(), { id: str(get(c, 'id')) ?? '', name, description: text(get(c, 'desc')) ?? '' });
  }
  for (const t of arr(get(item, 'textExtra'))) {
    const name = str(get(t, 'hashtagName'));
    if (int(get(t, 'type')) === 1 && name && !out.has(name.toLowerCase())) out.set(name.toLowerCase(), { id: str(get(t, 'hashtagId')) ?? '', name, description: '' });
  }
  return [...out.values()];
}

const isCommerceItem = (item: Json) =>
  bool(get(item, 'isAd')) === true ||
  arr(get(item, 'textExtra')).some((t) => bool(get(t, 'isCommerce')) === true) ||
  arr(get(item, 'challenges')).some((c) => bool(get(c, 'isCommerce')) === true);

export function mapHashtagVideo(item: Json): R.HashtagVideo {
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
    url: `https://www.tiktok.com/@${handle}/${photo ? 'photo' : 'video'}/${id}`,
    type: photo ? 'photo' : 'video',
    description: nonEmpty(get(item, 'desc')),
    createdAt: need(isoDate(get(item, 'createTime')), 'video time'),
    language: str(get(item, 'textLanguage')) ?? 'un',
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
      secUid: need(str(get(a, 'secUid')), 'video author secUid'),
      handle,
      nickname: text(get(a, 'nickname')) ?? handle,
      bio: text(get(a, 'signature')) ?? '',
      avatarUrl: firstUrl(get(a, 'avatarLarger'), get(a, 'avatarMedium'), get(a, 'avatarThumb')),
      verified: bool(get(a, 'verified')) ?? false,
      privateAccount: bool(get(a, 'privateAccount')) ?? false,
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
    music: mapMusic(get(item, 'music')),
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
          category: nonEmpty(get(poi, 'category')) ?? nonEmpty(get(poi, 'ttTypeNameSuper')),
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
      return t ? { type: str(get(w, 'type')) ?? str(get(w, 'key')), text: t, url: url(get(w, 'url')) } : null;
    }),
    playlistId: str(get(item, 'playlistId')),
    isAd: bool(get(item, 'isAd')) ?? false,
    isPinned: bool(get(item, 'isPinnedItem')) ?? false,
    isPrivate: bool(get(item, 'privateItem')) ?? false,
    isCommerce: isCommerceItem(item),
    aigcDescription: text(get(item, 'AIGCDescription')) ?? '',
    aigcLabelType: int(get(item, 'aigcLabelType')),
    duetEnabled: bool(get(item, 'duetEnabled')) ?? (int(get(item, 'duetDisplay')) ?? 0) === 0,
    stitchEnabled: bool(get(item, 'stitchEnabled')) ?? (int(get(item, 'stitchDisplay')) ?? 0) === 0,
    shareEnabled: bool(get(item, 'shareEnabled')) ?? !(bool(get(item, 'privateItem')) ?? false),
    canRepost: bool(get(item, 'item_control', 'can_repost')) ?? false,
    commentStatus: int(get(item, 'itemCommentStatus')) ?? 0,
    suggestedSearches: [
      ...new Set(arr(get(item, 'videoSuggestWordsList', 'video_suggest_words_struct')).flatMap((w) => list(get(w, 'words'), (x) => str(get(x, 'word'))))),
    ],
  };
}
