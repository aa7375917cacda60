import * as v from 'valibot';
import { canonicalContentUrl, contentUrlParam, kindOf } from '../../../shared/platforms/professional/site';

const POST = 'quayside-robotics_dockwalk-warehouseautomation-activity-7301122334455667788-Qw3R';
const UGC = 'rafaela-montenegro_concrete-slab-checklist-ugcPost-7420000111222333444-pQ2z';
const ARTICLE = 'counting-footsteps-not-berths-marguerite-oyelaran-x7k2q';
const canonicalPost = `https://www.linkedin.com/posts/${POST}`;
const canonicalArticle = `https://www.linkedin.com/pulse/${ARTICLE}`;

describe('professional content URL: accepted forms all become the one canonical URL (fetched, and the cache key)', () => {
  it.each([
    [`https://www.linkedin.com/posts/${POST}`, canonicalPost],
    [`https://linkedin.com/posts/${POST}`, canonicalPost],
    [`http://www.linkedin.com/posts/${POST}/`, canonicalPost],
    [`https://fr.linkedin.com/posts/${POST}`, canonicalPost],
    [`https://IL.LinkedIn.com/posts/${POST}`, canonicalPost],
    [`https://www.linkedin.com/posts/${POST}?utm_source=share&utm_medium=member_desktop&rcm=ACoAAA`, canonicalPost],
    [`  https://www.linkedin.com/posts/${POST}#comments  `, canonicalPost],
    [`https://www.linkedin.com/posts/${UGC}`, `https://www.linkedin.com/posts/${UGC}`],
    [`https://www.linkedin.com/pulse/${ARTICLE}`, canonicalArticle],
    [`https://de.linkedin.com/pulse/${ARTICLE}/?trk=article-ssr-frontend-pulse_more-articles`, canonicalArticle],
    ['https://www.linkedin.com/pulse/k%C3%BCnstliche-intelligenz-im-hafen-anna-schmidt-ab1cd', 'https://www.linkedin.com/pulse/k%C3%BCnstliche-intelligenz-im-hafen-anna-schmidt-ab1cd'],
  ])('%s', (raw, canonical) => {
    expect(canonicalContentUrl(raw)).toBe(canonical);
    const r = v.safeParse(contentUrlParam, raw);
    expect(r.success && r.output).toBe(canonical);
  });

  it('tells posts from articles by the path', () => {
    expect(kindOf(canonicalPost)).toBe('post');
    expect(kindOf(canonicalArticle)).toBe('article');
  });

  it.each([
    ['another host', `https://example.com/posts/${POST}`],
    ['a look-alike suffix host', `https://www.linkedin.com.evil.example/posts/${POST}`],
    ['a look-alike prefix host', `https://evillinkedin.com/posts/${POST}`],
    ['a three-letter regional prefix', `https://abc.linkedin.com/posts/${POST}`],
    ['a nested subdomain', `https://api.fr.linkedin.com/posts/${POST}`],
    ['a service subdomain', `https://media.linkedin.com/posts/${POST}`],
    ['credentials', `https://user:pw@www.linkedin.com/posts/${POST}`],
    ['credentials hiding another host', `https://www.linkedin.com@evil.example/posts/${POST}`],
    ['credentials on a regional host', `https://user@fr.linkedin.com/posts/${POST}`],
    ['a port', `https://www.linkedin.com:8443/posts/${POST}`],
    ['a port on a regional host', `https://fr.linkedin.com:444/posts/${POST}`],
    ['an IP address', `https://127.0.0.1/posts/${POST}`],
    ['javascript:', `javascript:alert(1)//www.linkedin.com/posts/${POST}`],
    ['a file URL', 'file:///etc/passwd'],
    ['no scheme', `www.linkedin.com/posts/${POST}`],
    ['a profile', 'https://www.linkedin.com/in/anouk-verhaegen-5b21a7'],
    ['a feed update URN (a sign-up wall for guests)', 'https://www.linkedin.com/feed/update/urn:li:activity:7301122334455667788'],
    ['the posts listing', 'https://www.linkedin.com/posts/'],
    ['an extra path segment', `https://www.linkedin.com/posts/${POST}/comments`],
    ['an encoded slash', 'https://www.linkedin.com/posts/..%2F..%2Fuas%2Flogin'],
    ['an encoded backslash', 'https://www.linkedin.com/pulse/a%5Cb'],
    ['a dot segment', 'https://www.linkedin.com/posts/..'],
    ['a company posts page', 'https://www.linkedin.com/company/quayside-robotics/posts/'],
    ['not a URL', 'not a url'],
  ])('rejects %s', (_what, raw) => {
    expect(canonicalContentUrl(raw)).toBeNull();
    const r = v.safeParse(contentUrlParam, raw);
    expect(r.success).toBe(false);
    expect(r.issues?.[0]?.message).toMatch(/post .* or article/);
  });

  it('rejects a URL longer than 2048 characters', () => {
    expect(v.safeParse(contentUrlParam, `https://www.linkedin.com/posts/${POST}?pad=${'x'.repeat(2100)}`).success).toBe(false);
  });
});
