import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { parse } from 'csv-parse/sync';
import { columnsOf, rowOf } from '../../../shared/api/columns';
import { readInputs } from '../../../cli/inputs';
import { encoder, type OutputRecord } from '../../../cli/output';
import { progressBar, summaryLine } from '../../../cli/progress';
import { RateGate } from '../../../cli/rate-gate';
import { freshState, itemKey, markFinished, seenIds } from '../../../cli/state';
import { commandById, operationCommands } from '../../../cli/table';
import { routedOperations } from '../../../shared/operations';

/** The command line's parts that need no server: columns, CSV, the rate gate (on a virtual clock), inputs, state. */

describe('one sub-command per routed operation, from the table', () => {
  test('ids, the list of each paged operation, the main parameter', () => {
    expect(operationCommands().map((c) => c.op.id)).toEqual(routedOperations().map((o) => o.id));
    const lists = Object.fromEntries(operationCommands().map((c) => [c.op.id, c.listField ?? null]));
    expect(lists).toMatchObject({
      'microblog-a-user-posts': 'posts',
      'shortvideo-user-following': 'following',
      'shortvideo-video-comments': 'comments',
      'microblog-c-user-posts': 'posts',
      'microblog-b-user-notes': 'notes',
      'shortvideo-search-hashtag': 'videos',
      // Single resources: one record an answer (replies is optional: trim=true leaves it out).
      'microblog-b-note': null,
      'livestream-clip': null,
      'linkpage-page': null,
    });
    expect(commandById('microblog-a-user-posts')!.mainParam).toBe('handle');
    expect(commandById('shortvideo-video-comments')!.mainParam).toBe('url');
    expect(commandById('shortvideo-search-hashtag')!.mainParam).toBe('hashtag');
    expect(commandById('citygame-daily')!.mainParam).toBeUndefined();
  });
});

describe('CSV columns come from the schema', () => {
  test('dotted names for nested objects, arrays as one JSON cell, in the schema order', () => {
    const c = commandById('shortvideo-search-hashtag')!;
    const names = c.columns.map((col) => col.name);
    expect(names.slice(0, 6)).toEqual(['id', 'url', 'type', 'description', 'createdAt', 'language']);
    expect(names).toEqual(expect.arrayContaining(['stats.playCount', 'author.stats.followerCount', 'video.volume.loudness', 'hashtags', 'video.formats']));
    expect(c.columns.find((col) => col.name === 'hashtags')!.json).toBe(true);
    expect(c.columns.find((col) => col.name === 'stats.playCount')!.json).toBe(false);
    expect(new Set(names).size).toBe(names.length);
  });

  test('a union of full and trimmed notes gives the fields of both; a single resource ends with fetchedAt', () => {
    const notes = commandById('microblog-b-user-notes')!.columns.map((c) => c.name);
    expect(notes).toEqual(expect.arrayContaining(['id', 'text', 'counts.likes', 'isPinned']));
    const clip = commandById('livestream-clip')!.columns.map((c) => c.name);
    expect(clip[0]).toBe('clip.id');
    expect(clip.at(-1)).toBe('fetchedAt');
  });

  test('rows: null and absent values are empty cells, arrays and open objects JSON', () => {
    const v = require('valibot') as typeof import('valibot');
    const columns = columnsOf([v.object({ id: v.string(), a: v.nullable(v.object({ b: v.number() })), tags: v.array(v.string()), raw: v.unknown(), ok: v.boolean() })]);
    expect(columns.map((c) => c.name)).toEqual(['id', 'a.b', 'tags', 'raw', 'ok']);
    expect(rowOf({ id: 'x', a: null, tags: ['p', 'q'], raw: { k: 1 }, ok: false }, columns)).toEqual(['x', '', '["p","q"]', '{"k":1}', 'false']);
    expect(rowOf({ id: 'y', a: { b: 2 }, tags: [] }, columns)).toEqual(['y', '2', '[]', '', '']);
  });
});

describe('CSV output is RFC 4180 and reads back with a CSV parser', () => {
  const c = commandById('shortvideo-search-hashtag')!;
  const tricky: OutputRecord = { id: '1', url: 'https://x/1', description: 'a "quoted", comma\nand a line break; naïve ☀️ 漢字', hashtags: [{ id: 'h', name: 'a,b', description: '"q"' }], stats: { playCount: 5 } };

  test('a header of the columns, CRLF line ends, a BOM in files; every cell reads back as written', () => {
    const enc = encoder('csv', c.columns, { bom: true });
    const text = enc.start() + enc.records([tricky, { id: '2' }], 0);
    expect(text.startsWith('\uFEFFid,url,type,')).toBe(true);
    expect(text.split('\r\n')[0]!.split(',').length).toBe(c.columns.length);
    const rows = parse(text, { bom: true, columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(2);
    expect(Object.keys(rows[0]!)).toEqual(c.columns.map((col) => col.name));
    expect(rows[0]!.description).toBe(tricky.description);
    expect(JSON.parse(rows[0]!.hashtags!)).toEqual(tricky.hashtags);
    expect(rows[0]!['stats.playCount']).toBe('5');
    expect(rows[1]!).toMatchObject({ id: '2', description: '', hashtags: '' });
    expect(encoder('csv', c.columns, { bom: false }).start().startsWith('id,')).toBe(true);
  });

  test('a field with a line break is quoted whatever else it holds: \\n, \\r\\n, \\r alone, commas, quotes; every row as wide as the header', () => {
    // csv-stringify with CRLF records quoted a field with \r\n but not one with a lone \n: a post
    // with a line break split its row (a parser read 33 rows for 28 posts).
    const enc = encoder('csv', c.columns, { bom: false });
    const descriptions = ['first line\nsecond line', 'windows\r\nline', 'old mac\rline', 'a, b and c', 'she said "hi"', 'plain', '\n', 'end\n'];
    const text = enc.start() + enc.records(descriptions.map((description, i) => ({ id: String(i), description })), 0);
    // Read as spreadsheets and most parsers (Python's csv) read: any of \r\n, \n, \r outside quotes ends a row.
    const rows = parse(text, { record_delimiter: ['\r\n', '\n', '\r'] }) as string[][];
    expect(rows).toHaveLength(1 + descriptions.length);
    for (const row of rows) expect(row).toHaveLength(c.columns.length);
    const at = c.columns.findIndex((col) => col.name === 'description');
    expect(rows.slice(1).map((r) => r[at])).toEqual(descriptions);
  });

  test('json is one array however it is cut into pages; jsonl a record a line', () => {
    const json = encoder('json', c.columns, { bom: false });
    const pages = json.start() + json.records([{ id: 'a' }], 0) + json.records([{ id: 'b' }, { id: 'c' }], 1) + json.end(3);
    expect(JSON.parse(pages)).toEqual([{ id: 'a' }, { id: 'b' }, { id: 'c' }]);
    expect(JSON.parse(json.start() + json.end(0))).toEqual([]);
    const jsonl = encoder('jsonl', c.columns, { bom: false });
    expect(jsonl.records([{ id: 'a' }, { id: 'b' }], 0)).toBe('{"id":"a"}\n{"id":"b"}\n');
  });
});

describe('the rate gate (virtual clock: no real waiting, no timing)', () => {
  const virtual = () => {
    let now = 0;
    return { now: () => now, sleep: async (ms: number) => void (now += ms), elapsed: () => now };
  };

  test('a burst of its capacity, then one turn per 60/perMinute seconds', async () => {
    const clock = virtual();
    const gate = new RateGate({ perMinute: 600, capacity: 10, ...clock });
    const times: number[] = [];
    for (let i = 0; i < 25; i++) {
      await gate.turn();
      times.push(clock.elapsed());
    }
    expect(times.slice(0, 10)).toEqual(Array(10).fill(0));
    // 15 more at 10 a second: the last one 1.5 s in, never earlier.
    expect(times[24]).toBeGreaterThanOrEqual(1500);
    for (let i = 11; i < 25; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(100);
  });

  test('a 429 pauses every turn until its Retry-After has passed', async () => {
    const clock = virtual();
    const gate = new RateGate({ perMinute: 6000, ...clock });
    await gate.turn();
    gate.observe(429, new Headers({ 'retry-after': '3' }));
    await Promise.all([gate.turn(), gate.turn()]);
    expect(clock.elapsed()).toBeGreaterThanOrEqual(3000);
    expect(gate.limited).toBe(1);
  });

  test("the server's RateLimit-Remaining lowers the turns left, less the run's other requests in flight", async () => {
    const clock = virtual();
    const gate = new RateGate({ perMinute: 60, capacity: 10, ...clock });
    gate.inFlight = 3;
    // The team has 2 left, and 2 more of this run's requests are on their way: nothing is left.
    gate.observe(200, new Headers({ 'ratelimit-limit': '10', 'ratelimit-remaining': '2', 'ratelimit-reset': '8' }));
    await gate.turn();
    // A turn a second at 60/min: one token to make up from zero.
    expect(clock.elapsed()).toBeGreaterThanOrEqual(1000);
  });

  test('empty at the server: the next turn waits for its next token (Reset / Limit)', async () => {
    const clock = virtual();
    const gate = new RateGate({ perMinute: 6000, capacity: 100, ...clock });
    gate.inFlight = 1;
    gate.observe(200, new Headers({ 'ratelimit-limit': '100', 'ratelimit-remaining': '0', 'ratelimit-reset': '60' }));
    await gate.turn();
    expect(clock.elapsed()).toBeGreaterThanOrEqual(600);
  });
});

describe('inputs, duplicates and the state of a run', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cli-units-'));

  test('one value a line or a CSV column; blanks skipped, values trimmed, a value given twice run once', () => {
    const lines = path.join(dir, 'in.txt');
    writeFileSync(lines, '\uFEFFalice\n\n bob \r\nalice\n');
    expect(readInputs(lines)).toMatchObject({ values: ['alice', 'bob'], duplicates: 1 });
    const csv = path.join(dir, 'in.csv');
    writeFileSync(csv, 'name,handle\n"Smith, Ann",ann\nBob,"bob"\n');
    expect(readInputs(csv, 'handle').values).toEqual(['ann', 'bob']);
    expect(() => readInputs(csv, 'nope')).toThrow(/no such column \(it has name, handle\)/);
  });

  test('an item is the same on another page by its id; a repost by its id and repost time', () => {
    expect(itemKey({ id: 'p1' })).toBe('p1');
    expect(itemKey({ id: 'p1', repostedAt: null })).toBe('p1');
    expect(itemKey({ id: 'p1', repostedAt: '2026-01-01T00:00:00Z' })).not.toBe('p1');
    expect(itemKey({ id: 'p1', repostedAt: '' })).toBe('p1'); // a CSV cell of null
    expect(itemKey({ name: 'no id' })).toBeUndefined();
  });

  test('finished inputs: a watermark and the few beyond it', () => {
    const state = freshState('x');
    for (const i of [2, 0, 3]) markFinished(state, i);
    expect({ next: state.next, finished: state.finished }).toEqual({ next: 1, finished: [2, 3] });
    markFinished(state, 1);
    expect({ next: state.next, finished: state.finished }).toEqual({ next: 4, finished: [] });
  });

  test('the ids of the inputs in progress are read back from the output, JSON Lines, JSON or CSV', async () => {
    const c = commandById('shortvideo-search-hashtag')!;
    const records = [{ input: 'a', id: '1' }, { input: 'b', id: '2' }, { input: 'a', id: '3' }];
    const columns = [{ name: 'input', path: ['input'], json: false }, ...c.columns];
    for (const format of ['jsonl', 'json', 'csv'] as const) {
      const file = path.join(dir, `out.${format}`);
      const enc = encoder(format, columns, { bom: true });
      // As a stopped run leaves it: no end written.
      writeFileSync(file, enc.start() + enc.records(records.slice(0, 1), 0) + enc.records(records.slice(1), 1));
      const seen = await seenIds(file, format, new Map([['a', 0]]));
      expect([...seen.get(0)!]).toEqual(['1', '3']);
    }
    expect(readFileSync(path.join(dir, 'out.json'), 'utf8')).toBe('[\n{"input":"a","id":"1"},\n{"input":"b","id":"2"},\n{"input":"a","id":"3"}');
  });
});

describe('progress on standard error', () => {
  const totals = { pages: 2, items: 30, credits: 1, cacheHits: 1, failed: 1, duplicates: 0, morePages: 0 };
  const terminal = (isTTY: boolean) => {
    const stream = Object.assign(new PassThrough(), { isTTY, columns: 200 });
    let written = '';
    stream.on('data', (d) => (written += d));
    return { stream: stream as unknown as NodeJS.WriteStream, written: () => written };
  };

  test('a bar on a terminal: inputs, pages, items, credits, cache hits, errors and the rate', async () => {
    const t = terminal(true);
    const bar = progressBar(3, { quiet: false, stream: t.stream });
    bar.update(1, totals, 3);
    bar.stop();
    await new Promise((r) => setImmediate(r));
    expect(t.written()).toMatch(/1\/3 inputs \| 2 pages \| 30 items \| 1 credits \| 1 cache hits \| 1 errors \| \d+ req\/min/);
  });

  test('nothing when not a terminal, or with --quiet', async () => {
    for (const [isTTY, quiet] of [[false, false], [true, true]] as const) {
      const t = terminal(isTTY);
      const bar = progressBar(3, { quiet, stream: t.stream });
      bar.update(1, totals);
      bar.stop();
      await new Promise((r) => setImmediate(r));
      expect(t.written()).toBe('');
    }
  });

  test('the closing line: items, pages, credits, cache hits, failed inputs and where their errors are', () => {
    expect(summaryLine({ ...totals, duplicates: 2 }, 3, { errorsFile: 'out.csv.errors.jsonl' })).toBe(
      'social-data: 30 items, 2 pages, 1 credit charged, 1 cache hit, 1 of 3 inputs failed, 2 duplicates removed; errors in out.csv.errors.jsonl',
    );
  });
});
