import { MAX_EVENT_BYTES, SEEN_MAX, diff, split } from '../../../shared/monitors/events';

/** The events a poll's answer gives, from what the monitor remembers (pure: no stack needed). */
const about = { monitorId: 'mon_1', operation: 'x', params: {} };

describe('live.started and live.ended follow the live status', () => {
  const answer = (isLive: boolean) => ({ isLive, user: { handle: 'someone' }, live: isLive ? { roomId: 'r1', title: 'on air' } : null, lastLive: isLive ? null : { roomId: 'r1' } });
  test('baseline, then a change each way, and nothing while it holds', () => {
    let state = diff('shortvideo-user-live', { baseline: false }, answer(false), about);
    expect(state.events.map((e) => e.type)).toEqual(['monitor.ready']);
    const started = diff('shortvideo-user-live', state.state, answer(true), about);
    expect(started.events).toEqual([{ type: 'live.started', data: expect.objectContaining({ isLive: true, live: { roomId: 'r1', title: 'on air' } }) }]);
    expect(diff('shortvideo-user-live', started.state, answer(true), about).events).toEqual([]);
    state = diff('shortvideo-user-live', started.state, answer(false), about);
    expect(state.events).toEqual([{ type: 'live.ended', data: expect.objectContaining({ isLive: false, live: null, lastLive: { roomId: 'r1' } }) }]);
  });
  test('a first poll that finds the user live is the baseline, not a start', () => {
    expect(diff('shortvideo-user-live', { baseline: false }, answer(true), about).events.map((e) => e.type)).toEqual(['monitor.ready']);
  });
});

describe('items.new', () => {
  const page = (...ids: string[]) => ({ comments: ids.map((id) => ({ id, text: `comment ${id}` })) });
  test('new by id against the ids seen: a re-ranked item is not new again, a new one is, once', () => {
    const first = diff('shortvideo-video-comments', { baseline: false }, page('a', 'b', 'c'), about);
    const reranked = diff('shortvideo-video-comments', first.state, page('c', 'a', 'b'), about);
    expect(reranked.events).toEqual([]);
    const added = diff('shortvideo-video-comments', reranked.state, page('d', 'c', 'a'), about);
    expect(added.events).toEqual([{ type: 'items.new', data: { ...about, items: [{ id: 'd', text: 'comment d' }] } }]);
    // b dropped off the page and comes back: still seen recently, so not new.
    expect(diff('shortvideo-video-comments', added.state, page('b', 'd'), about).events).toEqual([]);
  });
  test('a quiet poll (nothing new, however re-ranked) leaves the state as it was: nothing to write', () => {
    const first = diff('shortvideo-video-comments', { baseline: false }, page('a', 'b', 'c'), about);
    expect(diff('shortvideo-video-comments', first.state, page('c', 'b', 'a'), about).state).toEqual(first.state);
    expect(diff('shortvideo-video-comments', first.state, page('d', 'a'), about).state).not.toEqual(first.state);
  });
  test('the state of 1,000 ids seen keeps short marks, whatever the ids: under 16 KB for 70-character post URIs', () => {
    const uri = (i: number) => `at://did:plc:abcdefghijklmnopqrstuvwx/app.bsky.feed.post/3l${String(i).padStart(11, '0')}`;
    let state = diff('microblog-a-user-posts', { baseline: false }, { posts: [] }, about).state;
    for (let p = 0; p < 60; p++) state = diff('microblog-a-user-posts', state, { posts: Array.from({ length: 20 }, (_, i) => ({ id: uri(p * 20 + i) })) }, about).state;
    expect(state.seen).toHaveLength(SEEN_MAX);
    expect(Buffer.byteLength(JSON.stringify(state))).toBeLessThan(16_000);
    expect(JSON.stringify(state)).not.toContain('at://');
  });
  test('a batch over 256 KB is split into several events, each under the limit', () => {
    const big = Array.from({ length: 40 }, (_, i) => ({ id: String(i), text: 'x'.repeat(20_000) }));
    const batches = split(big, about);
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.flat()).toHaveLength(40);
    for (const b of batches) expect(Buffer.byteLength(JSON.stringify({ type: 'items.new', timestamp: new Date().toISOString(), data: { ...about, items: b } }))).toBeLessThanOrEqual(MAX_EVENT_BYTES);
  });
});

test('bulletin.new when the day\'s bulletin changes', () => {
  const day = (date: string) => ({ date, weekday: 'Monday', weather: 'sun', headline: `news of ${date}`, tip: 'tip' });
  const first = diff('citygame-daily', { baseline: false }, day('2026-11-28'), about);
  expect(diff('citygame-daily', first.state, day('2026-11-28'), about).events).toEqual([]);
  expect(diff('citygame-daily', first.state, day('2026-11-29'), about).events.map((e) => e.type)).toEqual(['bulletin.new']);
});

test("the OpenAPI document's webhooks section describes every event type, and docs/openapi.json carries it", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { monitorWebhooks } = require('../../../scripts/openapi-monitors') as typeof import('../../../scripts/openapi-monitors');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { EVENT_TYPES } = require('../../../shared/monitors/events') as typeof import('../../../shared/monitors/events');
  expect(Object.keys(monitorWebhooks()).sort()).toEqual([...EVENT_TYPES].sort());
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  // Beside them, the team endpoints' events (shared/webhooks/catalogue.ts, docs/webhooks.md).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ALL_EVENT_TYPES } = require('../../../shared/webhooks/catalogue') as typeof import('../../../shared/webhooks/catalogue');
  expect(Object.keys((require('../../../docs/openapi.json') as { webhooks: object }).webhooks).sort()).toEqual([...EVENT_TYPES, ...ALL_EVENT_TYPES].sort());
});
