import * as v from 'valibot';
import { isReferralLink, pageUrlParam, pageUsername } from '../../../shared/platforms/linkpage/site';

describe('linkpage page URL: the lower-cased username (fetched for, and the cache key)', () => {
  it.each([
    ['https://pillar.io/marisolcooks', 'marisolcooks'],
    ['https://pillar.io/MarisolCooks', 'marisolcooks'],
    ['https://www.pillar.io/marisolcooks/', 'marisolcooks'],
    ['http://pillar.io/marisol.cooks?utm_source=ig&ref=bio', 'marisol.cooks'],
    ['  https://pillar.io/marisol_cooks-2#links  ', 'marisol_cooks-2'],
  ])('%s', (raw, username) => {
    expect(pageUsername(raw)).toBe(username);
    const r = v.safeParse(pageUrlParam, raw);
    expect(r.success && r.output).toBe(username);
  });

  it.each([
    ['another host', 'https://evil.example/marisolcooks'],
    ['a look-alike host', 'https://pillar.io.evil.example/marisolcooks'],
    ['a sub-domain', 'https://api.pillar.io/marisolcooks'],
    ['credentials', 'https://user:pw@pillar.io/marisolcooks'],
    ['credentials hiding another host', 'https://pillar.io@evil.example/marisolcooks'],
    ['a port', 'https://pillar.io:8443/marisolcooks'],
    ['the home page', 'https://pillar.io/'],
    ['a deeper path', 'https://pillar.io/marisolcooks/cook-along'],
    ['a bundle path', 'https://pillar.io/js/chunk-vendors.js'],
    ['dots only', 'https://pillar.io/..'],
    ['an encoded slash', 'https://pillar.io/..%2Fgraphql'],
    ['a username too long', `https://pillar.io/${'a'.repeat(65)}`],
    ['odd characters', 'https://pillar.io/mar!sol'],
    ['javascript:', 'javascript:alert(1)//pillar.io/marisolcooks'],
    ['not a URL', 'marisolcooks'],
  ])('rejects %s', (_what, raw) => {
    expect(pageUsername(raw)).toBeNull();
    const r = v.safeParse(pageUrlParam, raw);
    expect(r.success).toBe(false);
    expect(r.issues?.[0]?.message).toMatch(/creator page URL/);
  });

  it('recognises the platform referral links', () => {
    expect(isReferralLink('https://pillar.io/referral/marisolcooks')).toBe(true);
    expect(isReferralLink('https://www.marisolcooks.example/referral')).toBe(false);
  });
});
