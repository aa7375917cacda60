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
