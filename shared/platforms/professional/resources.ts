import * as v from 'valibot';
import { type RequiredValues, dateTimeOrNull, integerOrNull, required, stringOrNull, string } from '../../scrape/resource';

/**
 * professional: the "Article or post" resource (`data.content`). The spec lists what it describes
 * but leaves the field names and types open ("not shown"); these are the names chosen (README,
 * "professional post"), written as a precise schema. Conventions: shared/scrape/resource.ts.
 */
export const ContentAuthor = v.object({
  name: string,
  /** Profile or company page, without tracking query. */
  url: stringOrNull,
  imageUrl: stringOrNull,
  /** Company pages hide it in the JSON-LD (0); then the count the page prints, else null. */
  followerCount: integerOrNull,
});

export const ContentComment = v.object({
  authorName: string,
  authorUrl: stringOrNull,
  text: string,
  /** Exact time from the JSON-LD; the page itself only prints "2w". */
  createdAt: dateTimeOrNull,
  /** Null when neither the page nor its JSON-LD shows the comment's reactions (never an invented 0). */
  likeCount: integerOrNull,
});

export const RelatedArticle = v.object({ title: string, url: string, imageUrl: stringOrNull });

export const ContentImage = v.object({ url: string, width: integerOrNull, height: integerOrNull, alt: stringOrNull });

export const VideoMedia = v.object({
  type: v.literal('video'),
  /** The highest-bitrate progressive MP4 the page offers. */
  streamUrl: string,
  thumbnailUrl: stringOrNull,
  durationSeconds: integerOrNull,
  width: integerOrNull,
  height: integerOrNull,
  embedUrl: stringOrNull,
});

export const DocumentMedia = v.object({
  type: v.literal('document'),
  /** The document's manifest URL: logged out there is no direct file ("Sign in to download"). */
  sourceUrl: stringOrNull,
  title: stringOrNull,
  pageCount: integerOrNull,
  /** The slides the page shows logged out (the first few), in order. */
  slideImageUrls: v.array(string),
});

export const ContentMedia = v.nullable(v.variant('type', [VideoMedia, DocumentMedia]));

const contentFields = {
  type: v.picklist(['post', 'article']),
  /** Posts: the activity id (digits). Articles: the article id (digits), else the slug's 5-char suffix. */
  id: string,
  url: string,
  title: stringOrNull,
  excerpt: stringOrNull,
  /** Full text, line breaks kept (may be empty: an image-only post). */
  body: string,
  coverImageUrl: stringOrNull,
  author: ContentAuthor,
  publishedAt: dateTimeOrNull,
  modifiedAt: dateTimeOrNull,
  /** Articles only; null for posts. */
  readingTimeMinutes: integerOrNull,
  /** Null when neither the JSON-LD nor the page shows the count (never an invented 0). */
  likeCount: integerOrNull,
  commentCount: integerOrNull,
  comments: v.array(ContentComment),
  /** Articles only; [] for posts. */
  relatedArticles: v.array(RelatedArticle),
  /** Posts only; [] for articles (their inline images are part of the body). */
  images: v.array(ContentImage),
  media: ContentMedia,
  hashtags: v.array(string),
};

/**
 * The post a post reshares, in the same shape. The page does not show its counts or comments
 * (counts null, comments []), and a reshare is never nested deeper (reshared null).
 */
export const ResharedContent = v.object({
  ...contentFields,
  likeCount: integerOrNull,
  commentCount: integerOrNull,
  reshared: v.null(),
});

export const Content = v.object({ ...contentFields, reshared: v.nullable(ResharedContent) });
export type Content = v.InferOutput<typeof Content>;
export type ResharedContent = v.InferOutput<typeof ResharedContent>;
export type ContentAuthor = v.InferOutput<typeof ContentAuthor>;
export type ContentComment = v.InferOutput<typeof ContentComment>;
export type ContentImage = v.InferOutput<typeof ContentImage>;
export type ContentMediaOut = v.InferOutput<typeof ContentMedia>;
export type RelatedArticle = v.InferOutput<typeof RelatedArticle>;

export const PostData = v.object({ content: Content });
export type PostData = v.InferOutput<typeof PostData>;

/**
 * What operation 8 cannot build without (issue 31), from the research note (upstream-professional-
 * linkpage-citygame.md §1.4-1.7): the content's id (a post's activity id, from its canonical URL,
 * lnkd:url or the card's data-activity-urn; an article's urn, else its slug's suffix) and its
 * author's name (the JSON-LD author, else the page's actor link). A reshared post without its
 * activity id is left out (null) and counted.
 */
export const REQUIRED: readonly RequiredValues[] = [
  required(
    'content',
    'content',
    {
      '(the page is a post or an article by its JSON-LD node\'s) @type': '@type',
      id: '(the page) link[rel=canonical] | @id | url | og:url | lnkd:url | data-activity-urn',
      'author.name': 'author.name | creator.name | (the page) actor link',
    },
    'research note upstream-professional-linkpage-citygame.md §1.4-1.7 (JSON-LD first, then the page)',
  ),
];
