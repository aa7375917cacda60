import * as v from 'valibot';
import { operations, type Operation } from '../../shared/operations';
import { requestsReport } from '../../shared/api/account-reads';
import { failure } from '../../shared/http/envelope';
import type { ApiError } from '../../shared/http/errors';
import { MAX_DETAILS, MAX_DETAIL_PATH, validateQuery } from '../../shared/http/validation';

/**
 * Every parameter schema of the table reads any string without throwing: a malformed value is a
 * validation issue (422, or 400 for a cursor), never an exception that would surface as a 5xx.
 * (The fuzz suite found handle parsers that threw on a broken %-escape inside a profile URL.)
 */
const HOSTILE = [
  'https://x.com/quietcove%%',
  'https://www.tiktok.com/@quiet.one%u0041',
  'https://bsky.app/profile/%E0%A4%A',
  'https://kick.com/%ZZ/clips/clip_01JQ7ZK3M8W4TYV5R2N6P9XBCD',
  'https://www.linkedin.com/posts/%%%',
  'https://pillar.io/%C0%AF',
  'https://truthsocial.com/@%',
  '%',
  '\u0000',
  '\ud800',
  '@'.repeat(5000),
];

describe.each((operations as readonly Operation[]).filter((op) => Object.keys(op.params).length).map((op) => [op.id, op] as const))('%s', (_id, op) => {
  test.each(Object.keys(op.params))('%s never throws on a hostile value', (name) => {
    for (const value of HOSTILE) expect(() => v.safeParse(op.params[name]!.schema, value)).not.toThrow();
  });
});

/**
 * Issue 30.9: the 422 answer is bounded whatever the request. 2,000 unknown parameters gave 2,000
 * details, each naming the operation's parameters (181 KB); a parameter name is echoed in its path.
 */
describe('the size of a 422 answer', () => {
  const flood = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`unknown_${i}`, 'x']));
  const answer = (run: () => unknown) => {
    try {
      run();
    } catch (err) {
      return failure(err as ApiError, 'req-1');
    }
    throw new Error('no 422');
  };

  test.each((operations as readonly Operation[]).map((op) => [op.id, op] as const))('%s: 2,000 unknown parameters and a 5,000-character name', (_id, op) => {
    const query = { ...flood(2000), ['n'.repeat(5000)]: 'x' };
    const res = answer(() => validateQuery(op, query, null));
    expect(res.statusCode).toBe(422);
    expect(res.body.length).toBeLessThan(8 * 1024);
    const { details } = JSON.parse(res.body).error as { details: { path: string; message: string }[] };
    expect(details).toHaveLength(MAX_DETAILS);
    expect(details.every((d) => d.path.length <= MAX_DETAIL_PATH)).toBe(true);
    expect(details.at(-1)).toEqual({ path: '*', message: expect.stringMatching(/^\d+ more problems/) });
  });

  test('a few problems are all listed, unchanged', () => {
    const op = operations.find((o) => o.id === 'livestream-clip')!;
    const res = answer(() => validateQuery(op, { bogus: '1', cache_max_age: '2d' }, null));
    expect(JSON.parse(res.body).error.details.map((d: { path: string }) => d.path)).toEqual(['bogus', 'cache_max_age', 'url']);
  });

  test('the account history (GET /v1/account/requests, account-requests) likewise', async () => {
    const res = await requestsReport('any-team', flood(2000)).then(
      () => {
        throw new Error('no 422');
      },
      (err: ApiError) => failure(err, 'req-2'),
    );
    expect(res.statusCode).toBe(422);
    expect(res.body.length).toBeLessThan(8 * 1024);
    expect(JSON.parse(res.body).error.details).toHaveLength(MAX_DETAILS);
  });
});
