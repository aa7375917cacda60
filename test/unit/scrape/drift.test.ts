import { ApiError } from '../../../shared/http/errors';
import { focalNoteOf, mapThreadNote } from '../../../shared/platforms/microblog-b/map';
import { ScrapeContext } from '../../../shared/scrape/context';
import { MissingValue, get, keepGood, listGood, need, orDropped, str } from '../../../shared/scrape/map';
import { fixture } from '../../../dev/upstream/fake';

/**
 * The pieces of drift tolerance (issue 31) the mappers share: need() names the missing value, a list
 * keeps its good items and reports the others, a nested part is null or left out, the request's
 * context counts and logs every one; new upstream fields pass through only where the spec keeps raw
 * data. The suite over every operation: test/reliability/drift.test.ts.
 */
const recorder = () => {
  const dropped: string[] = [];
  return { dropped, drops: { dropped: (resource: string, missing: string) => void dropped.push(`${resource}: ${missing}`) } };
};
const build = (x: unknown) => ({ id: need(str(get(x, 'id')), 'item id') });

test('need(): the value, or MissingValue (EXTRACTION_FAILED) naming it', () => {
  expect(need('a', 'x')).toBe('a');
  expect(() => need(null, 'post uri')).toThrow(MissingValue);
  expect(() => need(undefined, 'post uri')).toThrow(expect.objectContaining({ code: 'EXTRACTION_FAILED', missing: 'post uri', internal: 'the upstream answer has no post uri' }));
});

test('keepGood(): the items that can be built, in order; each other one reported; none at all is the first MissingValue', () => {
  const { dropped, drops } = recorder();
  expect(keepGood([{ id: 'a' }, {}, { id: 'c' }, null], build, 'item', drops)).toEqual([{ id: 'a' }, { id: 'c' }]);
  expect(dropped).toEqual(['item: item id', 'item: item id']);
  expect(keepGood([], build, 'item', drops)).toEqual([]);
  expect(() => keepGood([{}, {}], build, 'item', drops)).toThrow(expect.objectContaining({ missing: 'item id' }));
  // Anything but a missing value is not drift: it is not swallowed.
  expect(() => keepGood([{ id: 'a' }], () => { throw new TypeError('a bug'); }, 'item', drops)).toThrow(TypeError);
});

test('orDropped() and listGood(): a nested part without its identity is null, or left out of its list, and reported', () => {
  const { dropped, drops } = recorder();
  expect(orDropped(() => build({}), 'quoted post', drops)).toBeNull();
  expect(orDropped(() => build({ id: 'q' }), 'quoted post', drops)).toEqual({ id: 'q' });
  expect(listGood([{}, { id: 'i' }], build, 'image', drops)).toEqual([{ id: 'i' }]);
  expect(listGood([{}], build, 'image', drops)).toEqual([]);
  expect(dropped).toEqual(['quoted post: item id', 'image: item id', 'image: item id']);
  expect(() => orDropped(() => { throw new ApiError('NOT_FOUND', 'gone'); }, 'x', drops)).toThrow(ApiError);
});

test('ScrapeContext: every drop counted (droppedItems, which the pipeline reads) and logged with the resource and the missing value', () => {
  const ctx = ScrapeContext.withBudget(1000);
  const warned: unknown[][] = [];
  const log = { warn: (...args: unknown[]) => void warned.push(args) } as unknown as Parameters<ScrapeContext['dropped']>[2];
  expect(ctx.droppedItems).toBe(0);
  ctx.dropped('post', 'post uri', log);
  keepGood([{}, { id: 'b' }], build, 'comment', ctx.drops(log));
  expect(ctx.droppedItems).toBe(2);
  expect(warned.map(([, fields]) => fields)).toEqual([
    { resource: 'post', missing: 'post uri' },
    { resource: 'comment', missing: 'item id' },
  ]);
});

test('str(): an integer JSON parsing has rounded (beyond 2^53) is no id', () => {
  expect([str(7503400000000000001), str(42), str(1.5), str('7503400000000000001')]).toEqual([null, '42', '1.5', '7503400000000000001']);
});

test('a field the platform adds passes through where the spec keeps raw data (article.raw, card.legacy) and is ignored elsewhere', () => {
  const answer = fixture('microblog-b/note-article.json') as { data: { tweetResult: { result: Record<string, any> } } };
  const result = answer.data.tweetResult.result;
  result.article.article_results.result.brandNewArticleField = { shown: true };
  result.legacy.brandNewNoteField = 'ignored';
  result.core.user_results.result.brandNewUserField = 'ignored';
  const note = mapThreadNote(focalNoteOf(answer));
  expect(note.article?.raw).toMatchObject({ brandNewArticleField: { shown: true } });
  const { article, ...rest } = note;
  expect(JSON.stringify(rest)).not.toMatch(/brandNew/);
  expect(article).not.toHaveProperty('brandNewArticleField');
});
