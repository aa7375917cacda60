import { logger } from '../../../shared/runtime/log';
import { ScrapeContext } from '../../../shared/scrape/http';
import { scrapePost } from '../../../shared/platforms/professional/scrape';
import { SIGN_IN_MESSAGE } from '../../../shared/platforms/professional/site';
import { FakeUpstream, fixtureText } from '../../../dev/upstream/fake';
import { rejection } from '../../support/rejection';

/** The one upstream GET and how its answers are read (client rules), against a fake upstream. */
const SLUG = 'quayside-robotics_dockwalk-warehouseautomation-activity-7301122334455667788-Qw3R';
const PATH = `/posts/${SLUG}`;
const URL_ = `https://www.linkedin.com${PATH}`;
const ARTICLE_PATH = '/pulse/counting-footsteps-not-berths-marguerite-oyelaran-x7k2q';

const fake = new FakeUpstream();
const scrape = (url = URL_) => scrapePost({ url }, ScrapeContext.withBudget(5000), logger);
const authwall = `https://www.linkedin.com/authwall?trk=bf&trkInfo=AQF&original_referer=&sessionRedirect=${encodeURIComponent(URL_)}`;

beforeAll(async () => {
  await fake.start();
  process.env.UPSTREAM_PROFESSIONAL_URL = fake.url;
});
afterEach(() => fake.reset());
afterAll(() => fake.stop());

describe('professional post scrape', () => {
  it('asks for the canonical page once, as a browser navigation without cookies', async () => {
    fake.on(PATH, { body: fixtureText('professional/post-video.html') });
    const { content } = await scrape();
    expect(content.id).toBe('7301122334455667788');
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.method).toBe('GET');
    expect(req.query).toEqual({});
    expect(req.headers.accept).toMatch(/^text\/html/);
    expect(req.headers['accept-language']).toMatch(/^en-US/);
    expect(req.headers.cookie).toBeUndefined();
    expect(req.headers['user-agent']).toMatch(/Chrome\//);
  });

  it('reads an article at /pulse/', async () => {
    fake.on(ARTICLE_PATH, { body: fixtureText('professional/article.html') });
    const { content } = await scrape(`https://www.linkedin.com${ARTICLE_PATH}`);
    expect(content.type).toBe('article');
    expect(content.readingTimeMinutes).toBe(6);
  });

  it('follows a redirect to a regional host of the platform', async () => {
    fake.on(PATH, (req) => (req.query.r ? { body: fixtureText('professional/post-image.html') } : { status: 301, headers: { location: `https://be.linkedin.com${PATH}?r=1` } }));
    const { content } = await scrape();
    expect(content.author.name).toBe('Anouk Verhaegen');
    expect(fake.requests).toHaveLength(2);
  });

  it('gives UPSTREAM_BLOCKED with the sign-in message for HTTP 999, without asking again', async () => {
    fake.on(PATH, { status: 999, body: fixtureText('professional/denied-999.html'), headers: { 'set-cookie': 'trkCode=bf; Path=/' } });
    const err = await rejection(scrape(), 'UPSTREAM_BLOCKED');
    expect(err.message).toBe(SIGN_IN_MESSAGE);
    expect(err.retryAfter).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(1);
  });

  it('gives UPSTREAM_BLOCKED with the sign-in message when sent to the auth wall', async () => {
    fake.on(PATH, { status: 302, headers: { location: authwall }, body: '' });
    fake.on('/authwall', { body: fixtureText('professional/authwall.html') });
    const err = await rejection(scrape(), 'UPSTREAM_BLOCKED');
    expect(err.message).toBe(SIGN_IN_MESSAGE);
    expect(fake.requests.map((r) => r.path)).toEqual([PATH, '/authwall']);
  });

  it.each([
    ['a sign-up redirect', `/signup/cold-join?session_redirect=${encodeURIComponent(URL_)}`, '/signup/cold-join'],
    ['a login redirect', `https://www.linkedin.com/uas/login?session_redirect=${encodeURIComponent(URL_)}`, '/uas/login'],
    ['a checkpoint', '/checkpoint/lg/login?session_redirect=x', '/checkpoint/lg/login'],
  ])('gives UPSTREAM_BLOCKED for %s', async (_what, location, landing) => {
    fake.on(PATH, { status: 307, headers: { location }, body: '' });
    // Whatever the wall page looks like, its address says what it is.
    fake.on(landing, { body: '<!doctype html><html><head><title>Sign in</title></head><body>'.padEnd(20_000, ' ') + '</body></html>' });
    const err = await rejection(scrape(), 'UPSTREAM_BLOCKED');
    expect(err.message).toBe(SIGN_IN_MESSAGE);
  });

  it('gives UPSTREAM_BLOCKED for the login page served in place of the post', async () => {
    const login = '<!DOCTYPE html><html><head><meta name="pageKey" content="d_checkpoint_lg_consumer_login"><title>Sign in</title></head><body><form class="login__form" action="/checkpoint/lg/login-submit"></form></body></html>';
    fake.on(PATH, { body: login.padEnd(30_000, ' ') });
    await rejection(scrape(), 'UPSTREAM_BLOCKED');
  });

  it('gives EXTRACTION_FAILED, naming what is missing, for a small 200 page without the posting JSON-LD and without a wall', async () => {
    fake.on(PATH, { body: '<!DOCTYPE html><html><head><meta name="pageKey" content="d_public_post"></head><body><main></main></body></html>' });
    const err = await rejection(scrape(), 'EXTRACTION_FAILED');
    expect(err.internal).toMatch(/not a content page: no SocialMediaPosting, DiscussionForumPosting or VideoObject JSON-LD node \(pageKey d_public_post/);
  });

  it('gives UPSTREAM_BLOCKED for the 999 page served as a 200 (its script sends the browser to the auth wall)', async () => {
    fake.on(PATH, { body: fixtureText('professional/denied-999.html') });
    const err = await rejection(scrape(), 'UPSTREAM_BLOCKED');
    expect(err.message).toBe(SIGN_IN_MESSAGE);
  });

  it('gives NOT_FOUND for a 404', async () => {
    fake.on(PATH, { status: 404, body: '<!DOCTYPE html><html><body>Page not found</body></html>' });
    await rejection(scrape(), 'NOT_FOUND');
    expect(fake.requests).toHaveLength(1);
  });

  it('gives NOT_FOUND for an article that redirects to article_not_found', async () => {
    fake.on(ARTICLE_PATH, { status: 302, headers: { location: '/pulse/article_not_found?articleSlug=counting-footsteps' }, body: '' });
    fake.on('/pulse/article_not_found', { body: '<!DOCTYPE html><html><body>This article is unavailable</body></html>' });
    await rejection(scrape(`https://www.linkedin.com${ARTICLE_PATH}`), 'NOT_FOUND');
  });

  it('gives UPSTREAM_BLOCKED for a redirect off the platform (not followed)', async () => {
    fake.on(PATH, { status: 302, headers: { location: 'https://evil.example/phish' }, body: '' });
    await rejection(scrape(), 'UPSTREAM_BLOCKED');
    expect(fake.requests).toHaveLength(1);
  });

  it('gives PLATFORM_UNAVAILABLE when the upstream keeps answering 503', async () => {
    fake.on(PATH, { status: 503, body: 'Service Unavailable' });
    await rejection(scrape(), 'PLATFORM_UNAVAILABLE');
    expect(fake.requests.length).toBeGreaterThan(1);
  });
});
