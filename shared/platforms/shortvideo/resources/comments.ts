import * as v from 'valibot';
import { NO_VALUE, type RequiredValues, boolean, dateTime, digits, integer, integerOrNull, omitted, required, string, stringOrNull } from '../../../scrape/resource';
import { ANSWER, NOTE, orNull } from './common';

/** shortvideo, operation 7 (video comments): the resource schemas (see ../resources.ts) and the values it cannot be built without. */

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

// ---- required values (issue 31) --------------------------------------------------------------------

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
