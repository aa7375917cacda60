import { balance } from '../../shared/accounting/teams';
import { startCold } from '../../shared/scrape/warm';
import { fixture, fixtureText, type FakeReply } from '../../dev/upstream/fake';
import { type ExpectError, type Harness, withReplayGateway } from '../support/harness';
import { coldShortvideoReplay } from '../support/shortvideo';
import { SHORTVIDEO } from '../../dev/upstream/replay';

/**
 * Operation 5 through the local gateway: by handle (profile page) and by userId (user-detail API),
 * the list with exact stats, the end of the list, 404 for gone/private/hidden, the login wall.
 */
const PATH = '/v1/shortvideo/user/following';
const PROFILE = '/@zola.travels';
const { userDetail: DETAIL, following: LIST } = SHORTVIDEO;

let h: Harness;
let key: string;
let teamId: string;
let expectError: ExpectError;
// The recorded account (profile page and user-detail API) and whom it follows (2 pages), whatever the handle or id.
withReplayGateway(100, (harness) => coldShortvideoReplay(harness, { cold: false }), (g) => void ({ h, key, teamId, expectError } = g));
const apiPaths = () => h.fake.requests.map((r) => r.path).filter((p) => p !== '/');

describe('200', () => {
  test('by handle: the profile from the page, then the list (2 round trips); exact stats; platformSeller', async () => {
    startCold('shortvideo');
    const before = await balance(teamId);
    const res = await h.call(PATH, { handle: 'https://www.tiktok.com/@Zola.Travels' }, { key });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.profile).toEqual({ id: '6799800000000000001', secUid: 'MS4wLjABAAAAzolaSec', handle: 'zola.travels', nickname: 'Zola Travels 🇳🇬', url: 'https://www.tiktok.com/@zola.travels', followingCount: 176 });
    expect(d).toMatchObject({ count: 3, total: 176, cursor: '1745042188', hasMore: true });
    expect(d.following[0]).toEqual({
      id: '7539740651619009501',
      secUid: 'MS4wLjABAAAAjollof_janeSec',
      handle: 'jollof_jane',
      nickname: 'Jollof Jane',
      bio: '',
      url: 'https://www.tiktok.com/@jollof_jane',
      avatarUrl: 'https://p16-common-sign.shortvideo-cdn.example/avt/jollof_jane-1080.jpeg',
      avatars: {
        large: 'https://p16-common-sign.shortvideo-cdn.example/avt/jollof_jane-1080.jpeg',
        medium: 'https://p16-common-sign.shortvideo-cdn.example/avt/jollof_jane-720.jpeg',
        thumb: 'https://p16-common-sign.shortvideo-cdn.example/avt/jollof_jane-100.jpeg',
      },
      verified: true,
      privateAccount: false,
      secret: false,
      platformSeller: false,
      openFavorite: false,
      ftc: false,
      isADVirtual: false,
      downloadSetting: 0,
      stats: { followerCount: 3092, followingCount: 0, likeCount: 3123456789, videoCount: 10, friendCount: 0, diggCount: 1241 },
    });
    expect(d.following[1]).toMatchObject({ handle: 'market_mo', platformSeller: true, downloadSetting: 3 });
    expect(res.body.meta.creditsCharged).toBe(1);
    expect(await balance(teamId)).toBe(before - 1);
    expect(apiPaths()).toEqual([PROFILE, LIST]);
    const list = h.fake.requestsTo(LIST)[0]!;
    expect(list.query).toMatchObject({ secUid: 'MS4wLjABAAAAzolaSec', scene: '21', count: '30', maxCursor: '0', minCursor: '0' });
    expect(list.query['X-Bogus']).toHaveLength(28);
  });

  test('the next page passes minCursor; the last page has cursor null', async () => {
    const res = await h.call(PATH, { handle: 'zola.travels', cursor: '1745042188' }, { key });
    expect(res.body.data).toMatchObject({ count: 1, cursor: null, hasMore: false });
    expect(h.fake.requestsTo(LIST)[0]!.query.minCursor).toBe('1745042188');
  });

  test('a repeated cursor ends the list', async () => {
    h.fake.on(LIST, { body: { ...(fixture('shortvideo/following-page1.json') as object), minCursor: 1745042188 } });
    const res = await h.call(PATH, { handle: 'zola.travels', cursor: '1745042188' }, { key });
    expect(res.body.data).toMatchObject({ count: 3, cursor: null, hasMore: false });
  });

  test('by userId: the user-detail API resolves the account', async () => {
    const res = await h.call(PATH, { userId: '6799800000000000001' }, { key });
    expect(res.status).toBe(200);
    expect(res.body.data.profile.handle).toBe('zola.travels');
    expect(h.fake.requestsTo(DETAIL)[0]!.query).toMatchObject({ userId: '6799800000000000001' });
    expect(apiPaths()).toEqual([DETAIL, LIST]);
  });

  test('a profile page without its data (client-rendered shell) falls back to the user-detail API', async () => {
    h.fake.on(PROFILE, { body: fixtureText('shortvideo/profile-page-shell.html') });
    const res = await h.call(PATH, { handle: 'zola.travels' }, { key });
    expect(res.status).toBe(200);
    expect(apiPaths()).toEqual([PROFILE, DETAIL, LIST]);
  });
});

describe('errors cost nothing', () => {
  test.each([
    ['unknown or banned (10221)', 'shortvideo/profile-page-not-found.html', /No such account/],
    ['private', 'shortvideo/profile-page-private.html', /private/],
    ['following list hidden', 'shortvideo/profile-page-hidden-following.html', /hides its following list/],
  ])('404: %s, without asking for the list', async (_n, file, message) => {
    h.fake.on(PROFILE, { body: fixtureText(file) });
    await expectError(PATH, { handle: 'zola.travels' }, 404, 'NOT_FOUND', message);
    expect(h.fake.requestsTo(LIST)).toHaveLength(0);
  });

  test('404: a profile page answered 404 without data', async () => {
    h.fake.on(PROFILE, { status: 404, body: fixtureText('shortvideo/profile-page-shell.html') });
    await expectError(PATH, { handle: 'zola.travels' }, 404, 'NOT_FOUND');
  });

  test('503: a profile page refused (403)', async () => {
    h.fake.on(PROFILE, { status: 403, body: 'Forbidden' });
    await expectError(PATH, { handle: 'zola.travels' }, 503, 'UPSTREAM_BLOCKED');
  });

  test('404: an unknown userId (10221 from the detail API)', async () => {
    h.fake.on(DETAIL, { body: { statusCode: 10221, statusMsg: 'user not found' } });
    await expectError(PATH, { userId: '123' }, 404, 'NOT_FOUND');
  });

  test('503: a userId answered without an account and without a reason is EXTRACTION_FAILED (neither gone nor walled), suggesting the handle', async () => {
    h.fake.on(DETAIL, { body: fixture('shortvideo/user-detail-empty.json') });
    await expectError(PATH, { userId: '123' }, 503, 'EXTRACTION_FAILED', /numeric id without an account.*call with the handle/);
  });

  test('503: a profile page whose account data has status 0 and no user is EXTRACTION_FAILED, not "no such account"', async () => {
    h.fake.on(PROFILE, { body: fixtureText('shortvideo/profile-page.html').replace('"userInfo": {"user":', '"userInfo": {"nobody":') });
    await expectError(PATH, { handle: 'zola.travels' }, 503, 'EXTRACTION_FAILED');
    expect(h.fake.requestsTo(LIST)).toHaveLength(0);
  });

  test.each([
    ['a login wall (10101)', { body: fixture('shortvideo/following-login.json') }],
    ['an empty body', { body: '' }],
  ])('503: %s: UPSTREAM_BLOCKED saying the list needs a session', async (_n, reply) => {
    h.fake.on(LIST, reply as FakeReply);
    await expectError(PATH, { handle: 'zola.travels' }, 503, 'UPSTREAM_BLOCKED', /logged-in session/);
  });

  test('503: an empty list for an account that follows 176, with no login sign, is EXTRACTION_FAILED saying so', async () => {
    h.fake.on(LIST, { body: fixture('shortvideo/following-empty.json') });
    await expectError(PATH, { handle: 'zola.travels' }, 503, 'EXTRACTION_FAILED', /empty following list for an account that follows others/);
  });

  test.each(['abc', '12345678901234', '-5', ''])('400: malformed cursor %j', async (cursor) => {
    await expectError(PATH, { handle: 'zola.travels', cursor }, 400, 'BAD_REQUEST');
  });

  test('400: a cursor the upstream refuses (10201)', async () => {
    h.fake.on(LIST, { body: { statusCode: 10201, statusMsg: 'invalid parameter' } });
    await expectError(PATH, { handle: 'zola.travels', cursor: '99' }, 400, 'BAD_REQUEST');
  });

  test.each([
    ['neither', {}],
    ['both', { handle: 'zola.travels', userId: '1' }],
    ['a malformed userId', { userId: 'abc' }],
    ['a malformed handle', { handle: 'a b c' }],
  ])('422: %s', async (_n, q) => {
    await expectError(PATH, q as Record<string, string>, 422, 'VALIDATION_ERROR');
  });

  test('503: the source down', async () => {
    h.fake.on(PROFILE, { status: 502, body: 'bad gateway' });
    await expectError(PATH, { handle: 'zola.travels' }, 503, 'PLATFORM_UNAVAILABLE');
  });
});
