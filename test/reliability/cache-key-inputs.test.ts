import { startCold } from '../../shared/scrape/warm';
import type { Query } from '../contract/scenarios';
import { startHarness, type Harness } from '../support/harness';
import { cacheKeyOf, dropCached, liveOps, type LiveOp } from './table';

/**
 * The cache is shared by every team, so an answer may depend on nothing a caller typed beyond its
 * cache key (issue 18.2): platform facts (an author, a canonical URL) come from the platform. For
 * every routed operation, spellings of its success query that share one cache key (another handle
 * in a URL that the platform ignores, another case, a URL for a bare name, a tracking query
 * string, another channel of a clip) are each asked by a different team, live: the answers are the
 * same. Then a third team reads the cache with the other spelling and gets that answer too.
 */
const VARIANTS: Record<string, (q: Query) => Query[]> = {
  'microblog-a-user-posts': (q) => [{ handle: `@${String(q.handle).toUpperCase()}` }, { handle: `https://bsky.app/profile/${q.handle}` }],
  'livestream-clip': (q) => {
    const id = String(q.url).split('/').pop();
    return [{ url: `https://kick.com/some-brand/clips/${id}` }, { url: `https://www.kick.com/another?clip=${id}` }];
  },
  'microblog-b-profile': (q) => [{ handle: String(q.handle).replace(/^@/, '').toLowerCase() }, { handle: `https://twitter.com/${String(q.handle).replace(/^@/, '').toUpperCase()}` }],
  'shortvideo-user-following': (q) => [{ handle: `@${String(q.handle).toUpperCase()}` }, { handle: `https://www.tiktok.com/@${q.handle}?lang=en` }],
  'linkpage-page': (q) => [{ url: `${String(q.url).replace('https://', 'https://www.').toUpperCase().replace('HTTPS://WWW.PILLAR.IO', 'https://www.pillar.io')}/` }],
  'shortvideo-video-comments': (q) => [
    { url: String(q.url).replace(/@[^/]+/, '@some.brand') },
    { url: String(q.url).replace(/@[^/]+/, '@another.name').replace('www.', 'm.') },
  ],
  'professional-post': (q) => [{ url: `${q.url}?utm_source=share&trk=public_post` }, { url: String(q.url).replace('www.', 'de.') }],
  'microblog-c-user-posts': (q) => [{ handle: `@${String(q.handle).toUpperCase()}` }, { handle: `https://truthsocial.com/@${q.handle}` }],
  'microblog-b-user-notes': (q) => [{ handle: `@${String(q.handle).toUpperCase()}` }, { handle: `https://x.com/${q.handle}/with_replies` }],
  'shortvideo-user-live': (q) => [{ handle: `@${String(q.handle).toUpperCase()}` }, { handle: `https://www.tiktok.com/@${q.handle}/live` }],
  'microblog-b-note': (q) => [{ url: String(q.url).replace(/x\.com\/[^/]+/, 'x.com/some_brand') }, { url: String(q.url).replace(/x\.com\/[^/]+/, 'twitter.com/i/web') }],
  // No inputs: the cache key is the operation itself; a second team asks it again.
  'citygame-daily': (q) => [{ ...q }],
  'shortvideo-search-hashtag': (q): Query[] => [{ hashtag: `#${String(q.hashtag).toUpperCase()}` }, { hashtag: String(q.hashtag), region: 'ng' }],
};

const OPS = liveOps();
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ ratePerMinute: 1e6, burst: 1e6 });
});
afterAll(async () => h.stop());

const withoutTime = (data: Record<string, unknown>) => {
  const { fetchedAt: _t, ...rest } = data;
  return rest;
};

test('every routed operation has spellings to try', () => {
  expect(OPS.map((l) => l.op.id).filter((id) => !VARIANTS[id])).toEqual([]);
});

test.each(OPS.map((l) => [l.op.id, l] as const))('%s: one cache key, one answer, whoever asked and however they spelled it', async (_id, live: LiveOp) => {
  const { op, scenario } = live;
  const spellings = [scenario.query, ...VARIANTS[op.id]!(scenario.query)];
  // They really are one cache key (else this test would prove nothing).
  for (const s of spellings) expect({ s, key: cacheKeyOf(op, s) }).toEqual({ s, key: cacheKeyOf(op, scenario.query) });

  const answers: Record<string, unknown>[] = [];
  for (const query of spellings) {
    // A new team, a new container: nothing the previous spelling left in memory decides this answer.
    startCold(op.platform);
    h.fake.reset();
    scenario.routes(h.fake);
    await dropCached(op, query);
    const { key } = await h.team(10);
    const res = await h.call(op.path, query, { key });
    expect({ query, status: res.status }).toEqual({ query, status: 200 });
    answers.push(withoutTime(res.body.data));
  }
  for (const a of answers.slice(1)) expect(a).toEqual(answers[0]);

  // Cached by the last spelling; read by another team with the first.
  const { key } = await h.team(10);
  const read = await h.call(op.path, { ...scenario.query, cache_max_age: '1d' }, { key });
  expect(read.body.meta).toMatchObject({ cached: true });
  expect(withoutTime(read.body.data)).toEqual(answers[0]);
});
