import * as v from 'valibot';
import { ApiError } from '../../../shared/http/errors';
import {
  directReplies, focalNoteOf, fullSizeAvatar, mapAuthor, mapProfile, mapThreadNote, mapUserNote, monthYear, trimNote, trimUserNote, userIdentity, userOf, userTimeline,
} from '../../../shared/platforms/microblog-b/map';
import * as R from '../../../shared/platforms/microblog-b/resources';
import { fixture } from '../../../dev/upstream/fake';

/** The pure mappers on crafted fixtures (shapes from the recorded samples; names, ids and texts invented). */

const f = (name: string) => fixture(`microblog-b/${name}.json`);
function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
  throw new Error('expected an ApiError');
}
const valid = <S extends v.GenericSchema>(schema: S, value: unknown) => {
  const r = v.safeParse(schema, value);
  if (!r.success) throw new Error(r.issues.map((i) => `${v.getDotPath(i)}: ${i.message}`).join('\n'));
};

describe('profile', () => {
  test('2026 user schema: every field', () => {
    const p = mapProfile(userOf(f('user-2026')));
    valid(R.Profile, p);
    expect(p).toEqual({
      id: '1234567890',
      name: 'Harbor Kite Observatory',
      screenName: 'HarborKite',
      url: 'https://x.com/HarborKite',
      bio: 'Tide tables, coastal weather and the odd lighthouse. Data: https://tides.example.org/data & more',
      location: 'Lisbon, Portugal',
      website: { url: 'https://t.co/Zx9Yw8Vu7T', displayUrl: 'harborkite.example', expandedUrl: 'https://harborkite.example/' },
      avatarUrl: 'https://pbs.twimg.com/profile_images/1700000000000000890/Qk7rT2pa_normal.jpg',
      avatarUrlHd: 'https://pbs.twimg.com/profile_images/1700000000000000890/Qk7rT2pa.jpg',
      bannerUrl: 'https://pbs.twimg.com/profile_banners/1234567890/1771234567',
      stats: { followers: 48213, following: 311, notes: 4120 },
      verified: true,
      protected: false,
      professional: true,
      verifiedType: 'Business',
      professionalCategory: 'Science & Nature',
      profileImageShape: 'Square',
      joined: 'March 2009',
    });
  });

  test('legacy user schema: the same fields from legacy.*; absent website and banner are null, empty location ""', () => {
    const p = mapProfile(userOf(f('user-legacy')));
    valid(R.Profile, p);
    expect(p).toMatchObject({
      id: '1019876543210987654',
      name: 'Tide Wren',
      screenName: 'tidewren',
      bio: 'Birdsong recordings from the estuary. Mostly waders.',
      location: '',
      website: { url: null, displayUrl: null, expandedUrl: null },
      avatarUrlHd: 'https://pbs.twimg.com/profile_images/1800000000000000654/Wq3eRt5y.png',
      bannerUrl: null,
      stats: { followers: 1930, following: 402, notes: 7004 },
      verified: false,
      verifiedType: null,
      protected: false,
      professional: false,
      professionalCategory: null,
      profileImageShape: 'Circle',
      joined: 'July 2018',
    });
  });

  test('legacy schema: a public account has no protected key at all, which reads false (profile, note author, identity)', () => {
    // The older schema leaves `protected` out for a public account (three recorded captures); this
    // read null before.
    const u = userOf(f('user-legacy-public'));
    expect((u as { legacy: Record<string, unknown> }).legacy).not.toHaveProperty('protected');
    expect(mapProfile(u)).toMatchObject({ screenName: 'saltmarshlog', protected: false });
    expect(mapAuthor(u)).toMatchObject({ screenName: 'saltmarshlog', protected: false });
    expect(userIdentity(u).protected).toBe(false);
  });

  test('protected: a value in another form, or a user object with neither schema, is null (not known)', () => {
    const u = userOf(f('user-legacy-public')) as { legacy: Record<string, unknown>; privacy?: unknown };
    expect(mapProfile({ ...u, legacy: { ...u.legacy, protected: 'maybe' } }).protected).toBeNull();
    const { legacy, ...rest } = u;
    expect(mapAuthor({ ...rest, core: { screen_name: legacy.screen_name } }).protected).toBeNull();
    expect(mapAuthor({ ...rest, core: { screen_name: legacy.screen_name }, privacy: { protected: false } }).protected).toBe(false);
  });

  test('a protected account is a profile with protected: true', () => {
    expect(mapProfile(userOf(f('user-protected')))).toMatchObject({ screenName: 'quietcove', protected: true });
  });

  test('unknown and suspended accounts are 404; an answer without data is EXTRACTION_FAILED', () => {
    expect(thrown(() => userOf(f('user-not-found'))).code).toBe('NOT_FOUND');
    expect(thrown(() => userOf({ data: { user: {} } })).code).toBe('NOT_FOUND');
    expect(thrown(() => userOf(f('user-suspended'))).code).toBe('NOT_FOUND');
    expect(thrown(() => userOf({ errors: [{ message: 'x' }] })).code).toBe('EXTRACTION_FAILED');
  });

  test('a changed user shape is EXTRACTION_FAILED naming the missing field', () => {
    const u = structuredClone(f('user-2026')) as { data: { user: { result: { core: Record<string, unknown> } } } };
    delete u.data.user.result.core.screen_name;
    expect(thrown(() => mapProfile(userOf(u))).internal).toMatch(/screen name/);
  });

  test('helpers: month and year in UTC, full-size avatar', () => {
    expect(monthYear('Sat Dec 14 04:35:55 +0000 2013')).toBe('December 2013');
    expect(monthYear('Thu Jan 01 00:30:00 +0100 2015')).toBe('December 2014');
    expect(monthYear('garbage')).toBeNull();
    expect(fullSizeAvatar('https://pbs.twimg.com/profile_images/1/a_bigger.jpg')).toBe('https://pbs.twimg.com/profile_images/1/a.jpg');
  });
});

describe('user notes timeline', () => {
  const items = userTimeline(f('user-notes'));
  const notes = items.map((i) => mapUserNote(i.note, i.pinned));
  const byId = (id: string) => {
    const n = notes.find((x) => x.id === id);
    if (!n) throw new Error(`no note ${id}`);
    return n;
  };

  test('reads the pin entry, single notes, self-thread modules and visibility-wrapped notes; skips tombstones, who-to-follow and cursors', () => {
    for (const n of notes) valid(R.UserNote, n);
    expect(new Set(notes.map((n) => n.id))).toEqual(
      new Set(['1934000000000000100', '1980000000000000500', '1990000000000000600', '1960000000000000300', '1950000000000000200', '2000000000000000800', '2000000000000000801', '1100000000000000700', '1970000000000000400', '1940000000000000900']),
    );
    expect(items.filter((i) => i.pinned).map((i) => i.note.rest_id)).toEqual(['1934000000000000100']);
  });

  test('a repost is its original (the original author in the URL), the owner is the reposter', () => {
    const item = items.find((i) => i.note.rest_id === '1980000000000000500')!;
    expect(item.ownerScreenName).toBe('HarborKite');
    const n = byId('1980000000000000500');
    expect(n).toMatchObject({ url: 'https://x.com/saltmarsh_ana/status/1980000000000000500', text: 'Counted 412 godwits on the mudflat this morning', counts: { likes: 8800, reposts: 1200 } });
    expect(n.media).toEqual([{ type: 'gif', url: 'https://video.twimg.com/tweet_video/Gf90005.mp4', previewUrl: expect.stringContaining('ext_tw_video_thumb'), width: 1920, height: 1080, durationMs: null, variants: [{ url: 'https://video.twimg.com/tweet_video/Gf90005.mp4', bitrate: 0, contentType: 'video/mp4' }], altText: null }]);
  });

  test('pinned photo note: media, alt text, hashtags, the media link dropped from the text', () => {
    const n = byId('1934000000000000100');
    expect(n).toMatchObject({ isPinned: true, text: 'Spring tide tonight at 21:40 #tides', hashtags: ['tides'], views: '901234', createdAt: '2025-06-11T19:02:00.000Z', createdAtMs: Date.UTC(2025, 5, 11, 19, 2) });
    expect(n.media).toEqual([expect.objectContaining({ type: 'photo', url: 'https://pbs.twimg.com/media/Gk990001Aa.jpg', width: 2048, height: 1365, altText: 'A lighthouse at dusk', variants: [] })]);
  });

  test('video note: best MP4 first, every variant kept, duration', () => {
    const m = byId('1950000000000000200').media[0]!;
    expect(m).toMatchObject({ type: 'video', url: expect.stringContaining('1280x720'), durationMs: 29626 });
    expect(m.variants).toHaveLength(4);
    expect(m.variants[0]).toMatchObject({ contentType: 'application/x-mpegURL', bitrate: null });
  });

  test('quote note: quotedNoteId and the quoted note one level deep, without author', () => {
    const n = byId('1990000000000000600');
    expect(n).toMatchObject({ isQuote: true, quotedNoteId: '1980000000000000500', urls: [{ url: 'https://t.co/Qu0te00006', expandedUrl: 'https://x.com/saltmarsh_ana/status/1980000000000000500', displayUrl: 'x.com/saltmarsh_ana/…' }] });
    expect(n.quotedNote).toMatchObject({ id: '1980000000000000500', quotedNote: null, url: 'https://x.com/saltmarsh_ana/status/1980000000000000500' });
    expect(n.quotedNote).not.toHaveProperty('author');
  });

  test('a URL entity without what it stands for is left out: expandedUrl and displayUrl are never null', () => {
    const raw = structuredClone(items.find((i) => i.note.rest_id === '1990000000000000600')!.note) as { legacy: { entities: { urls: Record<string, unknown>[] } } };
    delete raw.legacy.entities.urls[0]!.expanded_url;
    expect(mapUserNote(raw, false).urls).toEqual([]);
    const noDisplay = structuredClone(items.find((i) => i.note.rest_id === '1990000000000000600')!.note) as typeof raw;
    noDisplay.legacy.entities.urls[0]!.display_url = '';
    expect(mapUserNote(noDisplay, false).urls).toEqual([]);
  });

  test('card note: card {legacy, id}, cashtags, HTML entities unescaped', () => {
    const n = byId('1960000000000000300');
    expect(n.card).toEqual({ id: 'https://t.co/Card000003', legacy: expect.objectContaining({ name: 'summary_large_image', binding_values: expect.any(Array) }) });
    expect(n.cashtags).toEqual(['TIDE']);
    expect(n.text).toContain('for the week & what $TIDE');
  });

  test('long-form note: the whole text, its own mentions', () => {
    const n = byId('1970000000000000400');
    expect(n.isLongForm).toBe(true);
    expect(n.text.length).toBeGreaterThan(500);
    expect(n.text.endsWith('Thanks @saltmarsh_ana for the data.')).toBe(true);
    expect(n.mentions).toEqual([{ screenName: 'saltmarsh_ana', id: '1500000000000000777', indices: [expect.any(Number), expect.any(Number)] }]);
  });

  test('older note: no view count (null), edit history, place, conversation control', () => {
    const n = byId('1100000000000000700');
    expect(n).toMatchObject({
      views: null,
      text: 'First light over the harbour <3',
      editNoteIds: ['1099999999999999999', '1100000000000000700'],
      place: { id: 'a1b2c3d4e5f60718', name: 'Lisbon', fullName: 'Lisbon, Portugal', type: 'city', country: 'Portugal', countryCode: 'PT' },
      conversationControl: { policy: 'Community', ownerScreenName: 'HarborKite' },
    });
  });

  test('self-thread continuation is a reply to the first note', () => {
    expect(byId('2000000000000000801')).toMatchObject({ isReply: true, replyToNoteId: '2000000000000000800', replyToUserId: '1234567890' });
    expect(byId('2000000000000000800')).toMatchObject({ isReply: false, replyToNoteId: null });
  });

  test('trim keeps exactly the listed fields, media as {type, url}', () => {
    const t = trimUserNote(byId('1950000000000000200'));
    valid(R.TrimmedUserNote, t);
    expect(Object.keys(t).sort()).toEqual([...R.TRIMMED_FIELDS, 'isPinned'].sort());
    expect(t.media).toEqual([{ type: 'video', url: expect.stringContaining('1280x720') }]);
  });

  test('suspended or unknown owner -> 404; no timeline -> EXTRACTION_FAILED', () => {
    expect(thrown(() => userTimeline(f('user-notes-suspended'))).code).toBe('NOT_FOUND');
    expect(thrown(() => userTimeline({ data: {} })).code).toBe('NOT_FOUND');
    expect(thrown(() => userTimeline({ data: { user: { result: { __typename: 'User' } } } })).code).toBe('EXTRACTION_FAILED');
    expect(userTimeline(f('user-notes-empty'))).toEqual([]);
  });
});

describe('note', () => {
  test('focal note with author (legacy schema), community note, quote with author, two media, conversation control', () => {
    const n = mapThreadNote(focalNoteOf(f('note')));
    valid(R.ThreadNote, n);
    expect(n).toMatchObject({
      id: '2010000000000001000',
      url: 'https://x.com/tidewren/status/2010000000000001000',
      text: 'Storm photos from the estuary tonight @HarborKite',
      counts: { likes: 15200, reposts: 3100, replies: 240, bookmarks: 1200, quotes: 410 },
      views: '2500000',
      mentions: [{ screenName: 'HarborKite', id: '1234567890', indices: [38, 49] }],
      possiblySensitive: false,
      conversationControl: { policy: 'ByInvitation', ownerScreenName: 'tidewren' },
      communityNote: {
        id: '1999000000000000001',
        title: 'Readers added context',
        text: expect.stringContaining('taken in 2019'),
        links: [{ fromIndex: 60, toIndex: 79, url: 'https://t.co/Nt00000001' }],
        destinationUrl: 'https://x.com/i/birdwatch/n/1999000000000000001',
      },
      author: { id: '1019876543210987654', screenName: 'tidewren', noteCount: 7004, followers: 1930, bio: 'Birdsong recordings from the estuary. Mostly waders.', verifiedType: null },
    });
    expect(n.media.map((m) => m.type)).toEqual(['video', 'photo']);
    expect(n.quotedNote).toMatchObject({ id: '1934000000000000100', author: { screenName: 'HarborKite', verifiedType: 'Business' }, quotedNote: null });
  });

  test('article note: id, title, preview, cover, full text from the blocks, raw passed through', () => {
    const n = mapThreadNote(focalNoteOf(f('note-article')));
    valid(R.ThreadNote, n);
    expect(n.article).toEqual({
      id: '2020000000000002001',
      title: 'Why tides are rising faster',
      previewText: expect.stringContaining('Sea levels'),
      coverImage: { url: 'https://pbs.twimg.com/media/HaRt1cLe.jpg', width: 1916, height: 766 },
      fullText: 'Sea levels at our gauge rose 4 mm a year.\nHere is what changes for harbours.',
      raw: expect.objectContaining({ rest_id: '2020000000000002001' }),
    });
  });

  test('trimmed focal note', () => {
    const t = trimNote(mapUserNote(focalNoteOf(f('note')), false));
    valid(R.TrimmedNote, t);
    expect(Object.keys(t).sort()).toEqual([...R.TRIMMED_FIELDS].sort());
  });

  test.each([
    ['note-tombstone', undefined],
    ['note-empty', undefined],
    ['note-unavailable-protected', undefined],
    ['note-unavailable-nsfw', /age-restricted/],
  ])('%s -> 404', (name, message) => {
    const err = thrown(() => focalNoteOf(f(name)));
    expect(err.code).toBe('NOT_FOUND');
    if (message) expect(err.message).toMatch(message);
  });

  test('direct replies in upstream order: continuation and tombstone left out, visibility wrapper unwrapped', () => {
    const replies = directReplies(f('conversation'), '2010000000000001000')!.map((t) => mapThreadNote(t));
    for (const r of replies) valid(R.ThreadNote, r);
    expect(replies.map((r) => [r.id, r.author.screenName])).toEqual([
      ['2010000000000001201', 'HarborKite'],
      ['2010000000000001101', 'saltmarsh_ana'],
      ['2010000000000001301', 'saltmarsh_ana'],
    ]);
    expect(directReplies(f('error-denied'), '1')).toBeNull();
  });
});
