import * as v from 'valibot';
import { mapHashtagInfo, mapHashtagVideo } from '../../../shared/platforms/shortvideo/map';
import { HashtagInfo, HashtagVideo } from '../../../shared/platforms/shortvideo/resources';
import { fixture } from '../../../dev/upstream/fake';

const [full, photo, ad] = (fixture('shortvideo/hashtag-items-page1.json') as { itemList: unknown[] }).itemList.map((item) => mapHashtagVideo(item));

describe('hashtag mapper (crafted from the real itemStruct and challenge shapes)', () => {
  it('the hashtag: exact counts from statsV2 (stats says videoCount 0), empty cover sizes skipped, announcement', () => {
    const info = mapHashtagInfo(fixture('shortvideo/hashtag-detail.json'), 'x');
    expect(info).toEqual({
      id: '1600000000000001',
      name: 'lagossunset',
      url: 'https://www.tiktok.com/tag/lagossunset',
      description: 'Sunsets over Lagos, shot by you',
      coverUrl: 'https://p16-common-sign.shortvideo-cdn.example/tag/cover1080.jpeg',
      profileImageUrl: 'https://p16-common-sign.shortvideo-cdn.example/tag/p1080.jpeg',
      announcement: { title: 'Community note', body: 'Tag your best Lagos sunset this week.' },
      videoCount: 56953998,
      viewCount: 954780316160,
      isCommerce: false,
    });
    expect(v.safeParse(HashtagInfo, info).success).toBe(true);
  });

  it('a video with every optional part: stats exact, author likes past 32 bits, formats, subtitles, place, anchors, warnings', () => {
    expect(full).toMatchObject({
      id: '7500000000000000001',
      url: 'https://www.tiktok.com/@ada.walks/video/7500000000000000001',
      type: 'video',
      description: 'Golden hour #foryou #lagossunset @kemi_bakes',
      createdAt: '2026-02-05T08:33:12.000Z',
      language: 'en',
      stats: { playCount: 12100, likeCount: 2887, commentCount: 179, shareCount: 38, collectCount: 100, repostCount: 4 },
      author: { id: '6900000000000000001', handle: 'ada.walks', avatarUrl: 'https://p16-common-sign.shortvideo-cdn.example/avt/ada.walks-1080.webp', stats: { likeCount: 3123456789, followerCount: 398400 } },
      photo: null,
      hashtags: [
        { id: '42164', name: 'foryou', description: '' },
        { id: '1600000000000001', name: 'lagossunset', description: 'Sunsets over Lagos' },
      ],
      mentions: [{ handle: 'kemi_bakes', userId: '6900000000000000002', secUid: 'MS4wLjABAAAAkemi' }],
      effects: [{ id: '3149700001', name: 'Golden Hour' }],
      stickerTexts: ['wait for it 🌅'],
      location: { id: '42200000000000001', name: 'Tarkwa Bay Beach', address: 'Tarkwa Bay, Lagos, Nigeria', city: 'Lagos', province: 'Lagos', country: 'Nigeria', category: 'Beaches' },
      contentCategory: { id: 110, name: null },
      anchors: [{ id: '3149700001', type: 28, keyword: 'Golden Hour', description: 'Effects', url: 'https://www.capcut.com', iconUrl: 'https://p16-common-sign.shortvideo-cdn.example/obj/capcut_logo_64px.png' }],
      warnings: [{ type: '3', text: 'The action in this video could result in serious injury.', url: 'https://www.tiktok.com/safety' }],
      playlistId: '7380000000000000001',
      isPinned: true,
      isAd: false,
      isCommerce: false,
      aigcLabelType: 2,
      canRepost: true,
      suggestedSearches: ['lagos sunset spots', 'tarkwa bay'],
    });
    expect(full!.video).toMatchObject({
      duration: 15,
      codec: 'h264',
      quality: 'lower',
      volume: { loudness: -17.9, peak: 0.63826 },
      playUrl: expect.stringContaining('/play.mp4'),
      downloadUrl: expect.stringContaining('/download.mp4'),
      subtitles: [{ language: 'eng-US', languageId: '2', format: 'webvtt', source: 'ASR', version: '1:llm', size: 1666, url: 'https://v16m-webapp.shortvideo-cdn.example/sub/eng.vtt', expiresAt: '2026-02-07T10:49:00.000Z' }],
    });
    expect(full!.video.formats).toEqual([
      expect.objectContaining({ gearName: 'adapt_lower_720_1', qualityType: 14, codec: 'h265_hvc1', format: 'mp4', bitrate: 1473213, fps: null, width: 720, height: 1280, size: 2762276, url: expect.stringContaining('/720.mp4') }),
      expect.objectContaining({ gearName: 'lower_540_0', codec: 'h264', fps: 30, width: 576, height: 1024 }),
    ]);
    expect(v.safeParse(HashtagVideo, full).success).toBe(true);
  });

  it('a photo post: type photo, /photo/ URL, images, no video stream; music with streaming links', () => {
    expect(photo).toMatchObject({
      type: 'photo',
      url: 'https://www.tiktok.com/@pixelpat/photo/7500000000000000002',
      photo: { title: 'Sky study', coverUrl: expect.stringContaining('cover.jpeg'), images: [expect.objectContaining({ width: 1080, height: 1440, urls: expect.arrayContaining([expect.any(String), expect.any(String)]) }), expect.objectContaining({ url: expect.stringContaining('-2.jpeg') })] },
      video: { playUrl: null, downloadUrl: null, formats: [], volume: null },
      music: {
        id: '7428600000000000009',
        title: 'Calm Down',
        url: 'https://www.tiktok.com/music/Calm-Down-7428600000000000009',
        authorName: 'Rema',
        album: 'Rave & Roses',
        preciseDuration: 60.024,
        shootDuration: 15,
        isCommerceMusic: true,
        isUnlimitedMusic: false,
        streaming: [{ platform: 1, songId: '0WtM2NBVQNNJLh6scP13H8' }, { platform: 3, songId: '1622219580' }],
      },
    });
    expect(v.safeParse(HashtagVideo, photo).success).toBe(true);
  });

  it('an ad: commerce, sharing/duet/stitch/repost off, comment status kept, no music', () => {
    expect(ad).toMatchObject({ isAd: true, isCommerce: true, shareEnabled: false, duetEnabled: false, stitchEnabled: false, canRepost: false, commentStatus: 3, music: null, location: null, playlistId: null });
    expect(v.safeParse(HashtagVideo, ad).success).toBe(true);
  });

  it('never invents a value: a format entry missing a field the spec types is left out; a hashtag without an id has id null', () => {
    const item = () => structuredClone((fixture('shortvideo/hashtag-items-page1.json') as { itemList: Record<string, any>[] }).itemList[0]!);
    for (const field of ['GearName', 'QualityType', 'CodecType', 'Bitrate']) {
      const raw = item();
      delete raw.video.bitrateInfo[0][field];
      expect(mapHashtagVideo(raw).video.formats.map((f) => f.gearName)).toEqual(['lower_540_0']);
    }
    for (const field of ['Width', 'Height', 'DataSize']) {
      const raw = item();
      delete raw.video.bitrateInfo[1].PlayAddr[field];
      expect(mapHashtagVideo(raw).video.formats.map((f) => f.gearName)).toEqual(['adapt_lower_720_1']);
    }
    const raw = item();
    raw.challenges = [];
    raw.textExtra = [{ type: 1, hashtagName: 'nolink', start: 0, end: 7 }];
    expect(mapHashtagVideo(raw).hashtags).toEqual([{ id: null, name: 'nolink', description: '' }]);
  });
});
