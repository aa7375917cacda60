import type { ApiError } from '../../../shared/http/errors';
import { type AnswerRules, type Expectation, classify, parseAnswer } from '../../../shared/scrape/answers';
import { get, str } from '../../../shared/scrape/map';

/**
 * The one upstream-answer classifier (shared/scrape/answers.ts): a platform's rules in their order
 * (blocked, unavailable, badCursor only with a cursor, notFound), then the shared defaults; HTML
 * where JSON was expected is a block only on evidence of a wall, and never the rules' not found.
 */
const RULES: AnswerRules = {
  platform: 'unit',
  code: (d) => str(get(d, 'error')),
  message: (d) => str(get(d, 'message')),
  blocked: [{ code: 'Blocked' }, { status: 400, message: /log in to continue/i, say: 'This content needs a signed-in session, which the service does not use' }],
  unavailable: [{ code: 'Maintenance' }],
  badCursor: [{ status: [400, 404], message: /cursor/i }],
  notFound: [
    { status: 404 },
    { status: 400, code: 'Gone', say: 'This account was removed by the platform' },
    { status: 200, test: (a) => get(a.data, 'item') === null },
  ],
};

function answer(status: number, body: unknown, headers: Record<string, string> = {}) {
  return parseAnswer(RULES, { status, headers, body: typeof body === 'string' ? body : JSON.stringify(body), url: 'https://unit.example/x' });
}
const run = (status: number, body: unknown, expect: Partial<Expectation> = {}, headers: Record<string, string> = {}): ApiError | null =>
  classify(RULES, answer(status, body, headers), { what: 'unit call', ...expect });
const code = (...args: Parameters<typeof run>) => run(...args)?.code ?? 'ok';

describe('the classifier', () => {
  test('a usable answer is null (the caller reads its data)', () => {
    expect(run(200, { item: { id: 1 } })).toBeNull();
    expect(run(204, [])).toBeNull();
    expect(run(200, 'plain text', { jsonAnswer: false })).toBeNull();
  });

  test('parseAnswer reads the rules\' code and message, and survives a body that is not JSON', () => {
    expect(answer(400, { error: 'Gone', message: 'gone away' })).toMatchObject({ code: 'Gone', message: 'gone away', data: { error: 'Gone' } });
    expect(answer(200, '{broken')).toMatchObject({ data: undefined, code: null, message: null });
  });

  test('rules apply in order: blocked, unavailable, badCursor, notFound', () => {
    // Matches a blocked rule (code) and the notFound rule (404): blocked wins.
    expect(code(404, { error: 'Blocked' })).toBe('UPSTREAM_BLOCKED');
    // Matches unavailable (code) and notFound (404): unavailable wins.
    expect(code(404, { error: 'Maintenance' })).toBe('PLATFORM_UNAVAILABLE');
    // Matches badCursor and notFound (404): with a cursor, the cursor is the problem.
    expect(code(404, { message: 'invalid cursor' }, { cursor: true })).toBe('BAD_REQUEST');
    expect(code(404, { message: 'invalid cursor' })).toBe('NOT_FOUND');
  });

  test('badCursor rules apply only to a request that carried a cursor', () => {
    expect(code(400, { message: 'Malformed cursor' }, { cursor: true })).toBe('BAD_REQUEST');
    // The same answer to a request without a cursor is not a cursor problem: an unexpected 400.
    expect(code(400, { message: 'Malformed cursor' })).toBe('EXTRACTION_FAILED');
  });

  test('a rule may look at the parsed answer (a 200 that says "no such item")', () => {
    expect(code(200, { item: null })).toBe('NOT_FOUND');
    expect(code(200, { item: {} })).toBe('ok');
  });

  test('HTML where JSON was expected is blocked only on evidence of a wall, else EXTRACTION_FAILED; never the rules\' not found', () => {
    const signIn = [
      '<!DOCTYPE html><html><head><title>Log in to Unit</title></head><body>Welcome back</body></html>',
      '<!DOCTYPE html><html><body><form action="/i/flow/login"><input name="username"></form></body></html>',
      '<!DOCTYPE html><html><body><form action="/session"><input type="password" name="p"></form></body></html>',
    ];
    for (const html of signIn) {
      expect(code(200, html)).toBe('UPSTREAM_BLOCKED');
      expect(code(404, html)).toBe('UPSTREAM_BLOCKED');
    }
    expect(run(200, signIn[0])!.internal).toMatch(/an HTML page where JSON was expected \(title "Log in to Unit"\): a sign-in page/);
    // A page without such evidence is a page without the data (a changed API, a misrouted request),
    // and the log names the page; a refusing or rate-limiting status is still a block.
    const plain = '<!DOCTYPE html><html><head><title>Not here</title></head><body>Please sign in to see more</body></html>';
    expect(code(200, plain)).toBe('EXTRACTION_FAILED');
    expect(code(404, plain)).toBe('EXTRACTION_FAILED');
    expect(run(404, plain)!.internal).toMatch(/an HTML page where JSON was expected \(title "Not here"\), with no sign-in form or challenge in it/);
    expect(code(403, plain)).toBe('UPSTREAM_BLOCKED');
    expect(code(401, plain)).toBe('UPSTREAM_BLOCKED');
    expect(run(429, plain)).toMatchObject({ code: 'UPSTREAM_BLOCKED', retryAfter: 60 });
    // Asked for text, the same page is the answer (and a 404 is the rules' not found).
    expect(code(200, plain, { jsonAnswer: false })).toBe('ok');
    expect(code(404, plain, { jsonAnswer: false })).toBe('NOT_FOUND');
  });

  test("the platform's blocked rules see HTML answers too (a challenge page of its own)", () => {
    const rules: AnswerRules = { platform: 'unit', blocked: [{ body: /id="own-challenge"/, say: 'The unit platform asked for a challenge' }] };
    const page = '<!DOCTYPE html><html><body><div id="own-challenge">Please wait...</div></body></html>';
    const a = parseAnswer(rules, { status: 200, headers: {}, body: page, url: 'https://unit.example/x' });
    expect(classify(rules, a, { what: 'unit call' })).toMatchObject({ code: 'UPSTREAM_BLOCKED', message: 'The unit platform asked for a challenge' });
  });

  test('defaults: 401/403/429 blocked, 5xx unavailable, any other non-2xx or non-JSON 2xx EXTRACTION_FAILED', () => {
    expect(code(401, {})).toBe('UPSTREAM_BLOCKED');
    expect(code(403, {})).toBe('UPSTREAM_BLOCKED');
    expect(code(429, {})).toBe('UPSTREAM_BLOCKED');
    expect(code(500, {})).toBe('PLATFORM_UNAVAILABLE');
    expect(code(503, 'down')).toBe('PLATFORM_UNAVAILABLE');
    expect(code(418, {})).toBe('EXTRACTION_FAILED');
    expect(code(302, '')).toBe('EXTRACTION_FAILED');
    expect(code(200, 'not json')).toBe('EXTRACTION_FAILED');
  });

  test('`say` replaces the caller-facing message; without it the code\'s default message is used', () => {
    expect(run(400, { error: 'Gone' })).toMatchObject({ code: 'NOT_FOUND', message: 'This account was removed by the platform' });
    expect(run(404, {})).toMatchObject({ code: 'NOT_FOUND', message: 'The requested content does not exist or is not public' });
    expect(run(400, { message: 'Log in to continue' }, {}, { 'retry-after': '45' })).toMatchObject({
      code: 'UPSTREAM_BLOCKED',
      message: 'This content needs a signed-in session, which the service does not use',
      retryAfter: 45,
    });
  });

  test('the internal reason names the platform, the call, the status and the upstream code (never sent to the caller)', () => {
    const err = run(403, { error: 'Forbidden', message: 'no' })!;
    expect(err.internal).toBe('unit unit call: 403 code Forbidden "no": refused');
    expect(err.message).not.toContain('unit call');
  });

  test('Retry-After: the upstream\'s own value (seconds, date, rate-limit reset), else 60 s for 429 and the code\'s default', () => {
    expect(run(429, {}, {}, { 'retry-after': '120' })?.retryAfter).toBe(120);
    expect(run(429, {}, {}, { 'x-rate-limit-reset': String(Math.floor(Date.now() / 1000) + 300) })?.retryAfter).toBeGreaterThanOrEqual(299);
    expect(run(503, {}, {}, { 'retry-after': new Date(Date.now() + 90_000).toUTCString() })?.retryAfter).toBeGreaterThanOrEqual(88);
    expect(run(429, {})?.retryAfter).toBe(60);
    expect(run(403, {})?.retryAfter).toBe(60);
    expect(run(502, {})?.retryAfter).toBe(30);
    // A blocked rule on a 429 keeps the 60 s default too.
    expect(run(429, { error: 'Blocked' })?.retryAfter).toBe(60);
  });
});
