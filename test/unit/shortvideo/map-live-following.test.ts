import * as v from 'valibot';
import { mapFollowed, mapFollowingProfile, mapLastLive, mapLive, mapStreams, rehydrationData } from '../../../shared/platforms/shortvideo/map';
import { FollowedAccount, LiveDetails } from '../../../shared/platforms/shortvideo/resources';
import { fixture, fixtureText } from '../../../dev/upstream/fake';

const pull = (data: Record<string, unknown>, qualities: unknown[] = []) => ({ options: { qualities }, stream_data: JSON.stringify({ data }) });

describe('live streams', () => {
  it('every quality; names from the player options; expiry from the URL; a missing format is null; no URL at all is skipped', () => {
    const streams = mapStreams(
      pull(
        {
          hd: { main: { flv: 'https://pull.example/s_hd.flv?expire=1748243747', hls: '', dash: 'https://pull.example/s_hd.mpd', sdk_params: '{"resolution":"1280x720","VCodec":"h264","vbitrate":1600000}' } },
          ld: { main: { flv: '', hls: 'https://pull.example/s_ld.m3u8', sdk_params: 'not json' } },
          broken: { main: { flv: '', hls: '' } },
        },
        [{ sdk_key: 'hd', name: '720p' }],
      ),
    );
    expect(streams).toEqual([
      { quality: 'hd', name: '720p', codec: 'h264', isAudioOnly: false, resolution: '1280x720', width: 1280, height: 720, bitrate: 1600000, flvUrl: 'https://pull.example/s_hd.flv?expire=1748243747', hlsUrl: null, dashUrl: 'https://pull.example/s_hd.mpd', expiresAt: '2025-05-26T07:15:47.000Z' },
      { quality: 'ld', name: 'ld', codec: null, isAudioOnly: false, resolution: null, width: null, height: null, bitrate: null, flvUrl: null, hlsUrl: 'https://pull.example/s_ld.m3u8', dashUrl: null, expiresAt: null },
    ]);
  });

  it('stream_data that is not JSON gives no streams rather than a failure', () => {
    expect(mapStreams({ stream_data: '{oops' })).toEqual([]);
    expect(mapStreams(undefined)).toEqual([]);
  });

  it('a room maps to the Live resource; broadcast type from the live_type flags', () => {
    const room = (fixture('shortvideo/live-room-info.json') as { data: Record<string, unknown> }).data;
    const lookup = (fixture('shortvideo/live-user-room-live.json') as { data: unknown }).data;
    const live = mapLive(room, lookup, false);
    expect(v.safeParse(LiveDetails, live).success).toBe(true);
    expect(live.broadcastType).toBe('software');
    expect(mapLive({ ...room, live_type_third_party: false }, lookup, false).broadcastType).toBe('camera');
    expect(mapLive({ ...room, live_type_third_party: false, live_type_screenshot: true }, lookup, false).broadcastType).toBe('screen');
    expect(mapLive({ ...room, live_type_audio: true }, lookup, false).broadcastType).toBe('audio');
    expect(mapLive({ ...room, link_mic: {} }, lookup, false).battle).toBeNull();
  });

  it('never invents a count: an age-restricted room has no new-follower or shop count (null); a room, gifter or battle without a count maps it null; a gifter without its id is left out and reported', () => {
    const room = (fixture('shortvideo/live-room-info.json') as { data: Record<string, any> }).data;
    const lookup = (fixture('shortvideo/live-user-room-live.json') as { data: unknown }).data;
    const restricted = mapLive({ id_str: '7503400000000000001' }, lookup, true);
    expect(restricted).toMatchObject({ viewerCount: 541, totalViewers: 1661, newFollowers: null, shopProductCount: null, category: null, topGifters: [], battle: null });
    expect(v.safeParse(LiveDetails, restricted).success).toBe(true);
    const noStats = structuredClone(lookup) as { liveRoom: Record<string, unknown> };
    delete noStats.liveRoom.liveRoomStats;
    expect(mapLive({ id_str: '1' }, noStats, true)).toMatchObject({ viewerCount: null, totalViewers: null });
    const gifter = structuredClone(room);
    delete gifter.top_fans[0].fan_ticket;
    expect(mapLive(gifter, lookup, false).topGifters[0]).toMatchObject({ giftScore: null });
    const battle = structuredClone(room);
    delete battle.link_mic.battle_settings.duration;
    expect(mapLive(battle, lookup, false).battle).toMatchObject({ durationSeconds: null });
    const anonymous = structuredClone(room);
    delete anonymous.top_fans[0].user.id_str;
    const dropped: string[] = [];
    const live = mapLive(anonymous, lookup, false, { dropped: (resource, missing) => void dropped.push(`${resource}: ${missing}`) });
    expect(live.topGifters).toHaveLength(room.top_fans.length - 1);
    expect(dropped).toEqual(['top gifter: top gifter id']);
  });

  it('the last live: from the lookup of an offline account; null when it never went live', () => {
    const off = (fixture('shortvideo/live-user-room-offline.json') as { data: unknown }).data;
    expect(mapLastLive(off)).toEqual({ roomId: '7503400000000000001', title: 'Sunday grind', startedAt: '2025-05-10T18:00:00.000Z', endedAt: null, durationSeconds: null, totalViewers: 1661 });
    expect(mapLastLive((fixture('shortvideo/live-user-room-never.json') as { data: unknown }).data)).toBeNull();
  });
});

describe('following', () => {
  it('reads the profile from the page rehydration data', () => {
    const data = rehydrationData(fixtureText('shortvideo/profile-page.html'));
    const detail = (data as Record<string, Record<string, unknown>>).__DEFAULT_SCOPE__!['webapp.user-detail'];
    expect(mapFollowingProfile(detail)).toEqual({ id: '6799800000000000001', secUid: 'MS4wLjABAAAAzolaSec', handle: 'zola.travels', nickname: 'Zola Travels 🇳🇬', url: 'https://www.tiktok.com/@zola.travels', followingCount: 176 });
    expect(rehydrationData(fixtureText('shortvideo/profile-page-shell.html'))).toBeUndefined();
  });

  it('maps a followed account with exact stats (statsV2 over the overflowed stats)', () => {
    const entry = (fixture('shortvideo/following-page1.json') as { userList: unknown[] }).userList[0];
    const f = mapFollowed(entry);
    expect(f.stats.likeCount).toBe(3123456789);
    expect(v.safeParse(FollowedAccount, f).success).toBe(true);
    expect(() => mapFollowed({ user: {} })).toThrow(expect.objectContaining({ code: 'EXTRACTION_FAILED' }));
  });
});
