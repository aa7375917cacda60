import { mapAccount, mapFeedItem, mapProfile } from '../../../shared/platforms/microblog-a/map';
import { fixture } from '../../../dev/upstream/fake';

/**
 * microblog-a mappers on items of the crafted feed: what the AppView always sends is required
 * (EXTRACTION_FAILED naming the field, never a half-empty post); what it may leave out is null
 * only where resources.ts records the deviation.
 */
type Item = { post: Record<string, unknown> & { author: Record<string, unknown>; embed?: Record<string, unknown> } };
const feed = () => (fixture('microblog-a/feed-page1.json') as { feed: Item[] }).feed;
const pinned = () => feed()[0]!; // images, reasonPin
const withVideo = () => feed()[6]!;

const failsNaming = (f: () => unknown, field: RegExp) => expect(f).toThrow(expect.objectContaining({ code: 'EXTRACTION_FAILED', internal: expect.stringMatching(field) }));

describe('microblog-a mappers', () => {
  test('a post without its uri, cid, indexedAt or author identity is EXTRACTION_FAILED naming the field', () => {
    for (const [field, what] of [
      ['uri', /post uri/],
      ['cid', /post cid/],
      ['indexedAt', /post indexedAt/],
    ] as const) {
      const item = pinned();
      delete item.post[field];
      failsNaming(() => mapFeedItem(item), what);
    }
    const noHandle = pinned();
    delete noHandle.post.author.handle;
    failsNaming(() => mapFeedItem(noHandle), /post author handle/);
    failsNaming(() => mapProfile({ handle: 'x.bsky.social' }), /profile did/);
  });

  test('a media part without its own identity is left out and reported, the post keeps: an image without fullsize, a video without playlist', () => {
    const item = pinned();
    const images = (item.post.embed as { images: Record<string, unknown>[] }).images;
    const before = images.length;
    delete images[0]!.fullsize;
    const dropped: [string, string][] = [];
    const drops = { dropped: (resource: string, missing: string) => void dropped.push([resource, missing]) };
    expect(mapFeedItem(item, drops).media.images).toHaveLength(before - 1);
    const video = withVideo();
    delete (video.post.embed as Record<string, unknown>).playlist;
    expect(mapFeedItem(video, drops).media.video).toBeNull();
    expect(dropped).toEqual([['image', 'image URL'], ['video', 'video playlist URL']]);
  });

  test('the recorded deviations are null: no avatar, no account createdAt, no image size, a post date that is no date', () => {
    const item = pinned();
    delete item.post.author.avatar;
    delete item.post.author.createdAt;
    delete (item.post.embed as { images: Record<string, unknown>[] }).images[0]!.aspectRatio;
    (item.post.record as Record<string, unknown>).createdAt = 'yesterday-ish';
    const post = mapFeedItem(item);
    expect(post.author).toMatchObject({ avatarUrl: null, createdAt: null });
    expect(post.media.images[0]).toMatchObject({ width: null, height: null });
    expect(post.createdAt).toBeNull();
  });

  test('counts are never invented: a count the AppView leaves out (optional in #postView) is null, and the post keeps', () => {
    for (const field of ['likeCount', 'repostCount', 'replyCount', 'quoteCount', 'bookmarkCount'] as const) {
      const item = pinned();
      delete item.post[field];
      const post = mapFeedItem(item);
      expect(post[field]).toBeNull();
      expect(post.uri).toBe(pinned().post.uri);
    }
  });

  test('an account whose handle no longer resolves links by DID', () => {
    const account = mapAccount({ did: 'did:plc:q7fx2mlw4ntkz3yahs6cvbdr', handle: 'handle.invalid' });
    expect(account.url).toBe('https://bsky.app/profile/did:plc:q7fx2mlw4ntkz3yahs6cvbdr');
    expect(account).toMatchObject({ displayName: '', avatarUrl: null, labels: [], isVerified: false });
  });
});
