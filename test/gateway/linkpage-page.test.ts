import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../shared/runtime/config';
import { balance } from '../../shared/accounting/teams';
import { ledger } from '../../shared/accounting/ledger';
import { db } from '../../shared/db/client';
import { credentialKey } from '../../shared/db/tables';
import { fixture } from '../../dev/upstream/fake';
import { startHarness, type Harness } from '../support/harness';
import { LINKPAGE_GRAPHQL, LINKPAGE_SHELL, graphqlOperation, linkpageRoutes } from '../../dev/upstream/linkpage';

/**
 * Operation 6 through the local gateway: every status it lists (200, 404, 422, 503; 401 and 402
 * are checked for every operation in test/contract, 429 in test/gateway/pipeline.test.ts), credits charged
 * only on success, nothing cached on error, one cache entry per username.
 */
const OP = '/v1/linkpage/page';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h.stop());
beforeEach(() => h.fake.reset());

const graphqlCalls = () => h.fake.requestsTo(LINKPAGE_GRAPHQL).map(graphqlOperation);

describe('200', () => {
  test('the page, 1 credit; the token is read once; every URL form of the page is one cache entry', async () => {
    // A cold platform: no token stored yet.
    await db().send(new DeleteCommand({ TableName: config.cacheTable, Key: { pk: credentialKey('linkpage#graphql-access') } }));
    const { key, teamId } = await h.team(10);
    linkpageRoutes(h.fake);

    const res = await h.call(OP, { url: 'https://pillar.io/marisolcooks' }, { key });
    expect(res.status).toBe(200);
    expect(res.body.data.page).toMatchObject({ username: 'MarisolCooks', displayName: 'Marisol Cooks', itemCount: 7, totalItems: 9, createdAt: '2022-08-14T09:31:07.218734+00:00' });
    expect(res.body.data.page.socialLinks[0]).toEqual({ platform: 'EMAIL', url: 'mailto:hello@marisolcooks.example' });
    expect(res.body.meta).toMatchObject({ creditsCharged: 1, creditsRemaining: 9, cached: false });
    expect(h.fake.requestsTo(LINKPAGE_SHELL)).toHaveLength(1);
    expect(graphqlCalls()).toEqual(['resolvePage', 'creatorPage']);

    for (const form of ['https://www.pillar.io/MarisolCooks/', 'http://pillar.io/marisolcooks?utm_source=ig']) {
      const hit = await h.call(OP, { url: form, cache_max_age: '7d' }, { key });
      expect(hit.status).toBe(200);
      expect(hit.body.meta).toMatchObject({ cached: true, creditsCharged: 0 });
      expect(hit.body.data).toEqual(res.body.data);
    }
    expect(graphqlCalls()).toHaveLength(2);

    // Another page: the token is known now, 2 queries and no bundle.
    h.fake.requests.length = 0;
    const other = await h.call(OP, { url: 'https://pillar.io/someone-else' }, { key });
    expect(other.status).toBe(200);
    expect(h.fake.requests.map((r) => r.path)).toEqual([LINKPAGE_GRAPHQL, LINKPAGE_GRAPHQL]);
    expect(await balance(teamId)).toBe(8);
  });
});

describe('errors cost nothing and are not cached', () => {
  let key: string;
  let teamId: string;
  beforeAll(async () => ({ key, teamId } = await h.team(10)));

  test('an unknown page -> 404', async () => {
    linkpageRoutes(h.fake, { knows: () => false });
    const res = await h.call(OP, { url: 'https://pillar.io/nobody-here' }, { key });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  test('GraphQL errors -> 503 EXTRACTION_FAILED with Retry-After', async () => {
    linkpageRoutes(h.fake, { page: () => ({ body: fixture('linkpage/graphql-error.json') }) });
    const res = await h.call(OP, { url: 'https://pillar.io/broken-page', cache_max_age: '1d' }, { key });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('EXTRACTION_FAILED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  test('the endpoint down -> 503 PLATFORM_UNAVAILABLE', async () => {
    linkpageRoutes(h.fake);
    h.fake.on(LINKPAGE_GRAPHQL, { status: 503, body: 'upstream connect error' });
    const res = await h.call(OP, { url: 'https://pillar.io/down-page' }, { key });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('PLATFORM_UNAVAILABLE');
  });

  test('nothing charged, nothing cached: the failed page scrapes live next time', async () => {
    expect(await balance(teamId)).toBe(10);
    expect(await ledger(teamId)).toHaveLength(0);
    linkpageRoutes(h.fake);
    const res = await h.call(OP, { url: 'https://pillar.io/broken-page', cache_max_age: '1d' }, { key });
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ cached: false, creditsCharged: 1 });
  });
});

describe('422: only creator page URLs of the platform, never fetched otherwise', () => {
  test.each([
    'https://evil.example/marisolcooks',
    'https://pillar.io.evil.example/marisolcooks',
    'https://api.pillar.io/marisolcooks',
    'https://user:pw@pillar.io/marisolcooks',
    'https://pillar.io:8443/marisolcooks',
    'https://pillar.io/marisolcooks/cook-along',
    'https://pillar.io/',
    'https://pillar.io/..%2Fv1%2Fgraphql',
    'marisolcooks',
  ])('%s', async (url) => {
    const { key } = await h.team(1);
    const res = await h.call(OP, { url }, { key });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'url', message: expect.stringContaining('creator page URL') }] });
    expect(h.fake.requests).toHaveLength(0);
  });

  test('missing url', async () => {
    const { key } = await h.team(1);
    expect((await h.call(OP, {}, { key })).body.error.details).toEqual([{ path: 'url', message: 'Required' }]);
  });
});
