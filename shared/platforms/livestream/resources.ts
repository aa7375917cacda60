import * as v from 'valibot';
import { bool, dateTime, deviation, hlsPlaylist, int, ndateTime, nint, nstr, str } from '../../scrape/resource';

/**
 * livestream: the Clip resource of the spec as a valibot schema (conventions in
 * shared/scrape/resource.ts). The operation table names `ClipData` as operation 2's `data`; the
 * mapper returns `Clip`, and the contract tests validate every response against these schemas.
 */
const NO_VALUE = 'null where the upstream has no value to give, rather than an invented one';

const account = {
  id: int,
  username: str,
  slug: str,
};
export const ClipChannel = v.object({ ...account, profilePicture: deviation(nstr, `${NO_VALUE}: a channel without a picture`) });
/** "same shape as channel; profilePicture may be null". */
export const ClipCreator = v.object({ ...account, profilePicture: nstr });

export const ClipCategory = v.object({
  id: int,
  name: str,
  slug: str,
  parentCategory: deviation(nstr, `${NO_VALUE}: a category may have no parent`),
  imageUrl: deviation(nstr, `${NO_VALUE}: a category may have no banner`),
});

export const Clip = v.object({
  id: str,
  title: str,
  url: str,
  /** One vocabulary: public, unlisted (private clips are 404). */
  privacy: str,
  isMature: bool,
  durationSeconds: int,
  views: int,
  likes: deviation(nint, `${NO_VALUE}: the newer upstream shape has no like count`),
  thumbnailUrl: str,
  /** The HLS playlist; 2023-era clips only ever had an MP4 file, served with videoFormat 'mp4'. */
  videoUrl: deviation(v.union([hlsPlaylist, v.pipe(v.string(), v.regex(/\.mp4(\?|$)/, 'Expected an .mp4 URL'))]), '2023-era clips only ever had an MP4 file'),
  /** Added: which of the two `videoUrl` is. */
  videoFormat: v.picklist(['hls', 'mp4']),
  createdAt: dateTime,
  startedAt: deviation(ndateTime, `${NO_VALUE}: 2023-era clips carry the 0001-01-01 placeholder`),
  vodStartsAt: deviation(nint, `${NO_VALUE}: absent when the clip has no VOD`),
  livestreamId: deviation(nstr, `${NO_VALUE}: the newer upstream shape has no livestream id`),
  vodId: nstr,
  category: deviation(v.nullable(ClipCategory), `${NO_VALUE}: a clip of an uncategorised stream`),
  channel: ClipChannel,
  creator: deviation(v.nullable(ClipCreator), `${NO_VALUE}: the upstream may leave the clipper out`),
});
export type Clip = v.InferOutput<typeof Clip>;
export type ClipCreatorOut = v.InferOutput<typeof ClipCreator>;
export type ClipCategoryOut = v.InferOutput<typeof ClipCategory>;

export const ClipData = v.object({ clip: Clip });
export type ClipData = v.InferOutput<typeof ClipData>;
