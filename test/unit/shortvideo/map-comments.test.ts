import * as v from 'valibot';
import { emojisOf, exactCount, mapComment } from '../../../shared/platforms/shortvideo/map';
import { Comment } from '../../../shared/platforms/shortvideo/resources';
import { fixture } from '../../../dev/upstream/fake';

const page = fixture('shortvideo/comments-page1.json') as { comments: unknown[] };

describe('comment mapper (crafted from the real comment/list shape)', () => {
  const [pinned, image, sticker, yoruba] = page.comments.map((c) => mapComment(c));

  it('maps every field of a comment with a label, a pinned flag and a top reply', () => {
    expect(pinned).toEqual({
      id: '7401200000000000001',
      videoId: '7401122334455667788',
      parentId: null,
      replyToId: null,
      text: 'This view never gets old 🌅🔥🔥 @kemi_bakes',
      createdAt: '2026-02-05T08:54:53.000Z',
      language: 'en',
      likeCount: 1532,
      replyCount: 12,
      author: {
        id: '6900000000000000001',
        secUid: 'MS4wLjABAAAAada_walksXq9vTz',
        handle: 'ada.walks',
        nickname: 'Ada 🚶🏾‍♀️',
        avatarUrl: 'https://p16-common-sign.shortvideo-cdn.example/tos-avt-0068/ada.walks.webp',
        url: 'https://www.tiktok.com/@ada.walks',
      },
      isLikedByCreator: true,
      isPinnedByCreator: true,
      isTranslatable: true,
      allowsPhotoDownload: false,
      labels: [{ text: 'Creator', type: 1 }],
      images: [],
      sticker: null,
      emojis: ['🌅', '🔥'],
      shareInfo: {
        url: 'https://m.tiktok.com/v/7401122334455667788.html?share_comment_id=7401200000000000001&share_item_id=7401122334455667788',
        title: 'Lagos sunset timelapse #sunset #lagos',
        description: 'Ada 🚶🏾‍♀️’s comment: This view never gets old 🌅🔥🔥 @kemi_bakes',
        acl: { code: 0, addToStoryCode: null },
      },
      topReply: expect.objectContaining({
        id: '7401200000000000099',
        parentId: '7401200000000000001',
        replyToId: null,
        text: '@kemi_bakes agreed 😂',
        emojis: ['😂'],
        author: expect.objectContaining({ handle: 'tunde.films' }),
      }),
    });
    expect(pinned!.topReply).not.toHaveProperty('topReply');
    expect(v.safeParse(Comment, pinned).success).toBe(true);
  });

  it('an image comment: original and crop with every mirror; share refused (acl code 1) with an empty URL', () => {
    expect(image!.images).toEqual([
      {
        original: {
          url: 'https://p16-comment-sign.shortvideo-cdn.example/tos-comment-sg/9f8e7d6c5b4a~orig.jpeg',
          urls: ['https://p16-comment-sign.shortvideo-cdn.example/tos-comment-sg/9f8e7d6c5b4a~orig.jpeg', 'https://p19-comment-sign.shortvideo-cdn.example/tos-comment-sg/9f8e7d6c5b4a~orig.jpeg'],
          uri: 'tos-comment-sg/9f8e7d6c5b4a',
          width: 720,
          height: 1280,
        },
        crop: { url: 'https://p16-comment-sign.shortvideo-cdn.example/tos-comment-sg/9f8e7d6c5b4a~crop.jpeg', urls: ['https://p16-comment-sign.shortvideo-cdn.example/tos-comment-sg/9f8e7d6c5b4a~crop.jpeg'], uri: 'tos-comment-sg/9f8e7d6c5b4a', width: 720, height: 960 },
      },
    ]);
    expect(image).toMatchObject({ text: '', language: 'un', allowsPhotoDownload: true, isTranslatable: false, shareInfo: { url: '', acl: { code: 1 } } });
  });

  it('a sticker comment and emoji with skin tones and flags', () => {
    expect(sticker!.sticker).toEqual({ id: '801234', url: 'https://p16-sticker.shortvideo-cdn.example/s/801234.png', animatedUrl: 'https://p16-sticker.shortvideo-cdn.example/s/801234.webp', width: 160, height: 160 });
    expect(yoruba!.emojis).toEqual(['👏🏿', '🇳🇬']);
    expect(emojisOf('no emoji, only words: 123 #tag')).toEqual([]);
    expect(emojisOf('❤️❤️ 👨‍👩‍👧')).toEqual(['❤️', '👨‍👩‍👧']);
    for (const c of [image, sticker, yoruba]) expect(v.safeParse(Comment, c).success).toBe(true);
  });

  it('a comment without its id or author is an unknown shape (EXTRACTION_FAILED), never half a comment', () => {
    const c = page.comments[0] as Record<string, unknown>;
    expect(() => mapComment({ ...c, cid: undefined })).toThrow(expect.objectContaining({ code: 'EXTRACTION_FAILED' }));
    expect(() => mapComment({ ...c, user: {} })).toThrow(expect.objectContaining({ code: 'EXTRACTION_FAILED' }));
  });

  it('never invents a count or a code: a comment without its like or reply count or its share acl code maps them null; without its cid or author uid it fails naming it', () => {
    const c = page.comments[0] as Record<string, unknown>;
    expect(mapComment({ ...c, digg_count: undefined, reply_comment_total: 'many', share_info: { ...(c.share_info as object), acl: {} } })).toMatchObject({
      id: c.cid,
      likeCount: null,
      replyCount: null,
      shareInfo: { acl: { code: null } },
    });
    const fails = (raw: unknown, what: RegExp) => expect(() => mapComment(raw)).toThrow(expect.objectContaining({ code: 'EXTRACTION_FAILED', internal: expect.stringMatching(what) }));
    fails({ ...c, cid: undefined }, /comment id/);
    fails({ ...c, user: { ...(c.user as object), uid: undefined } }, /comment author id/);
  });
});

describe('exact counts', () => {
  it('statsV2 strings win over stats (which overflow and round); stats when statsV2 lacks the key', () => {
    expect(exactCount({ heartCount: '3123456789' }, { heartCount: -1171510507 }, 'heartCount')).toBe(3123456789);
    expect(exactCount({ videoCount: '56953998' }, { videoCount: 0 }, 'videoCount')).toBe(56953998);
    expect(exactCount({}, { diggCount: 17 }, 'diggCount')).toBe(17);
    // A count neither carries is never an invented 0: null.
    expect(exactCount(undefined, { diggCount: 3 }, 'videoCount')).toBeNull();
    expect(exactCount({ heart: '12' }, {}, 'heartCount', 'heart')).toBe(12);
  });
});
