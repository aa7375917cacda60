import { ensureTables } from '../../../dev/tables';
import { logger } from '../../../shared/runtime/log';
import { STATIC_QUERY_IDS, fetchUser, guestToken, queryIds, queryIdsIn } from '../../../shared/platforms/microblog-b/client';
import { scrapeProfile } from '../../../shared/platforms/microblog-b/scrape';
import { ScrapeContext } from '../../../shared/scrape/http';
import { startCold } from '../../../shared/scrape/warm';
import { FakeUpstream, fixture, fixtureText } from '../../../dev/upstream/fake';
import {
  ACTIVATE, BUNDLE_QUERY_IDS, FakeGuestTokens, WEB_PAGE, bundleRoutes, coldMicroblogB, gqlPath, microblogBRoutes,
} from '../../../dev/upstream/microblog-b';
import { rejection } from '../../support/rejection';

/**
 * The microblog-b plumbing: the shared guest token (activation, reuse, replacement once when refused,
 * however many requests notice), the query-id table refreshed from the web bundle, and the headers.
 */
const fake = new FakeUpstream();
const ctx = () => ScrapeContext.withBudget(5000);
const profile = (handle = 'harborkite') => scrapeProfile({ handle }, ctx(), logger);
const activations = () => fake.requestsTo(ACTIVATE).length;
const USER = gqlPath('UserByScreenName');

beforeAll(async () => {
  await ensureTables();
  await fake.start();
  process.env.UPSTREAM_MICROBLOG_B_URL = fake.url;
});
afterAll(() => fake.stop());
beforeEach(async () => {
  fake.reset();
  await coldMicroblogB();
});

describe('guest token', () => {
  test('activated once with the public bearer, then reused; the GraphQL call carries token, cookies, csrf and the JSON parameters', async () => {
    const tokens = microblogBRoutes(fake);
    await profile();
    await profile();
    await profile('tidewren');
    expect(activations()).toBe(1);
    const act = fake.requestsTo(ACTIVATE)[0]!;
    expect(act.method).toBe('POST');
    expect(act.headers.authorization).toMatch(/^Bearer AAAAAAAAAAAAAAAAAAAAANRILg/);
    expect(act.headers['user-agent']).toMatch(/Chrome/);
    const calls = fake.requestsTo(USER);
    expect(calls).toHaveLength(3);
    const [call] = calls;
    expect(call!.headers['x-guest-token']).toBe(tokens.issued[0]);
    expect(call!.headers.authorization).toBe(act.headers.authorization);
    const csrf = String(call!.headers['x-csrf-token']);
    expect(csrf).toMatch(/^[0-9a-f]{32}$/);
    expect(call!.headers.cookie).toContain(`gt=${tokens.issued[0]}`);
    expect(call!.headers.cookie).toContain(`ct0=${csrf}`);
    expect(JSON.parse(call!.query.variables!)).toMatchObject({ screen_name: 'harborkite' });
    expect(JSON.parse(call!.query.features!)).toMatchObject({ responsive_web_graphql_timeline_navigation_enabled: true });
    expect(JSON.parse(call!.query.fieldToggles!)).toEqual({ withAuxiliaryUserLabels: true });
  });

  test('"Bad guest token": activated again once and the call retried with the new token', async () => {
    const tokens = microblogBRoutes(fake);
    await profile();
    tokens.refused.add(tokens.issued[0]!);
    const before = fake.requests.length;
    const res = await profile();
    expect(res.profile.screenName).toBe('HarborKite');
    expect(fake.requests.slice(before).map((r) => [r.path, r.headers['x-guest-token'] ?? null])).toEqual([
      [USER, tokens.issued[0]],
      [ACTIVATE, null],
      [USER, tokens.issued[1]],
    ]);
    expect(guestToken.obtained).toBe(2);
  });

  test('20 concurrent requests that find the token refused cause exactly ONE activation', async () => {
    const tokens = microblogBRoutes(fake);
    await profile();
    expect(activations()).toBe(1);
    tokens.refused.add(tokens.issued[0]!);
    // Every request sees the refusal before any replacement exists.
    fake.on(USER, tokens.guard({ body: fixture('microblog-b/user-2026.json'), delayMs: 30 }));
    const results = await Promise.all(Array.from({ length: 20 }, () => profile()));
    expect(results.every((r) => r.profile.id === '1234567890')).toBe(true);
    expect(activations()).toBe(2);
    expect(fake.requestsTo(USER).filter((r) => r.headers['x-guest-token'] === tokens.issued[1])).toHaveLength(20);
  });

  test('20 concurrent requests on a cold container: ONE activation', async () => {
    microblogBRoutes(fake);
    await Promise.all(Array.from({ length: 20 }, () => profile()));
    expect(activations()).toBe(1);
  });

  test('another container reuses the stored token instead of activating its own', async () => {
    const tokens = microblogBRoutes(fake);
    await profile();
    startCold('microblog-b'); // a new container: empty memory, same DynamoDB item
    await profile();
    expect(activations()).toBe(1);
    expect(fake.requestsTo(USER).map((r) => r.headers['x-guest-token'])).toEqual([tokens.issued[0], tokens.issued[0]]);
  });

  test('x-rate-limit-remaining near 0: the answer is used, the token is retired before the next call (one activation)', async () => {
    const tokens = microblogBRoutes(fake);
    fake.on(USER, tokens.guard({ body: fixture('microblog-b/user-2026.json'), headers: { 'x-rate-limit-remaining': '3', 'x-rate-limit-reset': '1999999999' } }));
    expect((await profile()).profile.id).toBe('1234567890');
    await Promise.all([profile(), profile(), profile()]);
    expect(tokens.issued).toHaveLength(2);
    expect(fake.requestsTo(USER).map((r) => r.headers['x-guest-token'])).toEqual([tokens.issued[0], tokens.issued[1], tokens.issued[1], tokens.issued[1]]);
  });

  test('a 401 replaces the token too; a token refused twice in a row is UPSTREAM_BLOCKED (no loop)', async () => {
    const tokens = microblogBRoutes(fake);
    let n = 0;
    fake.on(USER, tokens.guard(() => (n++ === 0 ? { status: 401, body: { errors: [{ code: 32, message: 'Could not authenticate you.' }] } } : { body: fixture('microblog-b/user-2026.json') })));
    expect((await profile()).profile.id).toBe('1234567890');
    expect(activations()).toBe(2);

    fake.on(USER, { status: 403, body: fixture('microblog-b/error-bad-guest-token.json') });
    await rejection(profile(), 'UPSTREAM_BLOCKED');
    expect(activations()).toBe(3);
  });

  test('an activation that answers without a token is EXTRACTION_FAILED; a refused activation is UPSTREAM_BLOCKED', async () => {
    microblogBRoutes(fake);
    fake.on(ACTIVATE, { body: { nothing: true } });
    expect((await rejection(profile(), 'EXTRACTION_FAILED')).internal).toMatch(/guest token/);
    fake.on(ACTIVATE, { status: 403, body: { errors: [{ code: 200, message: 'Forbidden.' }] } });
    await rejection(profile(), 'UPSTREAM_BLOCKED');
  });
});

describe('query ids', () => {
  test('the bundle patterns: legacy webpack, x-web Relay and endpoint templates', () => {
    expect(queryIdsIn(fixtureText('microblog-b/bundle-main.js'))).toEqual({ UserByScreenName: 'NewUserQid_0000000001', UserTweets: 'NewTimelineQid_000002' });
    expect(queryIdsIn(fixtureText('microblog-b/bundle-route-status.js'))).toEqual({ TweetResultByRestId: 'NewNoteQid_0000000004', TweetDetail: 'NewDetailQid_00000005' });
    expect(queryIdsIn('fetch("https://api.x.com/graphql/Abcdefghij_KLMNOP12/UserTweets")')).toEqual({ UserTweets: 'Abcdefghij_KLMNOP12' });
  });

  function rotated(tokens: FakeGuestTokens) {
    // The static ids are gone upstream (404, empty body); the bundle's ids answer.
    fake.on(USER, tokens.guard({ status: 404, body: '' }));
    fake.on(gqlPath('UserByScreenName', BUNDLE_QUERY_IDS.UserByScreenName), tokens.guard({ body: fixture('microblog-b/user-2026.json') }));
    bundleRoutes(fake);
  }

  test('a refused query id: the current ids are read from the web page and its bundle files (following imports), used, and kept', async () => {
    const tokens = microblogBRoutes(fake);
    rotated(tokens);
    expect((await profile()).profile.id).toBe('1234567890');
    expect(fake.requestsTo(WEB_PAGE)).toHaveLength(1);
    expect(fake.requestsTo('/x-web/x-web/assets/route-status-Zx98Cv76.js')).toHaveLength(1);
    await profile();
    expect(fake.requestsTo(WEB_PAGE)).toHaveLength(1);
    expect(fake.requestsTo(USER)).toHaveLength(1);
    expect(fake.requestsTo(gqlPath('UserByScreenName', BUNDLE_QUERY_IDS.UserByScreenName))).toHaveLength(2);
    expect(queryIds.obtained).toBe(1);
  });

  test('20 concurrent requests that find the id refused read the bundle ONCE; another container takes the stored ids', async () => {
    const tokens = microblogBRoutes(fake);
    rotated(tokens);
    fake.on(USER, tokens.guard({ status: 404, body: '', delayMs: 30 }));
    await Promise.all(Array.from({ length: 20 }, () => profile()));
    expect(fake.requestsTo(WEB_PAGE)).toHaveLength(1);

    startCold('microblog-b');
    await profile();
    expect(fake.requestsTo(WEB_PAGE)).toHaveLength(1);
    expect(queryIds.obtained).toBe(0);
  });

  test('a bundle without our ids: EXTRACTION_FAILED, not a loop', async () => {
    const tokens = microblogBRoutes(fake);
    fake.on(USER, tokens.guard({ status: 404, body: '' }));
    fake.on(WEB_PAGE, { body: '<!doctype html><html><body>no scripts</body></html>' });
    const err = await rejection(fetchUser(ctx(), logger, 'harborkite'), 'EXTRACTION_FAILED');
    expect(err.internal).toMatch(/no query ids/);
    expect(fake.requestsTo(USER)).toHaveLength(1);
  });

  test('the static table names every operation we use', () => {
    expect(Object.keys(STATIC_QUERY_IDS).sort()).toEqual(['TweetDetail', 'TweetResultByRestId', 'UserByScreenName', 'UserTweets']);
  });
});
