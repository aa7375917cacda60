import * as resources from '../platforms/microblog-b/resources';
import * as site from '../platforms/microblog-b/site';
import { NO_400, type Operation } from './entry';

/** The table's entries of microblog-b (shared/operations.ts lists them; shared/operations/entry.ts says what an entry holds). */
export const profile = {
  id: 'microblog-b-profile',
  path: '/v1/microblog-b/profile',
  params: { handle: { schema: site.handleParam, required: true, description: 'Handle (1-15 letters, digits, _), @handle, or profile URL on x.com / twitter.com', example: 'nasa' } },
  number: 3,
  platform: 'microblog-b',
  summary: 'Profile information, stats and metadata (no posts).',
  data: resources.ProfileData,
  required: resources.PROFILE_REQUIRED,
  responses: NO_400,
  status: 'live',
  parsesHtml: false,
} as const satisfies Operation;

export const userNotes = {
  id: 'microblog-b-user-notes',
  path: '/v1/microblog-b/user-notes',
  params: {
    handle: { schema: site.handleParam, required: true, description: 'Handle (1-15 letters, digits, _), @handle, or profile URL on x.com / twitter.com', example: 'nasa' },
    trim: { schema: site.trimParam, description: 'true or false (default): true keeps only the essential fields of each note (id, url, text, dates, counts, views, flags, lang, media URLs)' },
  },
  number: 10,
  platform: 'microblog-b',
  summary: 'The notes shown on the initial profile load: pinned first, then newest to oldest.',
  data: resources.UserNotesData,
  required: resources.USER_NOTES_REQUIRED,
  responses: NO_400,
  status: 'live',
  parsesHtml: false,
} as const satisfies Operation;

export const note = {
  id: 'microblog-b-note',
  path: '/v1/microblog-b/note',
  params: {
    url: { schema: site.noteUrlParam, required: true, description: 'Note permalink on x.com / twitter.com: https://x.com/<handle>/status/<id>', example: 'https://x.com/nasa/status/1841206275088290279' },
    trim: { schema: site.trimParam, description: 'true or false (default): true returns only the focal note with the essential fields, in one upstream call' },
  },
  number: 12,
  platform: 'microblog-b',
  summary: 'A note with its reply thread.',
  data: resources.NoteData,
  required: resources.NOTE_REQUIRED,
  responses: [200, 401, 402, 422, 429, 503],
  // Common rule 5 (deleted, tombstoned, withheld or protected -> 404) applies; the spec's list for op 12 omits it.
  alsoAnswers: [404],
  status: 'live',
  parsesHtml: false,
} as const satisfies Operation;
