import * as v from 'valibot';
import { anyOrNull, arr, bool, dateTime, digits, given, int, nbool, nint, nstr, obj, str } from '../../scrape/resource';

/**
 * microblog-b: the spec's resources as valibot schemas (see shared/scrape/resource.ts for the
 * conventions). The operation table names each operation's `data` schema from here; mappers return
 * their output types, and the contract tests validate every response against them.
 */
export const microblogBProfile = v.looseObject({
  id: str,
  name: str,
  screenName: str,
  url: str,
  bio: str,
  location: str,
  website: v.looseObject({ url: given, displayUrl: given, expandedUrl: given }),
  avatarUrl: str,
  avatarUrlHd: str,
  bannerUrl: str,
  stats: v.looseObject({ followers: int, following: int, notes: int }),
  verified: bool,
  protected: bool,
  professional: bool,
  verifiedType: nstr,
  professionalCategory: nstr,
  profileImageShape: str,
  joined: str,
});
export const ProfileData = v.looseObject({ profile: microblogBProfile });


const noteBase = {
  id: str,
  url: str,
  text: str,
  isLongForm: bool,
  lang: nstr,
  createdAtMs: int,
  createdAt: dateTime,
  counts: v.looseObject({ likes: int, reposts: int, replies: int, bookmarks: int, quotes: nint }),
  views: digits,
  media: arr,
  mentions: v.array(v.looseObject({ screenName: given, id: given, indices: v.tuple([int, int]) })),
  urls: v.array(v.looseObject({ url: given, expandedUrl: given, displayUrl: given })),
  hashtags: arr,
  cashtags: arr,
  card: v.nullable(v.looseObject({ legacy: anyOrNull, id: given })),
  communityNote: anyOrNull,
  article: v.nullable(
    v.looseObject({
      id: given,
      title: given,
      previewText: given,
      coverImage: v.looseObject({ url: given, width: given, height: given }),
      fullText: anyOrNull,
      raw: obj,
    }),
  ),
  isReply: bool,
  isQuote: bool,
  replyToNoteId: nstr,
  replyToUserId: nstr,
  quotedNoteId: nstr,
  quotedNote: anyOrNull,
  possiblySensitive: nbool,
  conversationControl: anyOrNull,
  editNoteIds: anyOrNull,
  place: anyOrNull,
};
// The author's fields are named like the profile's; their types are the profile table's.
const noteAuthor = v.looseObject({
  id: str,
  name: str,
  screenName: str,
  url: str,
  bio: nstr,
  avatarUrl: str,
  avatarUrlHd: str,
  followers: int,
  following: int,
  noteCount: int,
  verified: bool,
  verifiedType: nstr,
  protected: bool,
  profileImageShape: str,
  professionalCategory: nstr,
});
/** A note in `/user-notes`: no author, `isPinned` present. */
export const userNote = v.looseObject({ ...noteBase, isPinned: bool });
/** A note in `/note` (full form): with its author. */
export const threadNote = v.looseObject({ ...noteBase, author: noteAuthor });
export const UserNotesData = v.looseObject({ notes: v.array(userNote), noteCount: int });
// The full (trim absent) form; the trim=true form omits replies and replyCount.
export const NoteData = v.looseObject({ focalNote: threadNote, replies: v.array(threadNote), replyCount: int });
