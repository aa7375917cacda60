import { COMPACT, errorText, toolResult, type Answer } from '../../../shared/mcp/render';
import { findTool } from '../../../shared/api/mcp-tools';

/** The text an agent reads: compact by default, everything still in the structured content. */
const posts = findTool('microblog-a-user-posts')!;
const credits = findTool('account-credits')!;
const meta = { requestId: 'r-1', creditsCharged: 1, creditsRemaining: 41, cached: false };
const author = { handle: 'alice.bsky.social', displayName: 'Alice', avatarUrl: null, followers: 10 };
const post = (i: number) => ({ id: `p${i}`, text: `Post number ${i}`, likeCount: i, author, media: { images: [] }, quoted: null });
const answer = (data: Record<string, unknown>, m: Record<string, unknown> = meta): Answer => ({ data, meta: m });
const compact = (a: Answer, tool = posts) => toolResult(tool, a).content[0]!.text;

test('the structured content is the envelope, whole, whatever the text shows', () => {
  const a = answer({ posts: Array.from({ length: 30 }, (_, i) => post(i)), cursor: 'c2', hasMore: true });
  const r = toolResult(posts, a);
  expect(r.structuredContent).toBe(a);
  expect(r.isError).toBeUndefined();
});

test('a headline with the charge, then the data: empty fields dropped, short ones sharing a line', () => {
  const text = compact(answer({ user: { handle: 'alice', did: 'did:plc:x', bio: 'Tide pools and maps.', bannerUrl: null, pinned: {} }, cursor: null }));
  expect(text.split('\n')).toEqual(['microblog-a-user-posts: live result; 1 credit charged, 41 left (request r-1).', 'user:', '  handle: alice, did: did:plc:x', '  bio: Tide pools and maps.', 'This is the last page.']);
});

test('a cached answer says so, and a free tool says 0 credits', () => {
  expect(compact(answer({ a: 1 }, { ...meta, creditsCharged: 0, cached: true, cachedAt: '2026-01-01T00:00:00.000Z' }))).toMatch(/^microblog-a-user-posts: cached result of 2026-01-01T00:00:00.000Z; 0 credits charged, 41 left/);
  expect(compact(answer({ balance: 3 }, { requestId: 'r-2', creditsCharged: 0 }), credits)).toBe('account-credits: result; 0 credits charged (request r-2).\nbalance: 3');
});

test(`a long list shows its first ${COMPACT.listItems} items, says how many it left out, and how to go on`, () => {
  const text = compact(answer({ posts: Array.from({ length: 30 }, (_, i) => post(i)), cursor: 'c2', hasMore: true }));
  expect(text).toContain('posts: (30)');
  expect(text).toContain('- id: p9');
  expect(text).not.toContain('p10');
  expect(text).toContain('… 20 more posts not shown');
  expect(text).toContain('Next page: call microblog-a-user-posts again with the same arguments and cursor "c2".');
  expect(text).toMatch(/Trimmed for reading \(20 more posts\): the structured content has everything; or call again with response_format "full" and cache_max_age "1d" \(0 credits\)/);
});

test('an object seen before is named, not repeated; a small one fits on a line', () => {
  const text = compact(answer({ posts: [post(1), post(2)] }));
  expect(text).toContain('  author: {handle: alice.bsky.social, displayName: Alice, followers: 10}');
  const big = { ...author, bio: 'A much longer biography that gets a line of its own', site: 'https://alice.example' };
  const twice = compact(answer({ posts: [{ id: 'a', author: big }, { id: 'b', author: big }] }));
  expect(twice).toContain('  author: (as above, handle: alice.bsky.social, 5 fields)');
});

test('nested lists show 3 items, deep objects their name, long texts are cut and long URLs left out', () => {
  const deep = { a: { b: { c: { d: { handle: 'x', note: 'deep down here', n: 1 } } } } };
  const text = compact(
    answer({
      posts: [
        {
          text: 'y'.repeat(COMPACT.chars + 20),
          video: `https://cdn.example/v.mp4?${'s'.repeat(COMPACT.urlChars)}`,
          tags: ['a', 'b', 'c', 'd', 'e'],
          media: [1, 2, 3, 4].map((n) => ({ url: `https://cdn.example/${n}.jpg`, alt: `Picture ${n} of four` })),
        },
      ],
      ...deep,
    }),
  );
  expect(text).toContain(`- text: ${'y'.repeat(COMPACT.chars)}…(+20 chars)`);
  expect(text).toMatch(/ {2}video: \(URL of \d+ characters\)/);
  expect(text).toContain('  tags: [a, b, c] … 2 more not shown');
  expect(text).toContain('  … 1 more media not shown');
  expect(text).toContain('      d: {handle: x, 3 fields}');
  expect(text).toMatch(/Trimmed for reading \(2 more tags, 1 more media, 1 long text cut, 1 long URL left out\)/);
});

test('a text that would read as something else is quoted', () => {
  expect(compact(answer({ a: 'line one\nline two', b: '- not a list item', c: 'x, y' }))).toContain('a: "line one\\nline two"\nb: "- not a list item"\nc: "x, y"');
});

test('response_format full: the whole envelope as JSON text', () => {
  const a = answer({ posts: Array.from({ length: 30 }, (_, i) => post(i)) });
  expect(JSON.parse(toolResult(posts, a, 'full').content[0]!.text)).toEqual(a);
});

describe('errors', () => {
  const error = { code: 'VALIDATION_ERROR' as const, message: 'Invalid query parameters', requestId: 'r-3', details: [{ path: 'url', message: 'Required' }] };

  test('a tool error: the code first, each detail, and no charge', () => {
    const r = toolResult(posts, { error });
    expect(r.isError).toBe(true);
    expect(r.structuredContent).toEqual({ error });
    expect(r.content[0]!.text).toBe('VALIDATION_ERROR: Invalid query parameters\n- url: Required\n(request r-3; no credits charged)');
  });

  test('Retry-After is spelt out', () => {
    expect(errorText({ code: 'UPSTREAM_BLOCKED', message: 'The source blocked the request; try again later', requestId: 'r-4', retryAfter: 60 })).toBe(
      'UPSTREAM_BLOCKED: The source blocked the request; try again later\nRetry after 60 s.\n(request r-4; no credits charged)',
    );
  });
});

test("a monitor's signing secret: on its own labelled line right after the headline, whole, once; the structured content keeps it", () => {
  const create = findTool('monitors-create')!;
  const secret = `whsec_${'A'.repeat(32)}`;
  const monitor = { id: 'mon_1', operation: 'microblog-a-user-posts', params: { handle: 'alice' }, intervalSeconds: 300, webhookUrl: 'https://hooks.example.com/x', status: 'active', pausedReason: null, secret };
  const a = answer({ monitor }, { requestId: 'r-3', creditsCharged: 0 });
  const lines = compact(a, create).split('\n');
  expect(lines.slice(0, 2)).toEqual(['monitors-create: result; 0 credits charged (request r-3).', `SIGNING SECRET (shown this once; it cannot be read again): ${secret}`]);
  expect(lines.filter((l) => l.includes(secret))).toHaveLength(1);
  expect(lines.join('\n')).toContain('id: mon_1');
  expect(toolResult(create, a).structuredContent).toEqual({ data: { monitor }, meta: { requestId: 'r-3', creditsCharged: 0 } });
  // Without a secret (list, get), no such line.
  const { secret: _s, ...shown } = monitor;
  expect(compact(answer({ monitors: [shown] }, { requestId: 'r-4', creditsCharged: 0 }), findTool('monitors-list')!)).not.toContain('SIGNING SECRET');
});
