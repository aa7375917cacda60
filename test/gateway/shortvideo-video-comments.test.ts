import { balance } from '../../shared/accounting/teams';
import { startCold } from '../../shared/scrape/warm';
import { fixture, fixtureText, type FakeReply } from '../../dev/upstream/fake';
import { SHORTVIDEO_ITEM_AUTHOR, SHORTVIDEO_ITEM_DETAIL, itemDetail, itemDetailReply } from '../../dev/upstream/shortvideo';
import { type ExpectError, type Harness, withGateway } from '../support/harness';

/**
 * Operation 7 through the local gateway: every status it lists (401 and 402: test/contract), credits charged only on success,
 * nothing cached on error, one upstream round trip per page once the jar is warm; the video's
 * author is the platform's, whatever handle a caller's URL names (the answer is cached for all).
 */
const PATH = '/v1/shortvideo/video/comments';
const VIDEO = '7401122334455667788';
const URL_ = `https://www.tiktok.com/@lagos.lens/video/${VIDEO}`;
const LIST = '/api/comment/list/';
const DETAIL = SHORTVIDEO_ITEM_DETAIL;
/** The video's author as the platform names it. */
const AUTHOR = SHORTVIDEO_ITEM_AUTHOR;
const CANONICAL = `https://www.tiktok.com/@${AUTHOR}/video/${VIDEO}`;
const HOME: FakeReply = { headers: { 'set-cookie': 'ttwid=1%7Cfake; Path=/; Domain=.tiktok.com' }, body: fixtureText('shortvideo/home.html') };
const CHAIN = { 'set-cookie': 'tt_chain_token=chainABC; Path=/; Domain=.tiktok.com' };

let h: Harness;
let key: string;
let teamId: string;
let expectError: ExpectError;
withGateway(100, (g) => void ({ h, key, teamId, expectError } = g));
beforeEach(() => {
  h.fake.reset();
  h.fake.on('/', HOME);
  h.fake.on(DETAIL, itemDetailReply);
});

const listOnly = () => h.fake.requests.filter((r) => r.path === LIST);

describe('200', () => {
  test('page 1: mapped comments, the video, total, cursor; primes the jar once, then 1 round trip per page', async () => {
    startCold('shortvideo');
    h.fake.on(LIST, { headers: CHAIN, body: fixture('shortvideo/comments-page1.json') });
    const before = await balance(teamId);
    const res = await h.call(PATH, { url: URL_ }, { key });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.video).toEqual({ id: VIDEO, url: CANONICAL, handle: AUTHOR });
    expect(d).toMatchObject({ count: 4, total: 227, cursor: '40', hasMore: true });
    expect(d.comments.map((c: { id: string }) => c.id)).toEqual(['7401200000000000001', '7401200000000000002', '7401200000000000003', '7401200000000000004']);
    expect(d.comments[0].text).toBe('This view never gets old 🌅🔥🔥 @kemi_bakes'); // mentions stay plain text
    expect(res.body.meta).toMatchObject({ creditsCharged: 1, cached: false, creditsRemaining: before - 1 });
    // The comments and the video's author together, after the jar is primed.
    expect(h.fake.requests[0]!.path).toBe('/');
    expect(h.fake.requests.slice(1).map((r) => r.path).sort()).toEqual([LIST, DETAIL].sort());
    expect(h.fake.requestsTo(DETAIL)[0]!.query).toMatchObject({ itemId: VIDEO, aid: '1988' });
    expect(h.fake.requestsTo(DETAIL)[0]!.query['X-Bogus']).toMatch(/^.{28}$/);
    expect(listOnly()[0]!.query).toMatchObject({ aweme_id: VIDEO, count: '40', cursor: '0', aid: '1988', from_page: 'video' });
    expect(listOnly()[0]!.query['X-Bogus']).toMatch(/^.{28}$/);
    expect(listOnly()[0]!.headers.referer).toBe(URL_);

    // The warm function: the next page is one upstream call with the cookies it was given (it
    // remembers the video's author).
    h.fake.requests.length = 0;
    h.fake.on(LIST, { body: fixture('shortvideo/comments-last.json') });
    const last = await h.call(PATH, { url: URL_, cursor: '40' }, { key });
    expect(last.status).toBe(200);
    expect(last.body.data).toMatchObject({ count: 1, cursor: null, hasMore: false });
    expect(h.fake.requests.map((r) => r.path)).toEqual([LIST]);
    expect(listOnly()[0]!.query.cursor).toBe('40');
    expect(listOnly()[0]!.headers.cookie).toContain('tt_chain_token=chainABC');
  });

  test('comments turned off: 200 with comments [] and total 0; a photo post is named by its /photo/ page', async () => {
    const PHOTO = '7401122334455660001';
    h.fake.on(LIST, { body: fixture('shortvideo/comments-off.json') });
    h.fake.on(DETAIL, { body: itemDetail(PHOTO, 'shortvideo/item-detail-photo.json') });
    const res = await h.call(PATH, { url: `https://m.tiktok.com/@someone/photo/${PHOTO}` }, { key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ comments: [], count: 0, total: 0, cursor: null, hasMore: false });
    expect(res.body.data.video).toEqual({ id: PHOTO, url: `https://www.tiktok.com/@${AUTHOR}/photo/${PHOTO}`, handle: AUTHOR });
  });

  test('cache: the key is the video id and cursor (another handle in the URL hits the same entry), 0 credits', async () => {
    h.fake.on(LIST, { body: fixture('shortvideo/comments-page1.json') });
    const live = await h.call(PATH, { url: URL_, cursor: '0' }, { key });
    expect(live.status).toBe(200);
    const hit = await h.call(PATH, { url: `https://www.tiktok.com/@other.name/video/${VIDEO}?lang=en`, cursor: '0', cache_max_age: '1d' }, { key });
    expect(hit.body.meta).toMatchObject({ cached: true, creditsCharged: 0 });
    expect(listOnly()).toHaveLength(1);
  });

  test('cross-team: team A names the video under a forged handle; team B, reading the cache, sees the platform\'s author', async () => {
    startCold('shortvideo'); // no container memory of the video's author
    const OTHER = '7401122334455667001';
    h.fake.on(LIST, { body: fixture('shortvideo/comments-page1.json') });
    const teamA = await h.team(10);
    const teamB = await h.team(10);
    const forged = await h.call(PATH, { url: `https://www.tiktok.com/@some.brand/video/${OTHER}` }, { key: teamA.key });
    expect(forged.status).toBe(200);
    const expected = { id: OTHER, url: `https://www.tiktok.com/@${AUTHOR}/video/${OTHER}`, handle: AUTHOR };
    expect(forged.body.data.video).toEqual(expected);

    const read = await h.call(PATH, { url: `https://www.tiktok.com/@${AUTHOR}/video/${OTHER}`, cache_max_age: '30d' }, { key: teamB.key });
    expect(read.body.meta).toMatchObject({ cached: true, creditsCharged: 0 });
    expect(read.body.data.video).toEqual(expected);
    expect(JSON.stringify(read.body.data)).not.toContain('some.brand');
  });
});

describe('errors cost nothing and are never cached', () => {
  test.each([
    ['deleted video (10204)', 'shortvideo/error-item-unavailable.json'],
    ['private video (10216)', 'shortvideo/error-private-item.json'],
  ])('404: %s', async (_n, file) => {
    const gone = `https://www.tiktok.com/@lagos.lens/video/${file.length}0000000000000000`;
    h.fake.on(LIST, { body: fixture(file) });
    await expectError(PATH, { url: gone }, 404, 'NOT_FOUND');
    // Not cached: the video answers again once it is back.
    h.fake.on(LIST, { body: fixture('shortvideo/comments-page1.json') });
    const again = await h.call(PATH, { url: gone, cache_max_age: '30d' }, { key });
    expect(again.body.meta).toMatchObject({ cached: false, creditsCharged: 1 });
  });

  test.each(['abc', '-1', '12345678901', ''])('400: malformed cursor %j, before any upstream call', async (cursor) => {
    await expectError(PATH, { url: URL_, cursor }, 400, 'BAD_REQUEST');
    expect(listOnly()).toHaveLength(0);
  });

  test('404: the video is gone by the time its author is asked (the list still answered)', async () => {
    startCold('shortvideo');
    h.fake.on(LIST, { body: fixture('shortvideo/comments-page1.json') });
    h.fake.on(DETAIL, { body: fixture('shortvideo/error-item-unavailable.json') });
    await expectError(PATH, { url: URL_ }, 404, 'NOT_FOUND');
  });

  test('503: an item detail about another video, or without its author, is never served', async () => {
    startCold('shortvideo');
    h.fake.on(LIST, { body: fixture('shortvideo/comments-page1.json') });
    h.fake.on(DETAIL, { body: itemDetail('1') });
    await expectError(PATH, { url: URL_ }, 503, 'EXTRACTION_FAILED');
    const anonymous = itemDetail(VIDEO);
    delete anonymous.itemInfo.itemStruct.author.uniqueId;
    h.fake.on(DETAIL, { body: anonymous });
    await expectError(PATH, { url: URL_ }, 503, 'EXTRACTION_FAILED');
  });

  test('400: a cursor the upstream refuses (10201 invalid parameter)', async () => {
    h.fake.on(LIST, { body: { status_code: 10201, status_msg: 'invalid parameter' } });
    await expectError(PATH, { url: URL_, cursor: '9999999' }, 400, 'BAD_REQUEST');
  });

  test.each([
    ['another host', { url: `https://example.com/@a/video/${VIDEO}` }],
    ['a profile URL', { url: 'https://www.tiktok.com/@lagos.lens' }],
    ['no url', {}],
  ])('422: %s', async (_n, query) => {
    await expectError(PATH, query as Record<string, string>, 422, 'VALIDATION_ERROR');
  });

  test.each([
    ['captcha (10000)', { body: fixture('shortvideo/captcha.json') }, 'UPSTREAM_BLOCKED', /captcha/],
    ['bdturing-verify header', { headers: { 'bdturing-verify': '{"code":"10000"}' }, body: '' }, 'UPSTREAM_BLOCKED', /captcha/],
    ['empty 200 body (signature refused)', { body: '' }, 'UPSTREAM_BLOCKED', /refused the request signature/],
    ['login wall', { status: 302, headers: { location: 'https://www.tiktok.com/login?redirect_url=%2F' }, body: '' }, 'UPSTREAM_BLOCKED', /logged-in session/],
    ['an unknown shape', { body: { status_code: 0, comments: [{ cid: '1' }] } }, 'EXTRACTION_FAILED', /unexpected shape/],
    ['an unknown status code', { body: { status_code: 31337 } }, 'EXTRACTION_FAILED', /unexpected shape/],
    ['the source down', { status: 503, body: 'upstream overloaded' }, 'PLATFORM_UNAVAILABLE', /unavailable/],
  ])('503: %s', async (_n, reply, code, message) => {
    h.fake.on(LIST, reply as FakeReply);
    await expectError(PATH, { url: URL_ }, 503, code, message);
  });
});
