import { type FakeUpstream, fixture } from './upstream/fake';
import { MICROBLOG_A } from './upstream/replay';

/**
 * The demo's one moving recording, so that a monitor has something to report: the recorded
 * microblog-a feed's first page gains a new post every DEMO_POST_EVERY_MS since the demo started
 * (newest first, the recorded posts after them). Everything else stays as recorded.
 */
export const DEMO_POST_EVERY_MS = 30_000;

type FeedPage = { feed: { post: { uri: string; cid: string; record?: { text?: string; createdAt?: string }; indexedAt?: string } }[] };

export function growingFeed(fake: FakeUpstream, started = Date.now()): void {
  const before = fake.intercept;
  fake.intercept = (req) => {
    if (req.path !== MICROBLOG_A.feed || req.query.cursor) return before?.(req);
    const page = JSON.parse(JSON.stringify(fixture('microblog-a/feed-page1.json'))) as FeedPage;
    const template = page.feed[8]!;
    const n = Math.min(20, Math.floor((Date.now() - started) / DEMO_POST_EVERY_MS));
    const fresh = Array.from({ length: n }, (_, i) => {
      const k = n - i;
      const at = new Date(started + k * DEMO_POST_EVERY_MS).toISOString();
      const item = JSON.parse(JSON.stringify(template)) as FeedPage['feed'][number];
      item.post.uri = item.post.uri.replace(/[^/]+$/, `3ldemo${String(k).padStart(6, '0')}`);
      item.post.cid = `${item.post.cid}${k}`;
      if (item.post.record) Object.assign(item.post.record, { text: `Demo post number ${k}`, createdAt: at });
      item.post.indexedAt = at;
      return item;
    });
    return { body: { ...page, feed: [...fresh, ...page.feed] } };
  };
}
