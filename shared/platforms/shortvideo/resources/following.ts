import * as v from 'valibot';
import { NO_VALUE, type RequiredValues, boolean, deviation, digits, integer, omitted, required, string, stringOrNull } from '../../../scrape/resource';
import { ANSWER, NOTE } from './common';

/** shortvideo, operation 5 (following): the resource schemas (see ../resources.ts) and the values it cannot be built without. */

const NO_PICTURE = `${NO_VALUE}: an account without a picture`;
export const FollowedAccount = v.object({
  id: digits,
  secUid: omitted(string),
  handle: string,
  nickname: omitted(string),
  bio: string,
  url: string,
  avatarUrl: deviation(stringOrNull, NO_PICTURE),
  avatars: v.object({ large: deviation(stringOrNull, NO_PICTURE), medium: deviation(stringOrNull, NO_PICTURE), thumb: deviation(stringOrNull, NO_PICTURE) }),
  verified: omitted(boolean),
  privateAccount: omitted(boolean),
  secret: omitted(boolean),
  platformSeller: omitted(boolean),
  openFavorite: omitted(boolean),
  ftc: omitted(boolean),
  isADVirtual: omitted(boolean),
  downloadSetting: omitted(integer),
  stats: v.object({ followerCount: omitted(integer), followingCount: omitted(integer), likeCount: omitted(integer), videoCount: omitted(integer), friendCount: omitted(integer), diggCount: omitted(integer) }),
});
export type FollowedAccount = v.InferOutput<typeof FollowedAccount>;
export const FollowingData = v.object({
  profile: v.object({ id: digits, secUid: string, handle: string, nickname: omitted(string), url: string, followingCount: omitted(integer) }),
  following: v.array(FollowedAccount),
  count: integer,
  total: omitted(integer),
  cursor: stringOrNull, // "cursor is null on the last page"
  hasMore: boolean,
});
export type FollowingData = v.InferOutput<typeof FollowingData>;

// ---- required values (issue 31) --------------------------------------------------------------------

const ACCOUNT_ID = (at: string) => ({ id: `${at}id`, handle: `${at}uniqueId`, url: `${at}uniqueId` });
/**
 * Operation 5: the queried profile (its id, handle, and secUid: the list is asked for by secUid) and
 * each followed account (id and handle: its URL is built from the handle). Research note §A.
 */
export const FOLLOWING_REQUIRED: readonly RequiredValues[] = [
  ANSWER,
  required('profile', 'profile', { id: 'userInfo.user.id', handle: 'userInfo.user.uniqueId', url: 'userInfo.user.uniqueId', '(the list is asked by) secUid': 'userInfo.user.secUid' }, `${NOTE} §A.1 (user-detail) and §A.2 (the list by secUid)`),
  required('followed account', 'following[]', ACCOUNT_ID('user.'), `${NOTE} §A.2 field table`),
];
