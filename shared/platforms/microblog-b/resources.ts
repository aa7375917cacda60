import * as v from 'valibot';
import { NO_VALUE, type RequiredValues, boolean, booleanOrNull, dateTime, deviation, digits, integer, integerOrNull, omitted, required, string, stringOrNull } from '../../scrape/resource';

/**
 * microblog-b: the spec's Profile and Note resources as valibot schemas (conventions in
 * shared/scrape/resource.ts). The operation table names ProfileData, UserNotesData and NoteData as
 * the `data` of operations 3, 10 and 12; the mappers (map.ts) return these types, and the contract
 * tests validate every response against them.
 *
 * Shapes the spec leaves open, chosen here (README, "microblog-b"): `media[]`, `communityNote`,
 * `conversationControl`, `place`, `editNoteIds`, `quotedNote`, `card.legacy`, and the trim=true form.
 */
const url = v.pipe(v.string(), v.url('Must be a URL'));
const urlOrNull = v.nullable(url);

// ---- Profile -----------------------------------------------------------------------------------

export const Website = v.object({
  /** The t.co link the profile shows. */
  url: deviation(urlOrNull, `${NO_VALUE}: an account without a website`),
  displayUrl: deviation(stringOrNull, `${NO_VALUE}: an account without a website`),
  expandedUrl: deviation(urlOrNull, `${NO_VALUE}: an account without a website`),
});

const joined = v.pipe(v.string(), v.regex(/^[A-Z][a-z]+ \d{4}$/, 'Must be a month and a year, e.g. "March 2009"'));

export const Profile = v.object({
  id: digits,
  name: omitted(string),
  screenName: string,
  url,
  /** The bio with its t.co links expanded; "" when empty. */
  bio: string,
  /** "" when the account gives none. */
  location: string,
  website: Website,
  avatarUrl: omitted(url),
  /** The full-size image (the `_normal` size suffix removed). */
  avatarUrlHd: omitted(url),
  bannerUrl: deviation(urlOrNull, `${NO_VALUE}: an account without a banner`),
  stats: v.object({ followers: omitted(integer), following: omitted(integer), notes: omitted(integer) }),
  /** is_blue_verified or a legacy verification; null when is_blue_verified (every user object has it) cannot be read. */
  verified: omitted(boolean),
  protected: omitted(boolean),
  /** Whether the account is a professional one (the upstream sends `professional` only for those). */
  professional: boolean,
  /** "Business", "Government", or "Blue" for a paid verification without a type; null when not verified. */
  verifiedType: stringOrNull,
  professionalCategory: stringOrNull,
  /** "Circle", "Square" or "Hexagon". */
  profileImageShape: omitted(string),
  /** Month and year of the account's creation, in English, UTC: "March 2009". */
  joined: omitted(joined),
});
export type Profile = v.InferOutput<typeof Profile>;
export const ProfileData = v.object({ profile: Profile });
export type ProfileData = v.InferOutput<typeof ProfileData>;

// ---- Note --------------------------------------------------------------------------------------

/** One picture, video or animated GIF. */
export const Media = v.object({
  type: v.picklist(['photo', 'video', 'gif']),
  /** The picture; for a video or GIF the best MP4 (the HLS playlist when there is no MP4). */
  url,
  /** The picture, or the video's still frame. */
  previewUrl: url,
  width: integerOrNull,
  height: integerOrNull,
  /** Videos only; null for photos and GIFs. */
  durationMs: integerOrNull,
  /** Every rendition of a video or GIF (HLS playlists have no bitrate); [] for photos. */
  variants: v.array(v.object({ url, bitrate: integerOrNull, contentType: string })),
  altText: stringOrNull,
});
export type Media = v.InferOutput<typeof Media>;

/** A community note shown under the note (`birdwatch_pivot`). */
export const CommunityNote = v.object({
  id: stringOrNull,
  title: stringOrNull,
  text: string,
  /** Links inside `text` (character offsets, end exclusive). */
  links: v.array(v.object({ fromIndex: integer, toIndex: integer, url })),
  destinationUrl: urlOrNull,
});

/** Who may reply, when the author limited it ("ByInvitation", "Community", "Verified", "Subscribers", …). */
export const ConversationControl = v.object({ policy: string, ownerScreenName: stringOrNull });

export const Place = v.object({ id: string, name: stringOrNull, fullName: stringOrNull, type: stringOrNull, country: stringOrNull, countryCode: stringOrNull });

export const Article = v.object({
  id: string,
  title: string,
  previewText: string,
  coverImage: v.object({
    url: deviation(urlOrNull, `${NO_VALUE}: an article without a cover image`),
    width: deviation(integerOrNull, `${NO_VALUE}: an article without a cover image`),
    height: deviation(integerOrNull, `${NO_VALUE}: an article without a cover image`),
  }),
  /** Logged out the upstream usually gives only the preview: then null. */
  fullText: stringOrNull,
  /** The upstream article object, passed through. */
  raw: v.looseObject({}),
});

export const Card = v.object({
  /** The upstream card object (`name`, `url`, `binding_values`, …), passed through. */
  legacy: v.nullable(v.looseObject({ name: string })),
  id: string,
});

const noteFields = {
  id: digits,
  url,
  /** Long-form notes in full. */
  text: string,
  isLongForm: boolean,
  lang: stringOrNull,
  createdAtMs: omitted(integer),
  createdAt: omitted(dateTime),
  counts: v.object({ likes: omitted(integer), reposts: omitted(integer), replies: omitted(integer), bookmarks: omitted(integer), quotes: integerOrNull }),
  views: deviation(v.nullable(digits), `${NO_VALUE}: the upstream shows no view count for older notes`),
  media: v.array(Media),
  mentions: v.array(v.object({ screenName: string, id: digits, indices: v.tuple([integer, integer]) })),
  /** t.co links with what they stand for; an entity the upstream sends without either is left out. */
  urls: v.array(v.object({ url: string, expandedUrl: string, displayUrl: string })),
  /** Tag texts without the # / $. */
  hashtags: v.array(string),
  cashtags: v.array(string),
  card: v.nullable(Card),
  communityNote: v.nullable(CommunityNote),
  article: v.nullable(Article),
  isReply: boolean,
  isQuote: boolean,
  replyToNoteId: stringOrNull,
  replyToUserId: stringOrNull,
  quotedNoteId: stringOrNull,
  possiblySensitive: booleanOrNull,
  conversationControl: v.nullable(ConversationControl),
  /** Ids of every version of the note, oldest first; null when the upstream gives no edit history. */
  editNoteIds: v.nullable(v.array(digits)),
  place: v.nullable(Place),
};

// The author's fields are named like the profile's; their types are the profile table's.
export const NoteAuthor = v.object({
  id: digits,
  name: omitted(string),
  screenName: string,
  url,
  bio: stringOrNull,
  avatarUrl: omitted(url),
  avatarUrlHd: omitted(url),
  followers: omitted(integer),
  following: omitted(integer),
  noteCount: omitted(integer),
  verified: omitted(boolean),
  verifiedType: deviation(stringOrNull, 'null for an account that is not verified, as the profile\'s `verifiedType`, which the spec makes nullable (its author table does not repeat it)'),
  protected: omitted(boolean),
  profileImageShape: omitted(string),
  professionalCategory: deviation(stringOrNull, 'null for an account that is not a professional one, as the profile\'s `professionalCategory`, which the spec makes nullable (its author table does not repeat it)'),
});
export type NoteAuthor = v.InferOutput<typeof NoteAuthor>;

/** A quoted note: the same fields, one level deep (its own quote is named by `quotedNoteId` only). */
export const QuotedUserNote = v.object({ ...noteFields, quotedNote: v.null() });
export const QuotedThreadNote = v.object({ ...noteFields, author: NoteAuthor, quotedNote: v.null() });

/** A note in `/user-notes`: no author, `isPinned` present. */
export const UserNote = v.object({ ...noteFields, quotedNote: v.nullable(QuotedUserNote), isPinned: boolean });
/** A note in `/note` (full form): with its author. */
export const ThreadNote = v.object({ ...noteFields, author: NoteAuthor, quotedNote: v.nullable(QuotedThreadNote) });
export type UserNote = v.InferOutput<typeof UserNote>;
export type ThreadNote = v.InferOutput<typeof ThreadNote>;
export type QuotedNote = v.InferOutput<typeof QuotedUserNote>;

/**
 * The trim=true form (strict: nothing else). Media is reduced to `{type, url}` (url as in Media).
 */
const trimmedFields = {
  id: digits,
  url,
  text: string,
  createdAt: noteFields.createdAt,
  createdAtMs: noteFields.createdAtMs,
  counts: noteFields.counts,
  views: noteFields.views,
  isReply: boolean,
  isQuote: boolean,
  lang: stringOrNull,
  media: v.array(v.strictObject({ type: Media.entries.type, url })),
};
export const TrimmedUserNote = v.strictObject({ ...trimmedFields, isPinned: boolean });
export const TrimmedNote = v.strictObject(trimmedFields);
export type TrimmedUserNote = v.InferOutput<typeof TrimmedUserNote>;
export type TrimmedNote = v.InferOutput<typeof TrimmedNote>;
/** The fields trim=true keeps (README and tests read this list). */
export const TRIMMED_FIELDS = Object.keys(trimmedFields);

export const UserNotesData = v.object({
  notes: v.union([v.array(UserNote), v.array(TrimmedUserNote)]),
  /** The number of notes returned. */
  noteCount: integer,
});
export type UserNotesData = v.InferOutput<typeof UserNotesData>;

/** Full form: focalNote, replies, replyCount. trim=true: the trimmed focalNote only (replies and replyCount absent). */
export const NoteData = v.object({
  focalNote: v.union([ThreadNote, TrimmedNote]),
  replies: v.optional(v.array(ThreadNote)),
  /** The focal note's reply count (`counts.replies`): null with it. */
  replyCount: v.optional(omitted(integer)),
});
export type NoteData = v.InferOutput<typeof NoteData>;

// ---- required values (issue 31) --------------------------------------------------------------------

const USER_MAP = 'research note upstream-microblog-b.md §5 (User: id rest_id / legacy.id_str, screenName core.screen_name / legacy.screen_name; url is built from it)';
const NOTE_MAP = 'research note upstream-microblog-b.md §5 (Note: id result.rest_id / L.id_str; the url is built from the author\'s screen name and the id)';
const NOTE_ID = { id: 'rest_id | legacy.id_str | id_str' };
const AUTHOR = {
  'author.id': 'core.user_results.result.rest_id | core.user_results.result.legacy.id_str | legacy.user_id_str',
  'author.screenName': 'core.user_results.result.core.screen_name | core.user_results.result.legacy.screen_name',
};
/** Operation 3: the profile is the user; its id and screen name (the profile URL) identify it. */
export const PROFILE_REQUIRED: readonly RequiredValues[] = [
  required('profile', 'profile', { id: 'rest_id | legacy.id_str', screenName: 'core.screen_name | legacy.screen_name', url: 'core.screen_name | legacy.screen_name' }, USER_MAP),
];
/** Operation 10: the user's id (the timeline is asked by id), then each note's id. A quoted note without its id is left out (null). */
export const USER_NOTES_REQUIRED: readonly RequiredValues[] = [
  required('user', '(the account looked up)', { '(the timeline is asked by) id': 'rest_id | legacy.id_str' }, USER_MAP),
  required('note', 'notes[]', NOTE_ID, NOTE_MAP),
];
/**
 * Operation 12: the focal note and each reply, with their author (the spec makes the author part of
 * a /note result; the research: "Rarely missing: then L.user_id_str"). A reply lacking one is left
 * out and counted; a quoted note is left out (null).
 */
export const NOTE_REQUIRED: readonly RequiredValues[] = [
  required('note', 'focalNote', { ...NOTE_ID, ...AUTHOR }, `${NOTE_MAP}; author: ${USER_MAP}`),
  required('reply', 'replies[]', { ...NOTE_ID, ...AUTHOR }, `${NOTE_MAP}; author: ${USER_MAP}`),
];
