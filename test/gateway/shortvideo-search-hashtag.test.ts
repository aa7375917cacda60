import { balance } from '../../shared/accounting/teams';
import { MAX_SEEN, encodeHashtagCursor, fingerprint } from '../../shared/platforms/shortvideo/cursor';
import { fixture, fixtureText, type FakeReply, type RecordedRequest } from '../../dev/upstream/fake';
import { type ExpectError, type Harness, withReplayGateway } from '../support/harness';
import { coldShortvideoReplay } from '../support/shortvideo';
import { answeredTogether } from '../support/together';
import { SHORTVIDEO } from '../../dev/upstream/replay';

/**
 * Operation 13 through the local gateway: parameters, the authenticated cursor chain without
 * duplicates, round trips, region handling, and every listed status with no charge on error (401
 * and 402: test/contract).
 */
const PATH = '/v1/shortvideo/search/hashtag';
const { hashtag: DETAIL, hashtagVideos: ITEMS } = SHORTVIDEO;

let h: Harness;
let key: string;
let teamId: string;
let expectError: ExpectError;
// The recorded hashtag and its 3 pages of videos, whatever the name.
withReplayGateway(100, coldShortvideoReplay, (g) => void ({ h, key, teamId, expectError } = g));

const apiCalls = () => h.fake.requests.filter((r) => r.path.startsWith('/api/'));
const ids = (res: { body: { data: { videos: { id: string }[] } } }) => res.body.data.videos.map((x) => x.id);

describe('200', () => {
  test('page 1: the hashtag with exact counts, region names, media headers, videos; detail then list (2 round trips)', async () => {
    const before = await balance(teamId);
    const res = await h.call(PATH, { hashtag: '#LagosSunset' }, { key });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(d.hashtag).toMatchObject({ id: '1600000000000001', name: 'lagossunset', videoCount: 56953998, viewCount: 954780316160 });
    expect(d).toMatchObject({ region: 'NG', regionName: 'Nigeria', servedRegion: 'NG', mediaHeaders: { Cookie: 'tt_chain_token=replay', Referer: 'https://www.tiktok.com/' } });
    expect(ids(res)).toEqual(['7500000000000000001', '7500000000000000002', '7500000000000000003']);
    expect(typeof d.cursor).toBe('string');
    expect(res.body.meta.creditsCharged).toBe(1);
    expect(await balance(teamId)).toBe(before - 1);
    expect(h.fake.requests.map((r) => r.path)).toEqual(['/', DETAIL, ITEMS]);
    const [detail, items] = apiCalls() as [RecordedRequest, RecordedRequest];
    expect(detail.query).toMatchObject({ challengeName: 'lagossunset', region: 'NG', priority_region: 'NG', from_page: 'hashtag' });
    expect(items.query).toMatchObject({ challengeID: '1600000000000001', count: '30', cursor: '0', region: 'NG' });
    expect(items.query['X-Bogus']).toHaveLength(28);
  });

  test('a cursor chain never repeats a video, later pages are 1 round trip, and ends with cursor null', async () => {
    const p1 = await h.call(PATH, { hashtag: 'lagossunset', region: 'ng' }, { key });
    expect(p1.body.data.region).toBe('NG');
    h.fake.requests.length = 0;
    const p2 = await h.call(PATH, { hashtag: 'lagossunset', region: 'NG', cursor: p1.body.data.cursor }, { key });
    expect(p2.status).toBe(200);
    // The upstream's page 2 repeats the photo post of page 1: it is left out.
    expect(ids(p2)).toEqual(['7500000000000000004', '7500000000000000005']);
    expect(apiCalls().map((r) => r.path)).toEqual([ITEMS]); // the hashtag detail is remembered by the warm function
    expect(apiCalls()[0]!.query.cursor).toBe('30');
    const p3 = await h.call(PATH, { hashtag: 'lagossunset', region: 'NG', cursor: p2.body.data.cursor }, { key });
    expect(ids(p3)).toEqual(['7500000000000000006']);
    expect(p3.body.data.cursor).toBeNull();
    const all = [...ids(p1), ...ids(p2), ...ids(p3)];
    expect(new Set(all).size).toBe(all.length);
  });

  test('a cold function on a later page asks for the detail and the list at once (1 round trip)', async () => {
    const cursor = encodeHashtagCursor({ hashtag: 'lagossunset', region: 'NG', challengeId: '1600000000000001', offset: 30, seen: new Set(['7500000000000000002'].map(fingerprint)) });
    const together = answeredTogether(h.fake, { [DETAIL]: { body: fixture('shortvideo/hashtag-detail.json') }, [ITEMS]: { body: fixture('shortvideo/hashtag-items-page2.json') } }); // the page at offset 30
    const res = await h.call(PATH, { hashtag: 'lagossunset', cursor }, { key });
    expect(res.status).toBe(200);
    expect(apiCalls().map((r) => r.path).sort()).toEqual([DETAIL, ITEMS]);
    expect(together.met()).toBe(true);
  });

  test('a page that brings nothing new ends the chain', async () => {
    const seen = new Set(['7500000000000000002', '7500000000000000004', '7500000000000000005'].map(fingerprint));
    const cursor = encodeHashtagCursor({ hashtag: 'lagossunset', region: 'NG', challengeId: '1600000000000001', offset: 30, seen });
    const res = await h.call(PATH, { hashtag: 'lagossunset', cursor }, { key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ videos: [], cursor: null });
  });

  test('cache: the key is the lower-cased hashtag, region and cursor; 0 credits on a hit', async () => {
    const live = await h.call(PATH, { hashtag: 'CacheMe', region: 'GH' }, { key });
    expect(live.status).toBe(200);
    const hit = await h.call(PATH, { hashtag: '#cacheme', region: 'gh', cache_max_age: '1d' }, { key });
    expect(hit.body.meta).toMatchObject({ cached: true, creditsCharged: 0 });
    expect(hit.body.data.regionName).toBe('Ghana');
    const other = await h.call(PATH, { hashtag: 'cacheme', region: 'KE', cache_max_age: '1d' }, { key });
    expect(other.body.meta.cached).toBe(false);
  });
});

describe(`the chain ends after exactly ${MAX_SEEN} videos`, () => {
  /** An upstream that never ends: 30 new videos at every offset. */
  function endlessList() {
    const model = (fixture('shortvideo/hashtag-items-page1.json') as { itemList: Record<string, unknown>[] }).itemList[0]!;
    h.fake.on(ITEMS, (req) => {
      const offset = Number(req.query.cursor);
      const itemList = Array.from({ length: 30 }, (_, i) => ({ ...model, id: String(7_600_000_000_000_000_000n + BigInt(offset + i)) }));
      return { body: { statusCode: 0, itemList, cursor: String(offset + 30), hasMore: true } };
    });
  }
  const seenSoFar = (n: number) => new Set(Array.from({ length: n }, (_, i) => fingerprint(`6${String(i).padStart(18, '0')}`)));

  test(`walking the chain returns ${MAX_SEEN} videos, each once, 30 per page, and the last cursor is null`, async () => {
    endlessList();
    const team = await h.team(40);
    const pages: number[] = [];
    const all: string[] = [];
    let cursor: string | undefined;
    for (let n = 0; n < 40; n++) {
      const res = await h.call(PATH, { hashtag: 'endless', ...(cursor ? { cursor } : {}) }, { key: team.key });
      expect(res.body.error).toBeUndefined();
      expect(res.status).toBe(200);
      pages.push(res.body.data.videos.length);
      all.push(...ids(res));
      cursor = res.body.data.cursor ?? undefined;
      if (!cursor) break;
    }
    expect(all).toHaveLength(MAX_SEEN);
    expect(new Set(all).size).toBe(MAX_SEEN);
    expect(pages).toEqual(Array(MAX_SEEN / 30).fill(30));
    expect(cursor).toBeUndefined();
  });

  test('a page that would pass the limit is cut at it and is the last', async () => {
    endlessList();
    const cursor = encodeHashtagCursor({ hashtag: 'endless', region: 'NG', challengeId: '1600000000000001', offset: 585, seen: seenSoFar(MAX_SEEN - 15) });
    const res = await h.call(PATH, { hashtag: 'endless', cursor }, { key });
    expect(res.status).toBe(200);
    expect(res.body.data.videos).toHaveLength(15);
    expect(res.body.data.cursor).toBeNull();
  });
});

describe('errors cost nothing', () => {
  const valid = () => encodeHashtagCursor({ hashtag: 'lagossunset', region: 'NG', challengeId: '1600000000000001', offset: 30, seen: new Set([1, 2]) });

  test.each([
    ['unavailable in the region (no challenge in the answer)', 'shortvideo/hashtag-detail-empty.json'],
    ['region-locked (10231)', 'shortvideo/error-region-locked.json'],
  ])('404: %s, with a message suggesting another region', async (_n, file) => {
    h.fake.on(DETAIL, { body: fixture(file) });
    await expectError(PATH, { hashtag: `nowhere${file.length}`, region: 'KE' }, 404, 'NOT_FOUND', /not available in region KE \(Kenya\); another region may work/);
    expect(apiCalls().map((r) => r.path)).toEqual([DETAIL]);
  });

  test('400: a tampered cursor, before any upstream call', async () => {
    const raw = valid();
    const [payload, mac] = raw.split('.') as [string, string];
    const forged = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('"o":30', '"o":90')).toString('base64url');
    await expectError(PATH, { hashtag: 'lagossunset', cursor: `${forged}.${mac}` }, 400, 'BAD_REQUEST');
    await expectError(PATH, { hashtag: 'lagossunset', cursor: '30' }, 400, 'BAD_REQUEST');
    expect(apiCalls()).toHaveLength(0);
  });

  test('400: a cursor of another chain (another hashtag or region)', async () => {
    await expectError(PATH, { hashtag: 'football', cursor: valid() }, 400, 'BAD_REQUEST');
    await expectError(PATH, { hashtag: 'lagossunset', region: 'GH', cursor: valid() }, 400, 'BAD_REQUEST');
  });

  test('400: a cursor the upstream refuses (10201)', async () => {
    h.fake.on(ITEMS, { body: { statusCode: 10201, statusMsg: 'invalid parameter' } });
    await expectError(PATH, { hashtag: 'lagossunset', cursor: valid() }, 400, 'BAD_REQUEST');
  });

  test.each([
    ['a hashtag with a space', { hashtag: 'two words' }],
    ['a hashtag too long', { hashtag: 'a'.repeat(101) }],
    ['an unknown region', { hashtag: 'x', region: 'XX' }],
    ['a three-letter region', { hashtag: 'x', region: 'NGA' }],
    ['no hashtag', { region: 'NG' }],
  ])('422: %s', async (_n, query) => {
    await expectError(PATH, query as Record<string, string>, 422, 'VALIDATION_ERROR');
  });

  test.each([
    ['captcha on the detail', DETAIL, { body: fixture('shortvideo/captcha.json') }, 'UPSTREAM_BLOCKED', /captcha/],
    ['empty body on the list (signature refused)', ITEMS, { body: '' }, 'UPSTREAM_BLOCKED', /refused the request signature/],
    ['an unknown shape', ITEMS, { body: { statusCode: 0, itemList: [{ id: '1' }], hasMore: false } }, 'EXTRACTION_FAILED', /unexpected shape/],
    ['the source down', ITEMS, { status: 502, body: 'bad gateway' }, 'PLATFORM_UNAVAILABLE', /unavailable/],
  ])('503: %s', async (_n, path, reply, code, message) => {
    h.fake.on(path, reply as FakeReply);
    await expectError(PATH, { hashtag: `fail${code.length}${path.length}` }, 503, code, message);
  });
});

test('an omitted region is the default region: the same request and the same cache entry as region=NG', async () => {
  const { validateQuery } = await import('../../shared/http/validation');
  const { operation } = await import('../../shared/operations');
  const op = operation('shortvideo-search-hashtag');
  const { cacheKey } = await import('../../shared/result-cache');
  const omitted = validateQuery(op, { hashtag: 'football' }).values;
  const given = validateQuery(op, { hashtag: '#Football', region: 'ng' }).values;
  expect(omitted).toEqual(given);
  expect(cacheKey(op.id, omitted)).toBe(cacheKey(op.id, given));
});
