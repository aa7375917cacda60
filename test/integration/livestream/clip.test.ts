import { logger } from '../../../shared/runtime/log';
import { ScrapeContext } from '../../../shared/scrape/http';
import { mapClip, normalizePrivacy } from '../../../shared/platforms/livestream/map';
import { scrapeClip } from '../../../shared/platforms/livestream/scrape';
import { PUBLIC_HOSTS, clipPageUrl } from '../../../shared/platforms/livestream/site';
import { FakeUpstream, fixture, fixtureText } from '../../../dev/upstream/fake';
import { rejection } from '../../support/rejection';

/**
 * livestream clip (operation 2): the scraper (client, classifier, mappers) against a fake upstream
 * serving crafted fixtures. Through the gateway: test/gateway/livestream-clip.test.ts.
 */

const HOST = PUBLIC_HOSTS[0];
const HLS_ID = 'clip_01JQ7ZK3M8W4TYV5R2N6P9XBCD';
const MP4_ID = 'clip_01H2K8R4TQ6VZ3N5W7YB9CDMFG';
const ENVELOPE_ID = 'clip_01KZ4N7QWX2RT9VB6MC3HJ8DPE';
const PRIVATE_ID = 'clip_01JR2D5F8G3H6K9M4N7P2Q5S8T';

const fake = new FakeUpstream();
const clipPath = (id: string) => `/api/v2/clips/${id}`;
const scrape = (clipId: string) => scrapeClip({ url: { clipId } }, ScrapeContext.withBudget(5000), logger);

beforeAll(async () => {
  await fake.start();
  process.env.UPSTREAM_LIVESTREAM_URL = fake.url;
});
beforeEach(() => fake.reset());
afterAll(() => fake.stop());

describe('livestream clip scrape', () => {
  it('maps a current HLS clip field by field and asks the clip endpoint like the web app', async () => {
    fake.on(clipPath(HLS_ID), { body: fixture('livestream/clip-hls.json') });

    const result = await scrape(HLS_ID);

    expect(Object.keys(result)).toEqual(['clip']);
    expect(result.clip).toEqual({
      id: HLS_ID,
      title: 'the tower finally falls',
      url: clipPageUrl('towerbuilder', HLS_ID),
      privacy: 'public',
      isMature: true,
      durationSeconds: 42,
      views: 18077,
      likes: 412,
      thumbnailUrl: `https://media.livestream.example/clips/q4/${HLS_ID}/thumbnail.webp`,
      videoUrl: `https://media.livestream.example/clips/q4/${HLS_ID}/playlist.m3u8`,
      videoFormat: 'hls',
      createdAt: '2025-03-29T21:15:48.204Z',
      startedAt: '2025-03-29T21:14:05.000Z',
      vodStartsAt: 7391,
      livestreamId: '51234987',
      vodId: '5f3c2a91-7d4e-4b6a-9c1e-2a8b0d6f4e73',
      category: {
        id: 28,
        name: 'Block Builders',
        slug: 'block-builders',
        parentCategory: 'games',
        imageUrl: 'https://files.livestream.example/images/subcategories/28/banner/block-builders.jpg',
      },
      channel: {
        id: 904211,
        username: 'TowerBuilder',
        slug: 'towerbuilder',
        profilePicture: 'https://files.livestream.example/images/user/905002/profile_image/conversion/0b1c2d3e-thumb.webp',
      },
      creator: { id: 7730152, username: 'ClipperMoth', slug: 'clippermoth', profilePicture: null },
    });

    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.method).toBe('GET');
    expect(req.path).toBe(`/api/v2/clips/${HLS_ID}`);
    expect(req.query).toEqual({});
    expect(req.headers.accept).toBe('application/json');
    expect(req.headers.referer).toBe(`https://${HOST}/`);
    expect(req.headers['sec-fetch-mode']).toBe('cors');
    expect(req.headers['user-agent']).toMatch(/Chrome\//);
  });

  it('maps an MP4-era clip: placeholder start date is null, the MP4 is the only stream, no VOD', async () => {
    fake.on(clipPath(MP4_ID), { body: fixture('livestream/clip-mp4-2023.json') });

    const { clip } = await scrape(MP4_ID);

    expect(clip).toMatchObject({
      id: MP4_ID,
      url: clipPageUrl('oldtimer', MP4_ID),
      privacy: 'public',
      isMature: false,
      durationSeconds: 24,
      views: 2931,
      likes: 57,
      createdAt: '2023-05-14T18:02:37.000Z',
      startedAt: null,
      vodStartsAt: null,
      livestreamId: '3107764',
      vodId: null,
      videoUrl: 'https://media.livestream.example/clips/6e0a9c4d-1b2f-4a7e-9d3c-55f0e1a2b3c4.mp4',
      videoFormat: 'mp4',
      category: { id: 5, name: 'Island Royale', slug: 'island-royale', parentCategory: 'games', imageUrl: expect.stringMatching(/^https:/) },
      creator: { id: 2203391, username: 'QuietFan', slug: 'quietfan', profilePicture: expect.stringMatching(/^https:/) },
    });
  });

  it('maps the newer {data, message} shape', async () => {
    fake.on(clipPath(ENVELOPE_ID), { body: fixture('livestream/clip-data-envelope.json') });

    const { clip } = await scrape(ENVELOPE_ID);

    expect(clip).toEqual({
      id: ENVELOPE_ID,
      title: 'pigeon steals the show',
      url: clipPageUrl('citywalker', ENVELOPE_ID),
      privacy: 'public',
      isMature: false,
      durationSeconds: 30,
      views: 9120,
      likes: null,
      thumbnailUrl: `https://media.livestream.example/clips/7c/${ENVELOPE_ID}/thumbnail.webp`,
      videoUrl: `https://media.livestream.example/clips/7c/${ENVELOPE_ID}/playlist.m3u8`,
      videoFormat: 'hls',
      createdAt: '2026-07-02T10:41:09.118Z',
      startedAt: '2026-07-02T10:38:51.000Z',
      vodStartsAt: 1254,
      livestreamId: null,
      vodId: '02b117e7-3539-7711-cffb-36b2732f02b5',
      category: { id: 41, name: 'Street Walks', slug: 'street-walks', parentCategory: null, imageUrl: null },
      channel: {
        id: 660417,
        username: 'CityWalker',
        slug: 'citywalker',
        profilePicture: 'https://files.livestream.example/images/user/661230/profile_image/conversion/9f8e7d6c-medium.webp',
      },
      creator: { id: 3318840, username: 'NightCutter', slug: 'nightcutter', profilePicture: null },
    });
  });

  it.each([
    ['a 200 without a clip', { status: 200, body: { message: 'success' } }],
    ['a 400 error', { status: 400, body: { message: 'Bad request.' } }],
    ['a 404 that is not an API error', { status: 404, body: '' }],
  ])('falls back to the play endpoint after %s', async (_what, first) => {
    fake.on(clipPath(HLS_ID), first);
    fake.on(`${clipPath(HLS_ID)}/play`, { body: fixture('livestream/clip-hls.json') });

    const { clip } = await scrape(HLS_ID);

    expect(clip.id).toBe(HLS_ID);
    expect(clip.views).toBe(18077);
    expect(fake.requests.map((r) => r.path)).toEqual([clipPath(HLS_ID), `${clipPath(HLS_ID)}/play`]);
    expect(fake.requests[1]?.headers.referer).toBe(`https://${HOST}/`);
  });

  it('gives EXTRACTION_FAILED when both endpoints answer something unknown', async () => {
    fake.on(clipPath(HLS_ID), { status: 200, body: { items: [{ title: 'no clip here' }] } });
    fake.on(`${clipPath(HLS_ID)}/play`, { status: 200, body: { result: [] } });
    await rejection(scrape(HLS_ID), 'EXTRACTION_FAILED');
    expect(fake.requests).toHaveLength(2);
  });

  it('gives EXTRACTION_FAILED for a clip without its id or a channel (its required values); a clip without a title maps with a null title', async () => {
    const { clip } = fixture('livestream/clip-hls.json') as { clip: Record<string, unknown> };
    fake.on(clipPath(HLS_ID), { body: { clip: { ...clip, channel: null } } });
    await rejection(scrape(HLS_ID), 'EXTRACTION_FAILED');
    const { id: _id, ...noId } = clip;
    fake.on(clipPath(HLS_ID), { body: { clip: noId } });
    await rejection(scrape(HLS_ID), 'EXTRACTION_FAILED');
    fake.on(clipPath(HLS_ID), { body: { clip: { ...clip, title: null } } });
    expect((await scrape(HLS_ID)).clip).toMatchObject({ id: HLS_ID, title: null });
  });

  it('gives NOT_FOUND for an unknown clip (404 {message}) without trying the play endpoint', async () => {
    fake.on(clipPath(HLS_ID), { status: 404, body: fixture('livestream/clip-not-found.json') });
    await rejection(scrape(HLS_ID), 'NOT_FOUND');
    expect(fake.requests.map((r) => r.path)).toEqual([clipPath(HLS_ID)]);
  });

  it.each([[{ clip: null }], [{ data: null, message: 'success' }]])('gives NOT_FOUND for a 200 with %j', async (body) => {
    fake.on(clipPath(HLS_ID), { status: 200, body });
    await rejection(scrape(HLS_ID), 'NOT_FOUND');
    expect(fake.requests).toHaveLength(1);
  });

  it('gives NOT_FOUND for a private clip: only public data is returned', async () => {
    fake.on(clipPath(PRIVATE_ID), { body: fixture('livestream/clip-private.json') });
    await rejection(scrape(PRIVATE_ID), 'NOT_FOUND');
  });

  it.each([403, 200])('gives UPSTREAM_BLOCKED for a Cloudflare challenge answered with %i', async (status) => {
    fake.on(clipPath(HLS_ID), { status, body: fixtureText('livestream/cloudflare-challenge.html') });
    await rejection(scrape(HLS_ID), 'UPSTREAM_BLOCKED');
    expect(fake.requests).toHaveLength(1);
  });

  it('gives UPSTREAM_BLOCKED with the upstream Retry-After when rate limited', async () => {
    fake.on(clipPath(HLS_ID), { status: 429, headers: { 'retry-after': '120' }, body: { message: 'Too Many Attempts.' } });
    const err = await rejection(scrape(HLS_ID), 'UPSTREAM_BLOCKED');
    expect(err.retryAfter).toBe(120);
    expect(err.status).toBe(503);
  });

  it('gives PLATFORM_UNAVAILABLE when the upstream keeps answering 502', async () => {
    fake.on(clipPath(HLS_ID), { status: 502, body: 'Bad Gateway' });
    await rejection(scrape(HLS_ID), 'PLATFORM_UNAVAILABLE');
    expect(fake.requests.length).toBeGreaterThanOrEqual(1);
    expect(fake.requests.every((r) => r.path === clipPath(HLS_ID))).toBe(true);
  });
});

describe('livestream mapClip', () => {
  const base = (fixture('livestream/clip-hls.json') as { clip: Record<string, unknown> }).clip;

  it('prefers the HLS playlist whichever field carries it', () => {
    const m3u8 = 'https://media.livestream.example/clips/q4/x/playlist.m3u8';
    const mp4 = 'https://media.livestream.example/clips/x.mp4';
    expect(mapClip({ ...base, video_url: mp4, clip_url: m3u8 }).videoUrl).toBe(m3u8);
    expect(mapClip({ ...base, video_url: m3u8, clip_url: mp4 }).videoUrl).toBe(m3u8);
    // No usable video URL: null, never a made-up one (the video URL is not on the clip's required list).
    expect(mapClip({ ...base, video_url: 'javascript:alert(1)', clip_url: null })).toMatchObject({ videoUrl: null, videoFormat: null });
  });

  it('takes views and likes from their own fields, never from each other', () => {
    const { views: _v, likes: _l, ...counts } = base;
    const only = { ...counts, view_count: 900, likes_count: 12 };
    expect(mapClip(only)).toMatchObject({ views: 900, likes: 12 });
  });

  it.each([
    ['CLIP_PRIVACY_PUBLIC', 'public'],
    ['CLIP_PRIVACY_UNLISTED', 'unlisted'],
    ['CLIP_PRIVACY_PRIVATE', 'private'],
    ['public', 'public'],
    [' Private ', 'private'],
    [undefined, 'public'],
  ])('normalizes privacy %p to %p', (raw, expected) => {
    expect(normalizePrivacy(raw)).toBe(expected);
  });

  it('keeps the category image from the responsive field when there is no banner, and a parent category given as an object', () => {
    const category = { id: '9', name: 'X', slug: 'x', responsive: 'https://files.livestream.example/r.webp', parent_category: { slug: 'irl' } };
    expect(mapClip({ ...base, category }).category).toEqual({ id: 9, name: 'X', slug: 'x', parentCategory: 'irl', imageUrl: 'https://files.livestream.example/r.webp' });
  });

  it('refuses a clip without its required values (EXTRACTION_FAILED naming the value); any other value missing is null', () => {
    expect(() => mapClip(null)).toThrow(expect.objectContaining({ code: 'EXTRACTION_FAILED', internal: expect.stringMatching(/clip id/) }));
    expect(() => mapClip({ ...base, channel: { ...(base.channel as object), slug: undefined } })).toThrow(expect.objectContaining({ code: 'EXTRACTION_FAILED', internal: expect.stringMatching(/channel slug/) }));
    expect(mapClip({ ...base, duration: null, views: 'many', view_count: undefined, is_mature: undefined })).toMatchObject({ durationSeconds: null, views: null, isMature: null });
    const { category: _c, creator: _k, ...bare } = base;
    expect(mapClip(bare)).toMatchObject({ category: null, creator: null });
  });
});
