import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { KEY_READABLE, type AccountRoute } from '../../shared/api/account-routes';
import { renameKey, revokeKey } from '../../shared/auth/keys';
import { config } from '../../shared/runtime/config';
import { db } from '../../shared/db/client';
import { operation } from '../../shared/operations';
import { scenarios } from '../contract/scenarios';
import { AccountClient, signedInMember } from '../support/account';
import { type CallResult, startHarness, type Harness } from '../support/harness';

/**
 * Every team sees its errors and its requests (issue 20, item 4), through the local gateway: after
 * a live 200, a cache hit, a 404, a 422 and an upstream 503, the team's daily usage and its request
 * history show each with its status and code, read with an API key (x-api-key or Bearer) or a
 * dashboard session, for free. The history is newest first, paged by a sealed cursor, filterable.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  process.env.SIGN_IN_ATTEMPTS_PER_ADDRESS = '100000';
});
afterAll(async () => h.stop());

const CLIP = operation('livestream-clip');
const clip = scenarios['livestream-clip']!;
const TODAY = () => new Date().toISOString().slice(0, 10);

/** A live 200, a cache hit, a 404, a 422 and an upstream 503 (oldest first), as the caller saw them. */
async function mix(key: string): Promise<CallResult[]> {
  const out: CallResult[] = [];
  // The scenario's clip each time, its upstream answering as the case needs (no cache_max_age: live).
  const answering = async (variation?: { routes?: (fake: Harness['fake']) => void }, query: Record<string, string> = clip.query) => {
    h.fake.reset();
    clip.routes(h.fake);
    variation?.routes?.(h.fake);
    out.push(await h.call(CLIP.path, query, { key }));
  };
  await answering();
  await answering(undefined, { ...clip.query, cache_max_age: '1d' });
  await answering(clip.notFound);
  await answering(undefined, { url: 'not a clip' });
  await answering(clip.unavailable);
  h.fake.reset();
  return out;
}

/** The account API with an API key and no cookie (a script). */
const byKey = (key: string, bearer = false) => {
  const c = new AccountClient(h);
  const headers: Record<string, string> = bearer ? { authorization: `Bearer ${key}` } : { 'x-api-key': key };
  return { get: (path: string) => c.get(path, { headers, cookie: null }) };
};

describe('after a live 200, a cache hit, a 404, a 422 and an upstream 503', () => {
  let m: Awaited<ReturnType<typeof signedInMember>>;
  let answers: CallResult[];
  beforeAll(async () => {
    m = await signedInMember(h, 10);
    answers = await mix(m.key);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 404, 422, 503]);
    expect(answers[1]!.body.meta.cached).toBe(true);
  });

  test("the day's usage counts each by status and code (x-api-key)", async () => {
    const res = await byKey(m.key).get('/v1/account/usage?days=7');
    expect(res.status).toBe(200);
    const { days, totals, byOperation } = res.body.data;
    expect(days.at(-1)).toEqual({
      day: TODAY(),
      operations: { 'livestream-clip': { live: 1, hits: 1, errors: { NOT_FOUND: 1, VALIDATION_ERROR: 1, PLATFORM_UNAVAILABLE: 1 }, credits: 1 } },
    });
    const summary = {
      requests: 5,
      live: 1,
      hits: 1,
      errorCount: 3,
      credits: 1,
      cacheHitShare: 0.5,
      byStatus: { 200: 2, 404: 1, 422: 1, 503: 1 },
      byCode: { NOT_FOUND: 1, VALIDATION_ERROR: 1, PLATFORM_UNAVAILABLE: 1 },
    };
    expect(totals).toEqual(summary);
    expect(byOperation).toEqual({ 'livestream-clip': summary });
  });

  test('the request history shows each, newest first, with its key, status, code, credits and request id (Bearer)', async () => {
    const res = await byKey(m.key, true).get('/v1/account/requests');
    expect(res.status).toBe(200);
    const { requests, cursor, hasMore } = res.body.data;
    expect(cursor).toBeNull();
    expect(hasMore).toBe(false);
    const requestId = (a: CallResult) => a.body.meta?.requestId ?? a.body.error.requestId;
    expect(requests.map((r: Record<string, unknown>) => [r.status, r.code, r.credits, r.cached, r.requestId])).toEqual(
      [
        [200, null, 1, false, requestId(answers[0]!)],
        [200, null, 0, true, requestId(answers[1]!)],
        [404, 'NOT_FOUND', 0, false, requestId(answers[2]!)],
        [422, 'VALIDATION_ERROR', 0, false, requestId(answers[3]!)],
        [503, 'PLATFORM_UNAVAILABLE', 0, false, requestId(answers[4]!)],
      ].reverse(),
    );
    for (const r of requests) {
      expect(r).toMatchObject({ operation: 'livestream-clip', keyId: m.keyId, keyName: 'test' });
      expect(r.ms).toBeGreaterThanOrEqual(0);
      expect(Date.now() - Date.parse(r.time)).toBeLessThan(10 * 60_000);
    }
    const times = requests.map((r: { time: string }) => r.time);
    expect([...times].sort().reverse()).toEqual(times);
  });

  test('the dashboard session reads the same (credits, usage, requests)', async () => {
    const credits = await m.client.get('/v1/account/credits');
    const usage = await m.client.get('/v1/account/usage');
    const requests = await m.client.get('/v1/account/requests');
    expect(credits.body.data.balance).toBe(9);
    expect(usage.body.data.totals.requests).toBe(5);
    expect(requests.body.data.requests).toHaveLength(5);
    expect(requests.body.data).toEqual((await byKey(m.key).get('/v1/account/requests')).body.data);
  });

  test('filters: by status (one status, or every error) and by operation', async () => {
    const statuses = async (query: string) => ((await byKey(m.key).get(`/v1/account/requests?${query}`)).body.data.requests as { status: number }[]).map((r) => r.status);
    expect(await statuses('status=error')).toEqual([503, 422, 404]);
    expect(await statuses('status=200')).toEqual([200, 200]);
    expect(await statuses('status=404&operation=livestream-clip')).toEqual([404]);
    expect(await statuses('operation=microblog-a-user-posts')).toEqual([]);
  });

  test('pages: newest first, an opaque cursor to the next page, null on the last; a cursor serves only its own query', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const res = await byKey(m.key).get(`/v1/account/requests?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      sizes.push(res.body.data.requests.length);
      seen.push(...res.body.data.requests.map((r: { requestId: string }) => r.requestId));
      expect(res.body.data.hasMore).toBe(res.body.data.cursor !== null);
      cursor = res.body.data.cursor;
    } while (cursor);
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual((await byKey(m.key).get('/v1/account/requests')).body.data.requests.map((r: { requestId: string }) => r.requestId));

    const first = (await byKey(m.key).get('/v1/account/requests?limit=2')).body.data.cursor as string;
    const refused = async (path: string, key = m.key) => {
      const res = await byKey(key).get(path);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('BAD_REQUEST');
    };
    await refused(`/v1/account/requests?limit=2&status=error&cursor=${encodeURIComponent(first)}`); // other filters
    const [payload, mac] = first.split('.');
    const forged = Buffer.from(Buffer.from(payload!, 'base64url').toString().replace(/"k":"REQ#[^"]*"/, '"k":"REQ#9999"')).toString('base64url');
    await refused(`/v1/account/requests?cursor=${forged}.${mac}`); // tampered
    const other = await h.team(5);
    await refused(`/v1/account/requests?limit=2&cursor=${encodeURIComponent(first)}`, other.key); // another team's
  });

  test('a key renamed since shows its new name; revoked, it reads nothing more (401)', async () => {
    const extra = await h.team(3);
    clip.routes(h.fake);
    expect((await h.call(CLIP.path, { ...clip.query, cache_max_age: '1d' }, { key: extra.key })).status).toBe(200);
    h.fake.reset();
    await renameKey(extra.teamId, extra.keyId, 'nightly job');
    const [r] = (await byKey(extra.key).get('/v1/account/requests')).body.data.requests;
    expect(r).toMatchObject({ keyId: extra.keyId, keyName: 'nightly job', cached: true, credits: 0 });
    await revokeKey(extra.teamId, extra.keyId);
    const res = await byKey(extra.key).get('/v1/account/requests');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });
});

describe('who may read, and what it costs', () => {
  test('each key-readable route answers x-api-key, Bearer and a session, for the caller\'s own team, for 0 credits', async () => {
    const m = await signedInMember(h, 4);
    const other = await h.team(6);
    const paths: Record<string, string> = { credits: '/v1/account/credits', usage: '/v1/account/usage', requests: '/v1/account/requests' };
    expect([...KEY_READABLE].sort()).toEqual(Object.keys(paths).sort());
    for (const name of KEY_READABLE as AccountRoute['name'][]) {
      for (const res of [await byKey(m.key).get(paths[name]!), await byKey(m.key, true).get(paths[name]!), await m.client.get(paths[name]!)]) {
        expect(res.status).toBe(200);
      }
      // Another team's key reads that team's own account.
      const theirs = await byKey(other.key).get(paths[name]!);
      expect(theirs.status).toBe(200);
      if (name === 'credits') expect(theirs.body.data.balance).toBe(6);
      if (name === 'requests') expect(theirs.body.data.requests).toEqual([]);
    }
    const credits = (await byKey(m.key).get('/v1/account/credits')).body.data;
    expect(credits).toEqual({ balance: 4, charges: [] });
    // Reading is not a request of the history.
    expect((await byKey(m.key).get('/v1/account/requests')).body.data.requests).toEqual([]);
  });

  test('an unknown, malformed or revoked key is 401 (not a session fallback); other account routes still ignore keys', async () => {
    const m = await signedInMember(h);
    for (const key of ['A'.repeat(28), 'short']) {
      const res = await byKey(key).get('/v1/account/credits');
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    }
    // A key that fails is not saved by a live session beside it.
    const both = await m.client.get('/v1/account/credits', { headers: { 'x-api-key': 'A'.repeat(28) } });
    expect(both.status).toBe(401);
    expect((await byKey(m.key).get('/v1/account/me')).status).toBe(401);
    expect((await byKey(m.key).get('/v1/account/keys')).status).toBe(401);
  });

  test('bad query parameters are a 422 with details, never an empty answer', async () => {
    const { key } = await h.team(1);
    for (const [query, path] of [
      ['operation=nope', 'operation'],
      ['status=2xx', 'status'],
      ['status=', 'status'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['cursor=', 'cursor'],
      ['since=yesterday', 'since'],
    ]) {
      const res = await byKey(key).get(`/v1/account/requests?${query}`);
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
    }
  });
});

describe('storage', () => {
  test('each history item expires 7 days after its request (TTL); an older one left by a late TTL is not shown', async () => {
    const { key, teamId } = await h.team(2);
    const res = await h.call(CLIP.path, { url: 'not a clip' }, { key });
    const [r] = (await byKey(key).get('/v1/account/requests')).body.data.requests;
    expect(r.requestId).toBe(res.body.error.requestId);
    const item = (await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: `TEAM#${teamId}`, sk: `REQ#${new Date(Date.parse(r.time) - r.ms).toISOString()}#${r.requestId}` } }))).Item!; // keyed by the request's start
    expect(item.expiresAt).toBe(Math.floor(Date.parse(r.time) / 1000) + 7 * 86_400);

    const old = new Date(Date.now() - 8 * 86_400_000).toISOString();
    await db().send(new PutCommand({ TableName: config.accountsTable, Item: { ...item, sk: `REQ#${old}#old-one`, time: old, requestId: 'old-one' } }));
    expect((await byKey(key).get('/v1/account/requests')).body.data.requests.map((x: { requestId: string }) => x.requestId)).toEqual([r.requestId]);
  });
});
