import * as v from 'valibot';
import { bool, dateTime, deviation, digits, int, nbool, nint, nstr, str } from '../../scrape/resource';

/**
 * microblog-b: the spec's Profile and Note resources as valibot schemas (conventions in
 * shared/scrape/resource.ts). The operation table names ProfileData, UserNotesData and NoteData as
 * the `data` of operations 3, 10 and 12; the mappers (map.ts) return these types, and the contract
 * tests validate every response against them.
 *
 * Shapes the spec leaves open, chosen here (README, "microblog-b"): `media[]`, `communityNote`,
 * `conversationControl`, `place`, `editNoteIds`, `quotedNote`, `card.legacy`, and the trim=true form.
 */
const NO_VALUE = 'null where the upstream has no value to give, rather than an invented one';
const url = v.pipe(v.string(), v.url('Must be a URL'));
const nurl = v.nullable(url);

// ---- Profile -----------------------------------------------------------------------------------

export const Website = v.object({
  /** The t.co link the profile shows. */
  url: deviation(nurl, `${NO_VALUE}: an account without a website`),
  displayUrl: deviation(nstr, `${NO_VALUE}: an account without a website`),
  expandedUrl: deviation(nurl, `${NO_VALUE}: an account without a website`),
});

export const Profile = v.object({
  id: digits,
  name: str,
  screenName: str,
  url,
  /** The bio with its t.co links expanded; "" when empty. */
  bio: str,
  /** "" when the account gives none. */
  location: str,
  website: Website,
  avatarUrl: url,
  /** The full-size image (the `_normal` size suffix removed). */
  avatarUrlHd: url,
  bannerUrl: deviation(nurl, `${NO_VALUE}: an account without a banner`),
  stats: v.object({ followers: int, following: int, notes: int }),
  verified: bool,
  protected: bool,
  professional: bool,
  /** "Business", "Government", or "Blue" for a paid verification without a type; null when not verified. */
  verifiedType: nstr,
  professionalCategory: nstr,
  /** "Circle", "Square" or "Hexagon". */
  profileImageShape: str,
  /** Month and year of the account's creation, in English, UTC: "March 2009". */
  joined: v.pipe(v.string(), v.regex(/^[A-Z][a-z]+ \d{4}$/, 'Must be a month and a year, e.g. "March 2009"')),
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
  width: nint,
  height: nint,
  /** Videos only; null for photos and GIFs. */
  durationMs: nint,
  /** Every rendition of a video or GIF (HLS playlists have no bitrate); [] for photos. */
  variants: v.array(v.object({ url, bitrate: nint, contentType: str })),
  altText: nstr,
});
export type Media = v.InferOutput<typeof Media>;

/** A community note shown under the note (`birdwatch_pivot`). */
export const CommunityNote = v.object({
  id: nstr,
  title: nstr,
  text: str,
  /** Links inside `text` (character offsets, end exclusive). */
  links: v.array(v.object({ fromIndex: int, toIndex: int, url })),
  destinationUrl: nurl,
});

/** Who may reply, when the author limited it ("ByInvitation", "Community", "Verified", "Subscribers", …). */
export const ConversationControl = v.object({ policy: str, ownerScreenName: nstr });

export const Place = v.object({ id: str, name: nstr, fullName: nstr, type: nstr, country: nstr, countryCode: nstr });

export const Article = v.object({
  id: str,
  title: str,
  previewText: str,
  coverImage: v.object({
    url: deviation(nurl, `${NO_VALUE}: an article without a cover image`),
    width: deviation(nint, `${NO_VALUE}: an article without a cover image`),
    height: deviation(nint, `${NO_VALUE}: an article without a cover image`),
  }),
  /** Logged out the upstream usually gives only the preview: then null. */
  fullText: nstr,
  /** The upstream article object, passed through. */
  raw: v.looseObject({}),
});

export const Card = v.object({
  /** The upstream card object (`name`, `url`, `binding_values`, …), passed through. */
  legacy: v.nullable(v.looseObject({ name: str })),
  id: str,
});

const noteFields = {
  id: digits,
  url,
  /** Long-form notes in full. */
  text: str,
  isLongForm: bool,
  lang: nstr,
  createdAtMs: int,
  createdAt: dateTime,
  counts: v.object({ likes: int, reposts: int, replies: int, bookmarks: int, quotes: nint }),
  views: deviation(v.nullable(digits), `${NO_VALUE}: the upstream shows no view count for older notes`),
  media: v.array(Media),
  mentions: v.array(v.object({ screenName: str, id: digits, indices: v.tuple([int, int]) })),
  /** t.co links with what they stand for; an entity the upstream sends without either is left out. */
  urls: v.array(v.object({ url: str, expandedUrl: str, displayUrl: str })),
  /** Tag texts without the # / $. */
  hashtags: v.array(str),
  cashtags: v.array(str),
  card: v.nullable(Card),
  communityNote: v.nullable(CommunityNote),
  article: v.nullable(Article),
  isReply: bool,
  isQuote: bool,
  replyToNoteId: nstr,
  replyToUserId: nstr,
  quotedNoteId: nstr,
  possiblySensitive: nbool,
  conversationControl: v.nullable(ConversationControl),
  /** Ids of every version of the note, oldest first; null when the upstream gives no edit history. */
  editNoteIds: v.nullable(v.array(digits)),
  place: v.nullable(Place),
};

// The author's fields are named like the profile's; their types are the profile table's.
export const NoteAuthor = v.object({
  id: digits,
  name: str,
  screenName: str,
  url,
  bio: nstr,
  avatarUrl: url,
  avatarUrlHd: url,
  followers: int,
  following: int,
  noteCount: int,
  verified: bool,
  verifiedType: deviation(nstr, 'null for an account that is not verified, as the profile\'s `verifiedType`, which the spec makes nullable (its author table does not repeat it)'),
  protected: bool,
  profileImageShape: str,
  professionalCategory: deviation(nstr, 'null for an account that is not a professional one, as the profile\'s `professionalCategory`, which the spec makes nullable (its author table does not repeat it)'),
});
export type NoteAuthor = v.InferOutput<typeof NoteAuthor>;

/** A quoted note: the same fields, one level deep (its own quote is named by `quotedNoteId` only). */
export const QuotedUserNote = v.object({ ...noteFields, quotedNote: v.null() });
export const QuotedThreadNote = v.object({ ...noteFields, author: NoteAuthor, quotedNote: v.null() });

/** A note in `/user-notes`: no author, `isPinned` present. */
export const UserNote = v.object({ ...noteFields, quotedNote: v.nullable(QuotedUserNote), isPinned: bool });
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
  text: str,
  createdAt: dateTime,
  createdAtMs: int,
  counts: noteFields.counts,
  views: noteFields.views,
  isReply: bool,
  isQuote: bool,
  lang: nstr,
  media: v.array(v.strictObject({ type: Media.entries.type, url })),
};
export const TrimmedUserNote = v.strictObject({ ...trimmedFields, isPinned: bool });
export const TrimmedNote = v.strictObject(trimmedFields);
export type TrimmedUserNote = v.InferOutput<typeof TrimmedUserNote>;
export type TrimmedNote = v.InferOutput<typeof TrimmedNote>;
/** The fields trim=true keeps (README and tests read this list). */
export const TRIMMED_FIELDS = Object.keys(trimmedFields);

export const UserNotesData = v.object({
  notes: v.union([v.array(UserNote), v.array(TrimmedUserNote)]),
  /** The number of notes returned. */
  noteCount: int,
});
export type UserNotesData = v.InferOutput<typeof UserNotesData>;

/** Full form: focalNote, replies, replyCount. trim=true: the trimmed focalNote only (replies and replyCount absent). */
export const NoteData = v.object({
  focalNote: v.union([ThreadNote, TrimmedNote]),
  replies: v.optional(v.array(ThreadNote)),
  replyCount: v.optional(int),
});
export type NoteData = v.InferOutput<typeof NoteData>;
