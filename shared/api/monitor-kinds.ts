import type { OperationId } from '../operations';

/**
 * What a monitor can watch, by operation, and what an answer's `data` says about it:
 * `items` — a list whose new members (by id) are items.new; `live` — the live status
 * (live.started / live.ended); `bulletin` — the day's bulletin (bulletin.new).
 */
type Data = Record<string, unknown>;
export type Watch =
  | { kind: 'items'; noun: string; items: (data: Data) => { id: string; item: unknown }[] }
  | { kind: 'live' }
  | { kind: 'bulletin' };

const list = (field: string, noun = field) =>
  ({
    kind: 'items',
    noun,
    items: (data: Data) => {
      const arr = data[field];
      return Array.isArray(arr) ? arr.flatMap((item) => (item && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'string' ? [{ id: (item as { id: string }).id, item }] : [])) : [];
    },
  }) as const;

export const MONITORABLE = {
  'microblog-a-user-posts': list('posts'),
  'microblog-b-user-notes': list('notes'),
  'microblog-b-note': list('replies'),
  'microblog-c-user-posts': list('posts'),
  'shortvideo-video-comments': list('comments'),
  'shortvideo-search-hashtag': list('videos'),
  'shortvideo-user-following': list('following'),
  'shortvideo-user-live': { kind: 'live' },
  'citygame-daily': { kind: 'bulletin' },
} as const satisfies Partial<Record<OperationId, Watch>>;

export type MonitorableId = keyof typeof MONITORABLE;
export const MONITORABLE_IDS = Object.keys(MONITORABLE) as MonitorableId[];
export const isMonitorable = (id: string): id is MonitorableId => Object.hasOwn(MONITORABLE, id);
export const watchOf = (id: MonitorableId): Watch => MONITORABLE[id];

/**
 * Polls of one platform in flight at once, at most: a slow or failing platform holds only its own
 * share, never the others' polls (docs/monitors.md, "At scale"). Deployed, each platform has its
 * own poll queue whose worker runs at most POLL_BATCH polls per invocation and
 * POLLS_PER_PLATFORM / POLL_BATCH invocations at once; locally the scheduler keeps the same bound.
 */
export const POLLS_PER_PLATFORM = 25;
export const POLL_BATCH = 5;
