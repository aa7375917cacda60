import { mapAccount, mapPost } from '../../../shared/platforms/microblog-c/map';
import { withoutQuery } from '../../../shared/platforms/professional/map';
import { url } from '../../../shared/scrape/map';
import { fixture } from '../../../dev/upstream/fake';

/**
 * Upstream values pass through unchanged (issue 19.5): a URL the upstream gives is returned as it
 * wrote it. Each URL below would come back changed from `new URL(…).toString()`: a trailing slash
 * added to a bare host, the host lower-cased, a space or a non-ASCII letter percent-encoded.
 */
const REWRITTEN_BY_URL_API = ['https://News.Example.COM', 'https://cdn.example.org/a photo.jpg', 'https://example.net/café', 'HTTPS://example.com/x?b=2&a=1#top'];

test.each(REWRITTEN_BY_URL_API)('url() keeps %p as written (the URL API would change it)', (given) => {
  expect(new URL(given).toString()).not.toBe(given);
  expect(url(given)).toBe(given);
});

test('url() still refuses what is no absolute http(s) URL, and drops surrounding blanks only', () => {
  expect([url('javascript:alert(1)'), url('//example.com/x'), url('example.com'), url('https://'), url(''), url(42)]).toEqual([null, null, null, null, null, null]);
  expect(url('  https://Example.COM  ')).toBe('https://Example.COM');
});

test("professional: a link loses its tracking query and nothing else", () => {
  expect(withoutQuery('https://www.LinkedIn.com/in/Some-One?trk=public_post#x')).toBe('https://www.LinkedIn.com/in/Some-One');
  expect(withoutQuery('https://www.LinkedIn.com')).toBe('https://www.LinkedIn.com');
});

test('microblog-c: website, avatar, card and media URLs come back as the upstream wrote them', () => {
  const account = { ...(fixture('microblog-c/account.json') as Record<string, unknown>), website: 'HarborLight.Example', avatar: 'https://Media.Example.COM', header: 'https://media.example.com/h é.png' };
  const user = mapAccount(account);
  expect(user).toMatchObject({ website: 'HarborLight.Example', websiteUrl: 'https://HarborLight.Example', avatarUrl: 'https://Media.Example.COM', headerUrl: 'https://media.example.com/h é.png' });

  const status = (fixture('microblog-c/statuses-page1.json') as Record<string, unknown>[]).find((s) => s.card && (s.media_attachments as unknown[]).length === 0)!;
  const card = { ...(status.card as Record<string, unknown>), url: 'https://Video.Example.COM', provider_url: 'https://Video.Example.COM' };
  const media = [{ id: '1', type: 'image', url: 'https://Media.Example.COM', preview_url: 'https://media.example.com/small pic.jpg', meta: { original: { width: 1, height: 1 } } }];
  const post = mapPost({ ...status, card, media_attachments: media })!;
  expect(post.card).toMatchObject({ url: 'https://Video.Example.COM', providerUrl: 'https://Video.Example.COM' });
  expect(post.links).toContain('https://Video.Example.COM');
  expect(post.media[0]).toMatchObject({ url: 'https://Media.Example.COM', previewUrl: 'https://media.example.com/small pic.jpg' });
});
