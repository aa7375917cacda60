import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTables } from '../../../dev/tables';
import { config } from '../../../shared/runtime/config';
import { db } from '../../../shared/db/client';
import { credentialKey } from '../../../shared/db/tables';
import { logger } from '../../../shared/runtime/log';
import { GRAPHQL_ACCESS } from '../../../shared/platforms/linkpage/client';
import { scrapePage } from '../../../shared/platforms/linkpage/scrape';
import { startCold } from '../../../shared/scrape/warm';
import { ScrapeContext } from '../../../shared/scrape/http';
import { FakeUpstream, fixture } from '../../../dev/upstream/fake';
import { LINKPAGE_BUNDLES, LINKPAGE_GRAPHQL, LINKPAGE_SHELL, LINKPAGE_TOKEN, graphqlOperation, linkpageRoutes } from '../../../dev/upstream/linkpage';
import { rejection } from '../../support/rejection';

/** The upstream calls of operation 6: token from the bundle (kept, replaced once on refusal), resolve, page. */
const fake = new FakeUpstream();
const run = (username = 'marisolcooks') => {
  const ctx = ScrapeContext.withBudget(5000);
  return scrapePage({ url: username }, ctx, logger).then((r) => ({ ...r, calls: ctx.upstreamCalls }));
};
const paths = () => fake.requests.map((r) => (r.path === LINKPAGE_GRAPHQL ? `graphql:${graphqlOperation(r)}` : r.path));

/** A cold start everywhere: no token in this container, none in the shared store, no names known. */
async function coldStart() {
  startCold('linkpage');
  await db().send(new DeleteCommand({ TableName: config.cacheTable, Key: { pk: credentialKey('linkpage#graphql-access') } }));
}

beforeAll(async () => {
  await ensureTables();
  await fake.start();
  process.env.UPSTREAM_LINKPAGE_URL = fake.url;
});
beforeEach(async () => {
  fake.reset();
  await coldStart();
});
afterAll(() => fake.stop());

describe('linkpage token: read from the bundle once, shared, replaced once when refused', () => {
  it('the first request reads the token (shell, bundle), then resolves the name and reads the page', async () => {
    linkpageRoutes(fake);
    const { page, calls } = await run();
    expect(page.influencerId).toBe('5f0c3a2e-8b1d-4e6f-9a27-3c4d5e6f7a81');
    // The bundle that holds the app's environment is fetched, not every bundle.
    expect(paths()).toEqual([LINKPAGE_SHELL, LINKPAGE_BUNDLES[1], 'graphql:resolvePage', 'graphql:creatorPage']);
    expect(calls).toBe(4);
    const q = fake.requestsTo(LINKPAGE_GRAPHQL)[0]!;
    expect(q.method).toBe('POST');
    expect(q.headers.authorization).toBe(`Bearer ${LINKPAGE_TOKEN}`);
    expect(q.headers['content-type']).toMatch(/application\/json/);
    expect(q.headers.origin).toBe('https://pillar.io');
    expect(q.headers.referer).toBe('https://pillar.io/marisolcooks');
    expect(JSON.parse(q.body).variables).toEqual({ key: 'marisolcooks' });
    expect(JSON.parse(fake.requestsTo(LINKPAGE_GRAPHQL)[1]!.body).variables).toEqual({ id: '5f0c3a2e-8b1d-4e6f-9a27-3c4d5e6f7a81' });
  });

  it('later requests reuse the token: 2 calls for a new name, 1 for a name this container resolved before', async () => {
    linkpageRoutes(fake);
    await run();
    fake.requests.length = 0;
    const other = await run('someone-else');
    expect(other.calls).toBe(2);
    expect(paths()).toEqual(['graphql:resolvePage', 'graphql:creatorPage']);
    fake.requests.length = 0;
    const again = await run();
    expect(again.calls).toBe(1);
    expect(paths()).toEqual(['graphql:creatorPage']);
    expect(GRAPHQL_ACCESS.obtained).toBe(1);
  });

  it('another container finds the token in the shared store and does not read the bundle', async () => {
    linkpageRoutes(fake);
    await run();
    startCold('linkpage'); // a new container: empty memory, same DynamoDB
    fake.requests.length = 0;
    const { calls } = await run('someone-else');
    expect(calls).toBe(2);
    expect(paths()).toEqual(['graphql:resolvePage', 'graphql:creatorPage']);
    expect(GRAPHQL_ACCESS.obtained).toBe(0);
  });

  it.each(['http-401', 'jwt-error'] as const)('a refused token (%s) is read again from the bundle, used for the retry, and kept', async (refusal) => {
    let valid = LINKPAGE_TOKEN;
    linkpageRoutes(fake, { validToken: () => valid, refusal });
    await run();
    // The endpoint now wants a token the store does not hold; the bundle carries it.
    const { chunk, token } = { chunk: LINKPAGE_BUNDLES[1], token: 'fresh-token-after-deploy' };
    fake.on(chunk, { body: `x={VUE_APP_GRAPHQL_ENDPOINT:"https://graphql.pillar.io/v1/graphql",VUE_APP_GRAPHQL_TOKEN:"${token}"}` });
    valid = token;
    fake.requests.length = 0;
    const { page } = await run('someone-else');
    expect(page.displayName).toBe('Marisol Cooks');
    expect(paths()).toEqual(['graphql:resolvePage', LINKPAGE_SHELL, chunk, 'graphql:resolvePage', 'graphql:creatorPage']);
    expect(fake.requestsTo(LINKPAGE_GRAPHQL).map((r) => r.headers.authorization)).toEqual([`Bearer ${LINKPAGE_TOKEN}`, `Bearer ${token}`, `Bearer ${token}`]);
    fake.requests.length = 0;
    await run('a-third-name');
    expect(paths()).toEqual(['graphql:resolvePage', 'graphql:creatorPage']);
  });

  it('a token refused again right after being read gives UPSTREAM_BLOCKED, with one replacement only', async () => {
    linkpageRoutes(fake, { validToken: () => 'nothing-we-can-read' });
    await rejection(run(), 'UPSTREAM_BLOCKED');
    expect(paths()).toEqual([LINKPAGE_SHELL, LINKPAGE_BUNDLES[1], 'graphql:resolvePage', LINKPAGE_SHELL, LINKPAGE_BUNDLES[1], 'graphql:resolvePage']);
  });
});

describe('linkpage answers', () => {
  it('an unknown page is NOT_FOUND after the resolve query', async () => {
    linkpageRoutes(fake, { knows: () => false });
    await rejection(run('nobody-here'), 'NOT_FOUND');
    expect(paths().slice(-1)).toEqual(['graphql:resolvePage']);
  });

  it('a resolved id whose page is gone is NOT_FOUND', async () => {
    linkpageRoutes(fake, { page: () => ({ body: { data: { influencer: null, banner: null, links: [], products: [], builderItems: [] } } }) });
    await rejection(run(), 'NOT_FOUND');
  });

  it('GraphQL errors are EXTRACTION_FAILED', async () => {
    linkpageRoutes(fake, { page: () => ({ body: fixture('linkpage/graphql-error.json') }) });
    const err = await rejection(run(), 'EXTRACTION_FAILED');
    expect(err.internal).toMatch(/validation-failed/);
  });

  it('a bundle without the token is EXTRACTION_FAILED, and no query is sent', async () => {
    linkpageRoutes(fake);
    fake.on(LINKPAGE_BUNDLES[1], { body: 'x={VUE_APP_GRAPHQL_ENDPOINT:"https://graphql.pillar.io/v1/graphql"}' });
    await rejection(run(), 'EXTRACTION_FAILED');
    expect(fake.requestsTo(LINKPAGE_GRAPHQL)).toHaveLength(0);
  });

  it('a shell without a vendors bundle is EXTRACTION_FAILED', async () => {
    linkpageRoutes(fake);
    fake.on(LINKPAGE_SHELL, { body: '<!DOCTYPE html><html><body><div id="app"></div><script src="/js/app.1.js"></script></body></html>' });
    await rejection(run(), 'EXTRACTION_FAILED');
  });

  it.each([
    ['a foreign host', 'https://evil.example/v1/graphql', /evil\.example/],
    // A hosted GraphQL provider's domain: anyone can register a name there.
    ['a hosting provider\'s domain', 'https://pillar-prod.hasura.app/v1/graphql', /hasura\.app/],
    ['the platform over http', 'http://graphql.pillar.io/v1/graphql', /http:/],
    ['the platform on another port', 'https://graphql.pillar.io:8443/v1/graphql', /:8443/],
  ])('an endpoint off the platform (%s) is never requested (EXTRACTION_FAILED)', async (_what, endpoint, named) => {
    linkpageRoutes(fake);
    fake.on(LINKPAGE_BUNDLES[1], { body: `x={VUE_APP_GRAPHQL_ENDPOINT:"${endpoint}",VUE_APP_GRAPHQL_TOKEN:"${LINKPAGE_TOKEN}"}` });
    const err = await rejection(run(), 'EXTRACTION_FAILED');
    expect(err.internal).toMatch(named);
    expect(fake.requestsTo(LINKPAGE_GRAPHQL)).toHaveLength(0);
  });

  it('the endpoint down is PLATFORM_UNAVAILABLE', async () => {
    linkpageRoutes(fake);
    await run();
    fake.on(LINKPAGE_GRAPHQL, { status: 502, body: 'Bad Gateway' });
    await rejection(run('someone-else'), 'PLATFORM_UNAVAILABLE');
  });

  it('a name whose remembered page now answers to another name is resolved again', async () => {
    linkpageRoutes(fake);
    await run(); // remembers marisolcooks -> the influencer
    const renamed = fixture('linkpage/page.json') as { data: { banner: { url_key: string }; influencer: { alias: string } } };
    renamed.data.banner.url_key = 'MarisolBakes';
    renamed.data.influencer.alias = 'marisolbakes';
    linkpageRoutes(fake, { knows: () => false, page: () => ({ body: renamed }) });
    fake.requests.length = 0;
    await rejection(run(), 'NOT_FOUND');
    expect(paths()).toEqual(['graphql:creatorPage', 'graphql:resolvePage']);
  });
});
