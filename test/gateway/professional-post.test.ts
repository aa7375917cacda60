import { balance } from '../../shared/accounting/teams';
import { ledger } from '../../shared/accounting/ledger';
import { SIGN_IN_MESSAGE } from '../../shared/platforms/professional/site';
import { fixtureText } from '../../dev/upstream/fake';
import { startHarness, type Harness } from '../support/harness';

/**
 * Operation 8 through the local gateway: every status it lists (200, 404, 422, 503; 401 and 402
 * are checked for every operation in test/contract, 429 in test/gateway/pipeline.test.ts), credits charged
 * only on success, nothing cached on error, one cache entry per canonical URL.
 */
const OP = '/v1/professional/post';
const SLUG = 'quayside-robotics_dockwalk-warehouseautomation-activity-7301122334455667788-Qw3R';
const PATH = `/posts/${SLUG}`;
const URL_ = `https://www.linkedin.com${PATH}`;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.stop());
beforeEach(() => h.fake.reset());

describe('200', () => {
  test('a post: the content, 1 credit, one upstream request; every URL form of it is one cache entry', async () => {
    const { key, teamId } = await h.team(10);
    h.fake.on(PATH, { body: fixtureText('professional/post-video.html') });

    const res = await h.call(OP, { url: URL_ }, { key });
    expect(res.status).toBe(200);
    expect(res.body.data.content).toMatchObject({ type: 'post', id: '7301122334455667788', likeCount: 1157, media: { type: 'video' } });
    expect(res.body.data.fetchedAt).toMatch(/Z$/);
    expect(res.body.meta).toMatchObject({ creditsCharged: 1, creditsRemaining: 9, cached: false });
    expect(h.fake.requests.map((r) => r.path)).toEqual([PATH]);

    for (const form of [`https://fr.linkedin.com${PATH}?utm_source=share&utm_medium=member_desktop`, `https://linkedin.com${PATH}/`, `http://www.linkedin.com${PATH}#x`]) {
      const hit = await h.call(OP, { url: form, cache_max_age: '1d' }, { key });
      expect(hit.status).toBe(200);
      expect(hit.body.meta).toMatchObject({ cached: true, creditsCharged: 0 });
      expect(hit.body.data).toEqual(res.body.data);
    }
    expect(h.fake.requests).toHaveLength(1);
    expect(await balance(teamId)).toBe(9);
  });

  test('an article', async () => {
    const { key } = await h.team(10);
    const path = '/pulse/counting-footsteps-not-berths-marguerite-oyelaran-x7k2q';
    h.fake.on(path, { body: fixtureText('professional/article.html') });
    const res = await h.call(OP, { url: `https://de.linkedin.com${path}?trk=public_profile_article_view` }, { key });
    expect(res.status).toBe(200);
    expect(res.body.data.content).toMatchObject({ type: 'article', readingTimeMinutes: 6, relatedArticles: [{ title: 'Tides and timetables' }, { title: 'Benches are infrastructure' }] });
    expect(h.fake.requests.map((r) => r.path)).toEqual([path]);
  });
});

describe('errors cost nothing and are not cached', () => {
  // A post no other test asked for: the cache is shared by all teams.
  const ERR_PATH = '/posts/anouk-verhaegen-5b21a7_ferry-timetables-open-data-activity-7412233445566778899-kT9p';
  const ERR_URL = `https://www.linkedin.com${ERR_PATH}`;
  let key: string;
  let teamId: string;
  beforeAll(async () => ({ key, teamId } = await h.team(10)));

  test.each([
    ['HTTP 999', () => void h.fake.on(ERR_PATH, { status: 999, body: fixtureText('professional/denied-999.html') })],
    [
      'a redirect to the auth wall',
      () => {
        h.fake.on(ERR_PATH, { status: 302, headers: { location: `https://www.linkedin.com/authwall?trk=bf&sessionRedirect=${encodeURIComponent(ERR_URL)}` }, body: '' });
        h.fake.on('/authwall', { body: fixtureText('professional/authwall.html') });
      },
    ],
  ])('%s -> 503 UPSTREAM_BLOCKED saying a sign-in is needed, with Retry-After', async (_what, routes) => {
    routes();
    const res = await h.call(OP, { url: ERR_URL, cache_max_age: '1d' }, { key });
    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({ code: 'UPSTREAM_BLOCKED', message: SIGN_IN_MESSAGE });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  test('a small page without the posting JSON-LD and without a wall -> 503 EXTRACTION_FAILED (not a block), with Retry-After', async () => {
    h.fake.on(ERR_PATH, { body: '<!DOCTYPE html><html><head><meta name="pageKey" content="d_public_post"></head><body></body></html>' });
    const res = await h.call(OP, { url: ERR_URL, cache_max_age: '1d' }, { key });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('EXTRACTION_FAILED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  test('a 404 page -> 404 NOT_FOUND', async () => {
    h.fake.on(ERR_PATH, { status: 404, body: '<!DOCTYPE html><html><body>Not found</body></html>' });
    const res = await h.call(OP, { url: ERR_URL }, { key });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  test('an article redirected to article_not_found -> 404 NOT_FOUND', async () => {
    const path = '/pulse/gone-article-someone-zz9zz';
    h.fake.on(path, { status: 302, headers: { location: 'https://www.linkedin.com/pulse/article_not_found?slug=gone' }, body: '' });
    h.fake.on('/pulse/article_not_found', { body: '<html><body>gone</body></html>' });
    const res = await h.call(OP, { url: `https://www.linkedin.com${path}` }, { key });
    expect(res.status).toBe(404);
  });

  test('the upstream down -> 503 PLATFORM_UNAVAILABLE', async () => {
    h.fake.on(ERR_PATH, { status: 502, body: 'Bad Gateway' });
    const res = await h.call(OP, { url: ERR_URL }, { key });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('PLATFORM_UNAVAILABLE');
  });

  test('nothing was charged and nothing cached: the next request with cache_max_age scrapes live', async () => {
    expect(await balance(teamId)).toBe(10);
    expect(await ledger(teamId)).toHaveLength(0);
    h.fake.on(ERR_PATH, { body: fixtureText('professional/post-image.html') });
    const res = await h.call(OP, { url: ERR_URL, cache_max_age: '30d' }, { key });
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ cached: false, creditsCharged: 1 });
  });
});

describe('422: only post and article URLs of the platform, never fetched otherwise', () => {
  test.each([
    'https://evil.example/posts/x-activity-7301122334455667788-Qw3R',
    `https://www.linkedin.com.evil.example${PATH}`,
    `https://user:pw@www.linkedin.com${PATH}`,
    `https://www.linkedin.com:8443${PATH}`,
    'https://www.linkedin.com/in/anouk-verhaegen-5b21a7',
    'https://www.linkedin.com/feed/update/urn:li:activity:7301122334455667788',
    'https://www.linkedin.com/posts/..%2Fuas%2Flogin',
    'file:///etc/passwd',
  ])('%s', async (url) => {
    const { key } = await h.team(1);
    const res = await h.call(OP, { url }, { key });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'url', message: expect.stringContaining('post') }] });
    expect(h.fake.requests).toHaveLength(0);
  });

  test('missing url', async () => {
    const { key } = await h.team(1);
    expect((await h.call(OP, {}, { key })).body.error.details).toEqual([{ path: 'url', message: 'Required' }]);
  });
});
