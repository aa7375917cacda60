import * as v from 'valibot';
import { balance } from '../../shared/accounting/teams';
import { LiveData } from '../../shared/platforms/shortvideo/resources';
import { fixture, type FakeReply } from '../../dev/upstream/fake';
import { answeredTogether } from '../support/together';
import { type ExpectError, type Harness, withReplayGateway } from '../support/harness';
import { coldShortvideoReplay } from '../support/shortvideo';
import { SHORTVIDEO } from '../../dev/upstream/replay';

/**
 * Operation 11 through the local gateway: live and offline answers, round trips, the age gate, and
 * every listed status with no charge on error (401 and 402: test/contract).
 */
const PATH = '/v1/shortvideo/user/live';
const { liveLookup: LOOKUP, liveRoom: INFO } = SHORTVIDEO;

let h: Harness;
let key: string;
let teamId: string;
let expectError: ExpectError;
// The recorded live account and its room, whatever the handle.
withReplayGateway(100, coldShortvideoReplay, (g) => void ({ h, key, teamId, expectError } = g));
const paths = () => h.fake.requests.map((r) => r.path);

describe('200', () => {
  test('live: the user, every stream quality with its expiry, battle, top gifters; lookup then room (2 round trips), unsigned', async () => {
    const before = await balance(teamId);
    const res = await h.call(PATH, { handle: '@Qlai.Plays' }, { key });
    expect(res.status).toBe(200);
    const d = res.body.data;
    expect(v.safeParse(LiveData, { ...d, fetchedAt: undefined }).success).toBe(true);
    expect(d.isLive).toBe(true);
    expect(d.lastLive).toBeNull();
    expect(d.user).toEqual({
      id: '6888900000000000001',
      secUid: 'MS4wLjABAAAAqlaiSec',
      handle: 'qlai.plays',
      nickname: 'Qlai Plays',
      bio: 'Ragnarok nights, every night.',
      avatarUrl: 'https://p16-webcast.shortvideo-cdn.example/avt/qlai-1080.webp',
      verified: false,
      isPrivate: false,
      followerCount: 832,
      followingCount: 7,
      profileUrl: 'https://www.tiktok.com/@qlai.plays',
      liveUrl: 'https://www.tiktok.com/@qlai.plays/live',
    });
    expect(d.live).toMatchObject({
      roomId: '7503400000000000001',
      streamId: '2999500000000000001',
      title: 'Ow Zeny Only',
      startedAt: '2025-05-12T06:54:05.000Z',
      viewerCount: 541,
      totalViewers: 1661,
      newFollowers: 12,
      category: 'Gaming',
      game: 'Ragnarok Origin Global',
      broadcastType: 'software',
      isCoHosting: true,
      battle: { id: '7503400000000009999', startedAt: '2025-05-12T06:56:40.123Z', durationSeconds: 300, isFinished: false, opponentUserId: '7000000000000000009', scores: [{ userId: '6888900000000000001', score: 1200, isHost: true }, { userId: '7000000000000000009', score: 950, isHost: false }] },
      topGifters: [{ userId: '6917200000000000001', secUid: 'MS4wLjABAAAAfanSec', handle: 'ken.gifts', nickname: 'Ken', avatarUrl: 'https://p16-webcast.shortvideo-cdn.example/avt/ken-100.webp', followerCount: 157, gifterLevel: 12, giftScore: 320 }],
      ageRestricted: false,
      hasShop: true,
      shopProductCount: 3,
      chatEnabled: true,
      giftsEnabled: true,
    });
    const byQuality = Object.fromEntries(d.live.streams.map((s: { quality: string; codec: string }) => [`${s.quality}/${s.codec}`, s]));
    expect(Object.keys(byQuality).sort()).toEqual(['ao/h265', 'hd/h265', 'origin/h265', 'sd/h265']);
    expect(byQuality['hd/h265']).toEqual({
      quality: 'hd',
      name: '720p',
      codec: 'h265',
      isAudioOnly: false,
      resolution: '1280x720',
      width: 1280,
      height: 720,
      bitrate: 1600000,
      flvUrl: 'https://pull-flv-l1.shortvideo-cdn.example/game/stream-2999500000000000001_hd.flv?expire=1748243747&sign=abc',
      hlsUrl: 'https://pull-hls-l1.shortvideo-cdn.example/game/stream-2999500000000000001_hd/index.m3u8?expire=1748243747&sign=def',
      dashUrl: null,
      expiresAt: '2025-05-26T07:15:47.000Z',
    });
    expect(byQuality['ao/h265']).toMatchObject({ isAudioOnly: true, name: 'Audio only', resolution: null, width: null, hlsUrl: null });
    expect(res.body.meta.creditsCharged).toBe(1);
    expect(await balance(teamId)).toBe(before - 1);
    expect(paths()).toEqual([LOOKUP, INFO]);
    const [lookup, info] = h.fake.requests;
    expect(lookup!.query).toMatchObject({ uniqueId: 'qlai.plays', sourceType: '54', aid: '1988', msToken: '', user_is_login: 'false' });
    expect(lookup!.query['X-Bogus']).toBeUndefined();
    expect(lookup!.headers.cookie).toBe('tt-target-idc=useast1a');
    expect(info!.query).toMatchObject({ room_id: '7503400000000000001', aid: '1988' });
  });

  test('a warm function that saw the room asks the lookup and the room at once (1 round trip)', async () => {
    await h.call(PATH, { handle: 'qlai.plays' }, { key });
    h.fake.requests.length = 0;
    const together = answeredTogether(h.fake, { [LOOKUP]: { body: fixture('shortvideo/live-user-room-live.json') }, [INFO]: { body: fixture('shortvideo/live-room-info.json') } });
    const res = await h.call(PATH, { handle: 'qlai.plays' }, { key });
    expect(res.body.data.isLive).toBe(true);
    expect(paths().sort()).toEqual([LOOKUP, INFO].sort());
    expect(together.met()).toBe(true);
  });

  test('offline: isLive false, live null, lastLive from the lookup; 1 round trip (the stale room id is not trusted)', async () => {
    h.fake.on(LOOKUP, { body: fixture('shortvideo/live-user-room-offline.json') });
    const res = await h.call(PATH, { handle: 'qlai.plays' }, { key });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ isLive: false, live: null, lastLive: { roomId: '7503400000000000001', title: 'Sunday grind', startedAt: '2025-05-10T18:00:00.000Z', endedAt: null, durationSeconds: null, totalViewers: 1661 } });
    expect(paths()).toEqual([LOOKUP]);
  });

  test('never live: lastLive null', async () => {
    h.fake.on(LOOKUP, { body: fixture('shortvideo/live-user-room-never.json') });
    const res = await h.call(PATH, { handle: 'quiet.one' }, { key });
    expect(res.body.data).toMatchObject({ isLive: false, live: null, lastLive: null });
  });

  test('an age-restricted room: live, ageRestricted true, no streams, details from the lookup', async () => {
    h.fake.on(INFO, { body: fixture('shortvideo/live-room-info-age-restricted.json') });
    const res = await h.call(PATH, { handle: 'qlai.plays' }, { key });
    expect(res.status).toBe(200);
    expect(res.body.data.live).toMatchObject({ roomId: '7503400000000000001', ageRestricted: true, streams: [], title: 'Ow Zeny Only', viewerCount: 541, totalViewers: 1661, streamId: '2999500000000000001' });
  });
});

describe('errors cost nothing', () => {
  test('404: unknown user (19881007)', async () => {
    h.fake.on(LOOKUP, { body: fixture('shortvideo/live-user-not-found.json') });
    await expectError(PATH, { handle: 'nobody.here' }, 404, 'NOT_FOUND');
  });

  test('503: an answer without the user and without the not-found code is EXTRACTION_FAILED, not 404', async () => {
    h.fake.on(LOOKUP, { body: { data: { liveRoom: null }, statusCode: 0 } });
    await expectError(PATH, { handle: 'nobody.here' }, 503, 'EXTRACTION_FAILED');
  });

  test.each([['not a name', { handle: 'a b' }], ['another host', { handle: 'https://example.com/@x' }], ['nothing', {}]])('422: %s', async (_n, q) => {
    await expectError(PATH, q as Record<string, string>, 422, 'VALIDATION_ERROR');
  });

  test.each([
    ['params_error (19881005)', LOOKUP, { body: { data: null, message: 'params_error', statusCode: 19881005 } }, 'EXTRACTION_FAILED'],
    ['captcha', LOOKUP, { body: fixture('shortvideo/captcha.json') }, 'UPSTREAM_BLOCKED'],
    ['room info down', INFO, { status: 502, body: 'bad gateway' }, 'PLATFORM_UNAVAILABLE'],
  ])('503: %s', async (_n, path, reply, code) => {
    h.fake.on(path, reply as FakeReply);
    await expectError(PATH, { handle: `fail${code.length}` }, 503, code);
  });
});
