import { balance } from '../../shared/accounting/teams';
import { ledger } from '../../shared/accounting/ledger';
import { startCold } from '../../shared/scrape/warm';
import { fixture, fixtureText, type FakeReply } from '../../dev/upstream/fake';
import { type Harness, withGateway } from '../support/harness';
import { expect503, upstreamFailures } from '../support/upstream-failures';

/**
 * Operation 9, /v1/microblog-c/user/posts, through the local gateway: every error path with its
 * status, code, Retry-After, and no charge. The page's content is tested at unit level
 * (test/unit/microblog-c/).
 */
const POSTS = '/v1/microblog-c/user/posts';
const ACCOUNT_ID = '107830692512534674';
const LOOKUP = '/api/v1/accounts/lookup';
const ACCOUNT = `/api/v1/accounts/${ACCOUNT_ID}`;
const STATUSES = `/api/v1/accounts/${ACCOUNT_ID}/statuses`;
const challenge = fixtureText('microblog-c/cloudflare-challenge.html');

let h: Harness;
let key: string;
let teamId: string;
withGateway(100, (g) => void ({ h, key, teamId } = g));
beforeEach(() => {
  h.fake.reset();
  // The gateway runs the handlers in this process: start every test from a cold container.
  startCold('microblog-c');
});

function publicAccountRoutes() {
  h.fake.on(LOOKUP, { body: fixture('microblog-c/account.json') });
  h.fake.on(ACCOUNT, { body: fixture('microblog-c/account.json') });
  h.fake.on(STATUSES, (req): FakeReply => ({ body: fixture(req.query.pinned ? 'microblog-c/statuses-pinned.json' : 'microblog-c/statuses-page2.json') }));
}

test('200 by handle and by userId, one credit each', async () => {
  publicAccountRoutes();
  const before = await balance(teamId);
  for (const query of [{ handle: '@HarborLight' }, { userId: ACCOUNT_ID }] as Record<string, string>[]) {
    const res = await h.call(POSTS, query, { key });
    expect(res.status).toBe(200);
    expect(res.body.meta).toMatchObject({ creditsCharged: 1, cached: false });
    expect(res.body.data.user.id).toBe(ACCOUNT_ID);
  }
  expect(h.fake.requestsTo(LOOKUP).map((r) => r.query.acct)).toEqual(['harborlight']);
  expect(await balance(teamId)).toBe(before - 2);
});

describe('upstream failures are 503 with Retry-After and cost nothing', () => {
  test.each(upstreamFailures(challenge))('%s', async (_what, reply, code) => {
    h.fake.on(ACCOUNT, reply);
    h.fake.on(STATUSES, reply);
    const before = await balance(teamId);
    const res = await h.call(POSTS, { userId: ACCOUNT_ID }, { key });
    expect503(res, code, reply);
    expect(await balance(teamId)).toBe(before);
  });
});

describe('not found and bad cursors', () => {
  test.each([
    ['unknown account', { status: 404, body: fixture('microblog-c/error-not-found.json') }],
    ['suspended account', { body: fixture('microblog-c/account-suspended.json') }],
    ['hidden from logged-out viewers', { status: 401, body: fixture('microblog-c/error-unauthenticated.json') }],
  ])('%s is 404', async (_what, reply) => {
    h.fake.on(LOOKUP, reply);
    h.fake.on(STATUSES, { body: [] });
    const res = await h.call(POSTS, { handle: '@HarborLight' }, { key });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  test.each(['abc', '12', '99999999999999999999'])('cursor %p is 400 without an upstream call', async (cursor) => {
    const res = await h.call(POSTS, { handle: 'harborlight', cursor }, { key });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
    expect(h.fake.requests).toHaveLength(0);
  });

  test('a cursor the upstream refuses is 400', async () => {
    publicAccountRoutes();
    h.fake.on(STATUSES, { status: 400, body: fixture('microblog-c/error-bad-request.json') });
    const res = await h.call(POSTS, { userId: ACCOUNT_ID, cursor: '107814993046697416' }, { key });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('BAD_REQUEST');
  });

  test('neither, both, or a foreign profile URL -> 422', async () => {
    const queries: Record<string, string>[] = [{}, { handle: 'a', userId: '1' }, { handle: 'https://evil.example/@harborlight' }, { userId: '12ab' }];
    for (const q of queries) {
      const res = await h.call(POSTS, q, { key });
      expect(res.status).toBe(422);
    }
    expect(h.fake.requests).toHaveLength(0);
  });
});

test('the ledger holds only the successful scrapes, and an error is never cached', async () => {
  // An account id of its own: no other test caches it.
  const id = '107830692512534675';
  const team = await h.team(10);
  const call = (query: Record<string, string>) => h.call(POSTS, query, { key: team.key });
  h.fake.on(`/api/v1/accounts/${id}`, { status: 502, body: { error: 'bad gateway' } });
  h.fake.on(`/api/v1/accounts/${id}/statuses`, { status: 502, body: { error: 'bad gateway' } });
  expect((await call({ userId: id })).status).toBe(503);
  h.fake.on(`/api/v1/accounts/${id}`, { status: 404, body: fixture('microblog-c/error-not-found.json') });
  expect((await call({ userId: id })).status).toBe(404);
  expect((await call({ userId: '12ab' })).status).toBe(422);
  h.fake.on(`/api/v1/accounts/${id}`, { body: { ...(fixture('microblog-c/account.json') as object), id } });
  h.fake.on(`/api/v1/accounts/${id}/statuses`, { body: fixture('microblog-c/statuses-page2.json') });
  const live = await call({ userId: id, cache_max_age: '1d' });
  expect(live.body.meta).toMatchObject({ cached: false, creditsCharged: 1 });
  expect((await ledger(team.teamId)).map((e) => e.operation)).toEqual(['microblog-c-user-posts']);
  expect(await balance(team.teamId)).toBe(9);
});
