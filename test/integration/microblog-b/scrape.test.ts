import { ensureTables } from '../../../dev/tables';
import { logger } from '../../../shared/runtime/log';
import { rememberHandle, scrapeNote, scrapeProfile, scrapeUserNotes } from '../../../shared/platforms/microblog-b/scrape';
import type { ThreadNote, UserNote } from '../../../shared/platforms/microblog-b/resources';
import { ScrapeContext } from '../../../shared/scrape/http';
import { FakeUpstream, fixture } from '../../../dev/upstream/fake';
import { coldMicroblogB, gqlPath, microblogBRoutes, type FakeGuestTokens } from '../../../dev/upstream/microblog-b';
import { rejection } from '../../support/rejection';

/** The three operations' orchestration: which upstream calls, in how many round trips, in which order. */
const fake = new FakeUpstream();
let tokens: FakeGuestTokens;
const USER = gqlPath('UserByScreenName');
const NOTES = gqlPath('UserTweets');
const NOTE = gqlPath('TweetResultByRestId');
const DETAIL = gqlPath('TweetDetail');
const FOCAL = '2010000000000001000';
const noteUrl = { noteId: FOCAL };

/** Runs a scraper with a warm token, and returns its result with the GraphQL paths it called. */
async function run<T>(f: (ctx: ScrapeContext) => Promise<T>): Promise<{ result: T; paths: string[]; calls: number }> {
  await scrapeProfile({ handle: 'warmup' }, ScrapeContext.withBudget(5000), logger).catch(() => undefined);
  fake.requests.length = 0;
  const ctx = ScrapeContext.withBudget(5000);
  const result = await f(ctx);
  return { result, paths: fake.requests.map((r) => r.path), calls: ctx.upstreamCalls };
}

beforeAll(async () => {
  await ensureTables();
  await fake.start();
  process.env.UPSTREAM_MICROBLOG_B_URL = fake.url;
});
afterAll(() => fake.stop());
beforeEach(async () => {
  fake.reset();
  await coldMicroblogB();
  tokens = microblogBRoutes(fake);
});

describe('user notes', () => {
  const notesOf = (r: { notes: unknown[] }) => r.notes as UserNote[];

  test('unknown handle: UserByScreenName then UserTweets with its id (2 round trips); then 1', async () => {
    const first = await run((ctx) => scrapeUserNotes({ handle: 'harborkite' }, ctx, logger));
    expect(first.paths).toEqual([USER, NOTES]);
    expect(JSON.parse(fake.requestsTo(NOTES)[0]!.query.variables!)).toMatchObject({ userId: '1234567890', count: 100 });
    const again = await run((ctx) => scrapeUserNotes({ handle: 'harborkite' }, ctx, logger));
    expect(again.paths).toEqual([NOTES]);
    expect(again.calls).toBe(1);
  });

  test('a profile lookup teaches the id too', async () => {
    await scrapeProfile({ handle: 'harborkite' }, ScrapeContext.withBudget(5000), logger);
    const r = await run((ctx) => scrapeUserNotes({ handle: 'harborkite' }, ctx, logger));
    expect(r.paths).toEqual([NOTES]);
  });

  test('order: the pinned note first, then newest to oldest; each note once; noteCount', async () => {
    const { result } = await run((ctx) => scrapeUserNotes({ handle: 'harborkite' }, ctx, logger));
    const notes = notesOf(result);
    expect(notes[0]).toMatchObject({ id: '1934000000000000100', isPinned: true });
    expect(notes.filter((n) => n.isPinned)).toHaveLength(1);
    const rest = notes.slice(1).map((n) => n.createdAtMs!);
    expect(rest).toEqual([...rest].sort((a, b) => b - a));
    expect(new Set(notes.map((n) => n.id)).size).toBe(notes.length);
    expect(result.noteCount).toBe(notes.length);
    expect(notes).toHaveLength(10);
    for (const n of notes) expect(n).not.toHaveProperty('author');
  });

  test('trim=true: only the listed fields', async () => {
    const { result } = await run((ctx) => scrapeUserNotes({ handle: 'harborkite', trim: true }, ctx, logger));
    expect(Object.keys(result.notes[0]!).sort()).toEqual(['counts', 'createdAt', 'createdAtMs', 'id', 'isPinned', 'isQuote', 'isReply', 'lang', 'media', 'text', 'url', 'views']);
    expect(result.noteCount).toBe(10);
  });

  test('protected account: 404 after the lookup, no timeline call', async () => {
    fake.on(USER, tokens.guard({ body: fixture('microblog-b/user-protected.json') }));
    const err = await rejection(scrapeUserNotes({ handle: 'quietcove' }, ScrapeContext.withBudget(5000), logger), 'NOT_FOUND');
    expect(err.message).toMatch(/protected/);
    expect(fake.requestsTo(NOTES)).toHaveLength(0);
  });

  test.each([['user-suspended'], ['user-not-found']])('%s: 404', async (name) => {
    fake.on(USER, tokens.guard({ body: fixture(`microblog-b/${name}.json`) }));
    await rejection(scrapeUserNotes({ handle: 'gone' }, ScrapeContext.withBudget(5000), logger), 'NOT_FOUND');
  });

  test('a known handle that now names another account (its timeline names another owner) is looked up again', async () => {
    rememberHandle('oldname', '1234567890'); // learnt before the rename; the timeline of 1234567890 is HarborKite's
    fake.on(USER, tokens.guard({ body: fixture('microblog-b/user-legacy.json') })); // 'oldname' is now tidewren's
    fake.on(NOTES, tokens.guard((req) => ({ body: fixture(JSON.parse(req.query.variables!).userId === '1234567890' ? 'microblog-b/user-notes.json' : 'microblog-b/user-notes-empty.json') })));
    const r = await run((ctx) => scrapeUserNotes({ handle: 'oldname' }, ctx, logger));
    expect(r.paths).toEqual([NOTES, USER, NOTES]);
    expect(JSON.parse(fake.requestsTo(NOTES)[1]!.query.variables!).userId).toBe('1019876543210987654');
    expect(r.result.notes).toEqual([]);
    // Now known as the new account: one call.
    const again = await run((ctx) => scrapeUserNotes({ handle: 'oldname' }, ctx, logger));
    expect(again.paths).toEqual([NOTES]);
  });

  test('a known id whose account is gone: looked up again, then 404', async () => {
    rememberHandle('harborkite', '1234567890');
    fake.on(NOTES, tokens.guard({ body: fixture('microblog-b/user-notes-suspended.json') }));
    fake.on(USER, tokens.guard({ body: fixture('microblog-b/user-suspended.json') }));
    await scrapeProfile({ handle: 'warmup' }, ScrapeContext.withBudget(5000), logger).catch(() => undefined);
    fake.requests.length = 0;
    await rejection(scrapeUserNotes({ handle: 'harborkite' }, ScrapeContext.withBudget(5000), logger), 'NOT_FOUND');
    expect(fake.requests.map((r) => r.path)).toEqual([NOTES, USER]);
  });
});

describe('note', () => {
  test('focal (TweetResultByRestId) and replies (TweetDetail) go out together: one round trip', async () => {
    // Each answer is held 150 ms: both requests must have arrived before the first answer left.
    const arrived: Record<string, number> = {};
    const held = (name: string, body: unknown) => tokens.guard(() => ((arrived[name] = Date.now()), { body, delayMs: 150 }));
    fake.on(NOTE, held('note', fixture('microblog-b/note.json')));
    fake.on(DETAIL, held('detail', fixture('microblog-b/conversation.json')));
    const { result, paths } = await run((ctx) => scrapeNote({ url: noteUrl }, ctx, logger));
    expect(Math.abs(arrived.note! - arrived.detail!)).toBeLessThan(150);
    expect(paths.sort()).toEqual([DETAIL, NOTE].sort());
    const focal = result.focalNote as ThreadNote;
    expect(focal).toMatchObject({ id: FOCAL, author: { screenName: 'tidewren' } });
    expect(result.replies!.map((r) => r.id)).toEqual(['2010000000000001201', '2010000000000001101', '2010000000000001301']);
    expect(result.replyCount).toBe(240);
    expect(JSON.parse(fake.requestsTo(DETAIL)[0]!.query.variables!)).toMatchObject({ focalTweetId: FOCAL });
    expect(JSON.parse(fake.requestsTo(NOTE)[0]!.query.variables!)).toMatchObject({ tweetId: FOCAL, withBirdwatchNotes: true });
  });

  test('trim=true: one call, the essential fields, no replies and no replyCount', async () => {
    const { result, paths } = await run((ctx) => scrapeNote({ url: noteUrl, trim: true }, ctx, logger));
    expect(paths).toEqual([NOTE]);
    expect(Object.keys(result).sort()).toEqual(['focalNote']);
    expect(result.focalNote).not.toHaveProperty('author');
  });

  test.each([
    ['Denied by access control', { status: 200, body: fixture('microblog-b/error-denied.json') }],
    ['a 401 (no token churn)', { status: 401, body: { errors: [{ code: 32, message: 'Could not authenticate you.' }] } }],
    ['a 403', { status: 403, body: { errors: [{ code: 200, message: 'Forbidden.' }] } }],
    ['an empty answer', { status: 200, body: { data: {} } }],
    ['"No status found"', { status: 200, body: fixture('microblog-b/error-not-found-144.json') }],
    ['429', { status: 429, body: fixture('microblog-b/error-rate-limit.json'), headers: { 'x-rate-limit-remaining': '0' } }],
  ])('replies refused by the guest view (%s): the focal note with replies []', async (_name, reply) => {
    fake.on(DETAIL, tokens.guard(reply));
    const before = tokens.issued.length;
    const { result } = await run((ctx) => scrapeNote({ url: noteUrl }, ctx, logger));
    expect(result.focalNote.id).toBe(FOCAL);
    expect(result.replies).toEqual([]);
    expect(result.replyCount).toBe(240);
    expect(tokens.issued.length - before).toBeLessThanOrEqual(1); // only the warm-up may activate
  });

  test('the focal note decides: its 404 wins over the replies, its block is a 503', async () => {
    fake.on(NOTE, tokens.guard({ body: fixture('microblog-b/note-tombstone.json') }));
    await rejection(scrapeNote({ url: noteUrl }, ScrapeContext.withBudget(5000), logger), 'NOT_FOUND');
    fake.on(NOTE, tokens.guard({ status: 429, body: fixture('microblog-b/error-rate-limit.json') }));
    await rejection(scrapeNote({ url: noteUrl }, ScrapeContext.withBudget(5000), logger), 'UPSTREAM_BLOCKED');
  });
});
