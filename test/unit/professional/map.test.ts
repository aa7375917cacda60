import * as v from 'valibot';
import { activityTime, countOf, durationSeconds, hashtagsOf, mapContent, readContentPage, withoutQuery } from '../../../shared/platforms/professional/map';
import { Content } from '../../../shared/platforms/professional/resources';
import { SIGN_IN_MESSAGE } from '../../../shared/platforms/professional/site';
import { fixtureText } from '../../../dev/upstream/fake';

/** Mappers on the crafted pages (test/fixtures/professional/, shaped on real logged-out pages). */
const page = (name: string) => fixtureText(`professional/${name}.html`);
const map = (name: string, requested = 'https://www.linkedin.com/posts/requested') => {
  const content = mapContent(page(name), requested);
  // Every mapped page satisfies the resource schema the contract tests hold responses to.
  const r = v.safeParse(Content, content);
  if (!r.success) throw new Error(JSON.stringify(r.issues.map((i) => [v.getDotPath(i), i.message])));
  return content;
};

describe('professional mapper: a video post with comments', () => {
  const c = map('post-video');

  it('reads the post from the JSON-LD VideoObject, author under "creator"', () => {
    expect(c).toMatchObject({
      type: 'post',
      id: '7301122334455667788',
      url: 'https://www.linkedin.com/posts/quayside-robotics_dockwalk-warehouseautomation-activity-7301122334455667788-Qw3R',
      title: '#dockwalk #warehouseautomation',
      publishedAt: '2025-02-27T09:41:12.512Z',
      modifiedAt: null,
      readingTimeMinutes: null,
      likeCount: 1157,
      commentCount: 14,
      relatedArticles: [],
      images: [],
      hashtags: ['DockWalk', 'WarehouseAutomation'],
      reshared: null,
    });
    expect(c.body).toBe('Our night shift crew filmed the first full dock walk of the new sorter arm.\n\nThree minutes, zero dropped parcels.\n\n#DockWalk #WarehouseAutomation');
    // The " | 14 comments on <site>" tail of the description is not part of the excerpt.
    expect(c.excerpt).toBe(c.body);
  });

  it('gives a company author the follower count its page prints ("1,157 followers"), not the JSON-LD 0', () => {
    expect(c.author).toEqual({
      name: 'Quayside Robotics',
      url: 'https://www.linkedin.com/company/quayside-robotics',
      imageUrl: expect.stringContaining('/company-logo_100_100/'),
      followerCount: 1157,
    });
  });

  it('takes the highest-bitrate stream and the JSON-LD duration, size and embed URL', () => {
    expect(c.media).toEqual({
      type: 'video',
      streamUrl: expect.stringContaining('/mp4-720p-30fp-crf28/'),
      thumbnailUrl: expect.stringContaining('/videocover-high/'),
      durationSeconds: 184,
      width: 1280,
      height: 720,
      embedUrl: 'https://www.linkedin.com/embed/feed/update/urn:li:activity:7301122334455667788?compact=true',
    });
    // Signed media URLs keep their signature intact (&amp; decoded).
    expect(c.media?.type === 'video' && c.media.streamUrl).toMatch(/\?e=2147483647&v=beta&t=vid720Sig$/);
  });

  it('lists the comments the page shows: profile URL without tracking, exact time from the JSON-LD, the visible reaction count', () => {
    expect(c.comments).toEqual([
      { authorName: 'Ilse Brandvold', authorUrl: 'https://no.linkedin.com/in/ilse-brandvold', text: "Zero drops over three minutes is impressive. What is the arm's cycle time?", createdAt: '2025-02-27T11:02:45.118Z', likeCount: 4 },
      { authorName: 'Tomasz Weir', authorUrl: 'https://uk.linkedin.com/in/tomasz-weir-4411', text: 'Great footage, team!', createdAt: '2025-02-27T13:20:03.907Z', likeCount: 0 },
    ]);
  });

  it('never invents a count: a comment whose reactions neither the page nor the JSON-LD shows has likeCount null', () => {
    const stat = '"interactionStatistic":{"@type":"InteractionCounter","interactionType":"http://schema.org/LikeAction","userInteractionCount":0}';
    expect(page('post-video')).toContain(`"Great footage, team!","creator":{"@type":"Person","name":"Tomasz Weir"},${stat}`);
    const html = page('post-video').replace(`,${stat}`, '');
    const tomasz = mapContent(html, 'https://www.linkedin.com/posts/requested').comments.find((x) => x.authorName === 'Tomasz Weir');
    expect(tomasz?.likeCount).toBeNull();
  });

  it('ignores the related posts below the post (their video, text and counts)', () => {
    expect(JSON.stringify(c)).not.toMatch(/OTHERvideo|forklifts|someone-else/);
  });
});

describe('professional mapper: an image post whose JSON-LD author has no image', () => {
  const c = map('post-image');

  it('falls back to the actor image of the post card for the author', () => {
    expect(c.author).toEqual({
      name: 'Anouk Verhaegen',
      url: 'https://be.linkedin.com/in/anouk-verhaegen-5b21a7',
      imageUrl: 'https://media.licdn.com/dms/image/v2/D4E03AQanoukface01/profile-displayphoto-shrink_400_400/profile-displayphoto-shrink_400_400/0/1690000000000?e=2147483647&v=beta&t=faceSig01',
      followerCount: 2341,
    });
  });

  it('reads the like count from the page when the JSON-LD has no statistics', () => {
    expect(c.likeCount).toBe(73);
    expect(c.commentCount).toBe(1);
  });

  it('lists each image once, in page order, with its alt text', () => {
    expect(c.images).toEqual([
      { url: expect.stringContaining('/D4D22AQferryimg001/'), width: null, height: null, alt: 'a ferry at the north pier at dawn' },
      { url: expect.stringContaining('/feedshare-shrink_2048_1536/'), width: null, height: null, alt: 'chart of transfer waits' },
    ]);
    expect(c.media).toBeNull();
  });

  it('uses the summarized page title, not the generic one', () => {
    expect(c.title).toBe('Open ferry timetables cut transfer waits by a third');
    expect(c.excerpt).toBe('When the harbour board published its ferry timetables as open data, three apps picked them up within a week.');
    expect(c.comments).toEqual([{ authorName: 'Pieter-Jan Claes', authorUrl: 'https://be.linkedin.com/in/pjclaes', text: 'We saw the same with bus stops in Ghent. Did riders notice?', createdAt: '2025-12-30T10:12:09.004Z', likeCount: 2 }]);
  });
});

describe('professional mapper: a document post', () => {
  const c = map('post-document');

  it('describes the document: manifest, title, page count and the slides shown logged out', () => {
    expect(c.media).toEqual({
      type: 'document',
      sourceUrl: expect.stringContaining('/feedshare-document-master-manifest/'),
      title: 'Seven checks before you pour a concrete slab',
      pageCount: 12,
      slideImageUrls: [expect.stringMatching(/\/0\/1771000000000\?.*slide0$/), expect.stringMatching(/slide1$/), expect.stringMatching(/slide2$/)],
    });
  });

  it('never returns the placeholder image; the cover is the first slide; a generic "’s Post" heading is no title', () => {
    expect(c.coverImageUrl).toMatch(/slide0$/);
    expect(c.title).toBe('Seven checks before you pour a concrete slab');
    expect(c.id).toBe('7420000111999888777');
    expect(c.likeCount).toBe(402);
    expect(c.commentCount).toBe(0);
    expect(c.comments).toEqual([]);
  });
});

describe('professional mapper: a reshare', () => {
  const c = map('post-reshare');

  it('keeps the outer post and its own counts, and describes the reshared post in the same shape', () => {
    expect(c).toMatchObject({ id: '7433300011122233344', body: 'Proud to see our tidal pilot featured here. Months of work by the whole crew.', likeCount: 9, images: [], hashtags: [] });
    expect(c.reshared).toEqual({
      type: 'post',
      id: '7422972875465941568',
      url: 'https://www.linkedin.com/feed/update/urn:li:activity:7422972875465941568',
      title: null,
      excerpt: null,
      body: 'Our tidal pilot delivered its first full month of power to the island grid.\n\n#TidalEnergy',
      coverImageUrl: expect.stringContaining('/D4D10AQtidalphoto/'),
      author: { name: 'Nordsund Energy', url: 'https://www.linkedin.com/company/nordsund-energy', imageUrl: expect.stringContaining('nordsund_energy_logo'), followerCount: 48210 },
      // Decoded from the activity id: the page prints only "1mo".
      publishedAt: '2026-01-30T12:04:05.678Z',
      modifiedAt: null,
      readingTimeMinutes: null,
      likeCount: null,
      commentCount: null,
      comments: [],
      relatedArticles: [],
      images: [{ url: expect.stringContaining('/D4D10AQtidalphoto/'), width: null, height: null, alt: 'No alternative text description for this image' }],
      media: null,
      hashtags: ['TidalEnergy'],
      reshared: null,
    });
  });
});

describe('professional mapper: an article', () => {
  const c = map('article', 'https://www.linkedin.com/pulse/counting-footsteps-not-berths-marguerite-oyelaran-x7k2q');

  it('reads the Article JSON-LD (author image given as a string) and the reading time', () => {
    expect(c).toMatchObject({
      type: 'article',
      id: '7188001122334455667',
      url: 'https://www.linkedin.com/pulse/counting-footsteps-not-berths-marguerite-oyelaran-x7k2q',
      title: 'Counting footsteps, not berths',
      coverImageUrl: expect.stringContaining('/article-cover_image-shrink_720_1280/'),
      author: { name: 'Marguerite Oyelaran', url: 'https://www.linkedin.com/in/marguerite-oyelaran', imageUrl: expect.stringContaining('/profile-displayphoto-shrink_200_200/'), followerCount: 34996 },
      publishedAt: '2024-06-11T06:45:10.000Z',
      modifiedAt: '2025-01-08T19:02:33.000Z',
      readingTimeMinutes: 6,
      likeCount: 248,
      commentCount: 3,
      images: [],
      media: null,
      reshared: null,
      hashtags: ['UrbanDesign', 'Harbours'],
    });
  });

  it('keeps the body as text: blocks apart, <br> as a line break, cards of other articles left out', () => {
    expect(c.body).toBe(
      'Every harbour city I have worked in has the same problem: the quay is planned for ships, and the people who walk it are an afterthought.\n\n' +
        'What we counted\n\nWe put twelve counters along the north quay for a summer.\nThe busiest hour was not the ferry rush.\n\n' +
        'Morning: cyclists\n\nNoon: tourists\n\nWhere the counters stood\n\nPlan the quay for the people on it. #UrbanDesign #Harbours',
    );
    expect(c.body).not.toContain('Some other article');
  });

  it('lists the related articles without tracking, and no placeholder images', () => {
    expect(c.relatedArticles).toEqual([
      { title: 'Tides and timetables', url: 'https://www.linkedin.com/pulse/tides-timetables-marguerite-oyelaran-q1w2e', imageUrl: expect.stringContaining('/D4D12AQtidescover/') },
      { title: 'Benches are infrastructure', url: 'https://www.linkedin.com/pulse/benches-are-infrastructure-marguerite-oyelaran-z9y8x', imageUrl: null },
    ]);
    expect(c.comments).toEqual([{ authorName: 'Declan Fahy', authorUrl: 'https://ie.linkedin.com/in/declan-fahy', text: 'Footsteps over berths. Stealing this line.', createdAt: null, likeCount: 1024 }]);
  });
});

describe('professional page recognition (content only when the page key and the JSON-LD both say so; a wall only on evidence)', () => {
  const video = page('post-video');

  it.each([
    ['the sign-up wall', page('authwall')],
    ['the 999 page (its script sends the browser to the auth wall)', page('denied-999')],
    ['the login page', '<html><head><meta name="pageKey" content="d_checkpoint_lg_consumer_login"></head><body><form class="login__form"></form></body></html>'],
  ])('%s is UPSTREAM_BLOCKED with the sign-in message', (_what, html) => {
    expect(() => readContentPage(html)).toThrow(expect.objectContaining({ code: 'UPSTREAM_BLOCKED', message: SIGN_IN_MESSAGE }));
  });

  // Without a wall, a page that is not the content is a page we cannot read (changed markup, a new
  // page kind): EXTRACTION_FAILED naming what it lacks, never a block.
  it.each([
    ['a post page key without the posting JSON-LD', video.replace(/<script type="application\/ld\+json">[\s\S]*?<\/script>/, ''), /no SocialMediaPosting, DiscussionForumPosting or VideoObject JSON-LD node \(pageKey d_public_post, JSON-LD types \[\]/],
    ['posting JSON-LD under another page key', video.replace('content="d_public_post"', 'content="d_guest_home"'), /neither page key d_public_post nor d_flagship2_pulse_read \(pageKey d_guest_home, JSON-LD types \[VideoObject\]/],
    ['an article page key over a post JSON-LD', video.replace('content="d_public_post"', 'content="d_flagship2_pulse_read"'), /no Article JSON-LD node \(pageKey d_flagship2_pulse_read, JSON-LD types \[VideoObject\]/],
    ['a broken JSON-LD block', video.replace('"@context"', '@context'), /JSON-LD types \[\]/],
    ['a small page with neither page key nor JSON-LD', '<!DOCTYPE html><html><head><title>Post</title></head><body><main></main></body></html>', /pageKey none/],
  ])('%s is EXTRACTION_FAILED naming what it lacks', (_what, html, why) => {
    expect(() => readContentPage(html)).toThrow(expect.objectContaining({ code: 'EXTRACTION_FAILED', internal: expect.stringMatching(why) }));
  });

  it('accepts DiscussionForumPosting as a post', () => {
    expect(readContentPage(video.replace('"@type":"VideoObject"', '"@type":"DiscussionForumPosting"')).kind).toBe('post');
  });

  it('gives EXTRACTION_FAILED, naming the field, when a content page has no author', () => {
    const html = page('post-image').replace('"author":{"name":"Anouk Verhaegen",', '"author":{').replace(/<a class="text-sm link-styled[^>]*public_post_feed-actor-name">[\s\S]*?<\/a>/, '');
    expect(() => mapContent(html, 'https://www.linkedin.com/posts/x')).toThrow(expect.objectContaining({ code: 'EXTRACTION_FAILED', internal: expect.stringMatching(/author name/) }));
  });
});

describe('professional readers', () => {
  it.each([
    ['1,157', 1157],
    ['1.157', 1157],
    [' 25 ', 25],
    ['4\u00a0Reactions', 4],
    ['12,480 followers', 12480],
    [3, 3],
    ['none', null],
    [-1, null],
  ])('countOf(%p) = %p', (raw, n) => expect(countOf(raw)).toBe(n));

  it.each([
    ['PT27S', 27],
    ['PT1M18S', 78],
    ['PT1H2M3S', 3723],
    ['PT4.6S', 5],
    ['P', null],
    ['27', null],
  ])('durationSeconds(%p) = %p', (raw, n) => expect(durationSeconds(raw)).toBe(n));

  it('decodes the publication time of an activity id', () => {
    expect(activityTime('7422972875465941568')).toBe('2026-01-30T12:04:05.678Z');
    expect(activityTime('12')).toBeNull();
  });

  it('strips tracking from URLs and refuses non-web ones', () => {
    expect(withoutQuery('https://fr.linkedin.com/company/x?trk=public_post_feed-actor-name#top')).toBe('https://fr.linkedin.com/company/x');
    expect(withoutQuery('javascript:alert(1)')).toBeNull();
  });

  it('finds hashtags once each, not inside URLs or entities', () => {
    expect(hashtagsOf('#One two #one https://x.example/#frag &#39; #Zwei_3 #2024')).toEqual(['One', 'Zwei_3']);
  });
});
