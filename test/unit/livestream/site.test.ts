import * as v from 'valibot';
import { PUBLIC_HOSTS, parseClipUrl, urlParam } from '../../../shared/platforms/livestream/site';

/** livestream's one parameter: the clip URL, the only way in, and only on the platform's host. */
const HOST = PUBLIC_HOSTS[0];
const HLS_ID = 'clip_01JQ7ZK3M8W4TYV5R2N6P9XBCD';
const MP4_ID = 'clip_01H2K8R4TQ6VZ3N5W7YB9CDMFG';

describe('livestream clip URL (the SSRF guard)', () => {
  it.each([
    [`https://${HOST}/towerbuilder/clips/${HLS_ID}`, HLS_ID, 'towerbuilder'],
    [`https://www.${HOST}/TowerBuilder/clips/${HLS_ID}/`, HLS_ID, 'towerbuilder'],
    [`http://${HOST}/towerbuilder/clips/${HLS_ID}`, HLS_ID, 'towerbuilder'],
    [`https://${HOST}/towerbuilder/clips/${HLS_ID.toLowerCase()}`, HLS_ID, 'towerbuilder'],
    [`https://${HOST}/towerbuilder?clip=${HLS_ID}`, HLS_ID, 'towerbuilder'],
    [`https://${HOST}/towerbuilder?utm_source=share&clip=${HLS_ID}&t=12`, HLS_ID, 'towerbuilder'],
    [`  https://${HOST}/old_timer-2/clips/${MP4_ID}#top  `, MP4_ID, 'old_timer-2'],
  ])('accepts %s', (raw, clipId, channel) => {
    expect(parseClipUrl(raw)).toEqual({ clipId, channel });
    const r = v.safeParse(urlParam, raw);
    expect(r.success).toBe(true);
    // Only the clip id is kept: it alone identifies the clip (and keys the cache).
    expect(r.output).toEqual({ clipId });
  });

  it.each([
    ['another host', `https://example.com/towerbuilder/clips/${HLS_ID}`],
    ['a suffix host', `https://${HOST}.evil.com/towerbuilder/clips/${HLS_ID}`],
    ['a prefix host', `https://evil${HOST}/towerbuilder/clips/${HLS_ID}`],
    ['a subdomain other than www', `https://api.${HOST}/towerbuilder/clips/${HLS_ID}`],
    ['credentials', `https://user@${HOST}/towerbuilder/clips/${HLS_ID}`],
    ['credentials hiding another host', `https://${HOST}@evil.com/towerbuilder/clips/${HLS_ID}`],
    ['a port', `https://${HOST}:8443/towerbuilder/clips/${HLS_ID}`],
    ['a javascript: URL', `javascript:alert(1)//${HOST}/towerbuilder/clips/${HLS_ID}`],
    ['an ftp URL', `ftp://${HOST}/towerbuilder/clips/${HLS_ID}`],
    ['no scheme', `${HOST}/towerbuilder/clips/${HLS_ID}`],
    ['a channel page', `https://${HOST}/towerbuilder`],
    ['a clips list', `https://${HOST}/towerbuilder/clips`],
    ['an empty clip parameter', `https://${HOST}/towerbuilder?clip=`],
    ['a video URL', `https://${HOST}/towerbuilder/videos/5f3c2a91-7d4e-4b6a-9c1e-2a8b0d6f4e73`],
    ['an id without the clip_ prefix', `https://${HOST}/towerbuilder/clips/01JQ7ZK3M8W4TYV5R2N6P9XBCD`],
    ['an id too short', `https://${HOST}/towerbuilder/clips/clip_01JQ7ZK3M8`],
    ['an id with letters outside Crockford base32', `https://${HOST}/towerbuilder/clips/clip_01JQ7ZK3M8W4TYV5R2N6P9XBCU`],
    ['a path traversal in the id', `https://${HOST}/towerbuilder/clips/clip_..%2F..%2Fadmin`],
    ['an extra path segment', `https://${HOST}/towerbuilder/clips/${HLS_ID}/play`],
    ['a bad channel', `https://${HOST}/tower.builder/clips/${HLS_ID}`],
    ['no URL at all', 'not a url'],
  ])('rejects %s', (_what, raw) => {
    expect(parseClipUrl(raw)).toBeNull();
    const r = v.safeParse(urlParam, raw);
    expect(r.success).toBe(false);
    expect(r.issues?.[0]?.message).toMatch(/clip URL/);
  });

  it('rejects a URL longer than 2048 characters', () => {
    const raw = `https://${HOST}/towerbuilder?pad=${'x'.repeat(2100)}&clip=${HLS_ID}`;
    expect(v.safeParse(urlParam, raw).success).toBe(false);
  });
});
