import * as v from 'valibot';
import { NO_VALUE, OMITTED, type RequiredValues, boolean, dateTime, dateTimeOrNull, deviation, hlsPlaylist, integer, integerOrNull, omitted, required, string, stringOrNull } from '../../scrape/resource';

/**
 * livestream: the Clip resource of the spec as a valibot schema (conventions in
 * shared/scrape/resource.ts). The operation table names `ClipData` as operation 2's `data`; the
 * mapper returns `Clip`, and the contract tests validate every response against these schemas.
 */

const account = {
  id: integer,
  username: omitted(string),
  slug: string,
};
export const ClipChannel = v.object({ ...account, profilePicture: deviation(stringOrNull, `${NO_VALUE}: a channel without a picture`) });
/** "same shape as channel; profilePicture may be null". */
export const ClipCreator = v.object({ ...account, profilePicture: stringOrNull });

export const ClipCategory = v.object({
  id: integer,
  name: omitted(string),
  slug: omitted(string),
  parentCategory: deviation(stringOrNull, `${NO_VALUE}: a category may have no parent`),
  imageUrl: deviation(stringOrNull, `${NO_VALUE}: a category may have no banner`),
});

export const Clip = v.object({
  id: string,
  title: omitted(string),
  url: string,
  /** One vocabulary: public, unlisted (private clips are 404). */
  privacy: string,
  isMature: omitted(boolean),
  durationSeconds: omitted(integer),
  views: omitted(integer),
  likes: deviation(integerOrNull, `${NO_VALUE}: the newer upstream shape has no like count`),
  thumbnailUrl: omitted(string),
  /** The HLS playlist; 2023-era clips only ever had an MP4 file, served with videoFormat 'mp4'. */
  videoUrl: deviation(
    v.nullable(v.union([hlsPlaylist, v.pipe(v.string(), v.regex(/\.mp4(\?|$)/, 'Expected an .mp4 URL'))])),
    `2023-era clips only ever had an MP4 file; ${OMITTED}`,
  ),
  /** Added: which of the two `videoUrl` is (null with it). */
  videoFormat: v.nullable(v.picklist(['hls', 'mp4'])),
  createdAt: omitted(dateTime),
  startedAt: deviation(dateTimeOrNull, `${NO_VALUE}: 2023-era clips carry the 0001-01-01 placeholder`),
  vodStartsAt: deviation(integerOrNull, `${NO_VALUE}: absent when the clip has no VOD`),
  livestreamId: deviation(stringOrNull, `${NO_VALUE}: the newer upstream shape has no livestream id`),
  vodId: stringOrNull,
  category: deviation(v.nullable(ClipCategory), `${NO_VALUE}: a clip of an uncategorised stream`),
  channel: ClipChannel,
  creator: deviation(v.nullable(ClipCreator), `${NO_VALUE}: the upstream may leave the clipper out`),
});
export type Clip = v.InferOutput<typeof Clip>;
export type ClipCreatorOut = v.InferOutput<typeof ClipCreator>;
export type ClipCategoryOut = v.InferOutput<typeof ClipCategory>;

export const ClipData = v.object({ clip: Clip });
export type ClipData = v.InferOutput<typeof ClipData>;

/**
 * What operation 2 cannot build without (issue 31), from the research note (upstream-livestream.md
 * §4: the canonical clip URL is https://kick.com/<channel.slug>/clips/<id>; the channel is the
 * streamer the clip belongs to): the clip's id, its channel's id (also sent as channel_id) and slug.
 * Left out (null) and counted when they lack their id: the creator (creator.id, also user_id) and
 * the category (category.id, also category_id).
 */
export const REQUIRED: readonly RequiredValues[] = [
  required(
    'clip',
    'clip',
    { id: 'id', url: 'id', 'channel.id': 'channel.id | channel_id', 'channel.slug': 'channel.slug' },
    'research note upstream-livestream.md §4 (field table and canonical clip URL)',
  ),
];
