import { createHash } from 'node:crypto';
import { type MonitorableId, watchOf } from '../api/monitor-kinds';

/**
 * From one successful poll's `data` and what the monitor remembers, the events to send and what to
 * remember next. Pure: the poller (./poll.ts) stores the state and queues the events.
 *
 * - The first poll only sets the baseline (monitor.ready).
 * - items.new: members whose id was not among the ids seen recently (SEEN_MAX of them, newest
 *   first), so an item that moves in the list (re-ranked) is never new again. The ids are kept as
 *   short hashes (seenMark: 12 characters, 72 bits; two of 1,000 colliding is about 1 in 10^16), so
 *   the state stays under 16 KB whatever the platform's ids look like; and it changes only when
 *   something is new, so a quiet poll writes none of it (./poll.ts).
 * - live.started / live.ended: on a change of `isLive`, with the live object.
 * - bulletin.new: a bulletin of another date (or headline) than the last one.
 * A batch of items larger than MAX_EVENT_BYTES is split into several events.
 */
export const SEEN_MAX = 1000;
export const MAX_EVENT_BYTES = 256 * 1024;

export interface WatchState {
  baseline: boolean;
  /** seenMark of each id seen recently, newest first. */
  seen?: string[];
  isLive?: boolean;
  bulletin?: string;
}

/** What the state keeps of an item's id. */
export const seenMark = (id: string) => createHash('sha256').update(id).digest('base64url').slice(0, 12);

export const EVENT_TYPES = ['monitor.ready', 'monitor.test', 'monitor.paused', 'items.new', 'live.started', 'live.ended', 'bulletin.new'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export interface PendingEvent {
  type: EventType;
  data: Record<string, unknown>;
}

type Data = Record<string, unknown>;

/**
 * An event's id, derived from what it announces, so a step retried after any failure re-creates
 * the same id (receivers de-duplicate on webhook-id): `msg_` + the time it belongs to (a poll's
 * slot, ms in base36, so ids sort by time) + 16 hex of SHA-256 over the monitor, the type and what
 * makes the event itself (the announced items' ids, else the slot and its place in the poll).
 */
export const eventIdFor = (monitorId: string, type: EventType, at: number, what: string) => derivedId('msg_', monitorId, type, at, what);

/** The id of an overflow item of a poll (its deliveries keep their own ids): derived the same way. */
export const overflowIdFor = (monitorId: string, at: number, firstEventId: string) => derivedId('ovf_', monitorId, 'overflow', at, firstEventId);

function derivedId(prefix: string, monitorId: string, kind: string, at: number, what: string): string {
  const hash = createHash('sha256').update(`${monitorId}\n${kind}\n${at}\n${what}`).digest('hex').slice(0, 16);
  return `${prefix}${at.toString(36).padStart(9, '0')}${hash}`;
}

/** What identifies a poll's event beyond its slot: the ids of the items it announces (items.new), else its place. */
export function eventKey(event: PendingEvent, index: number): string {
  const items = event.type === 'items.new' ? (event.data.items as { id?: unknown }[] | undefined) : undefined;
  return items ? items.map((i) => String(i?.id ?? '')).join('\n') : String(index);
}

export function diff(operation: MonitorableId, state: WatchState, data: Data, about: Record<string, unknown>): { events: PendingEvent[]; state: WatchState } {
  const watch = watchOf(operation);
  const events: PendingEvent[] = [];
  const next: WatchState = { baseline: true };
  if (watch.kind === 'items') {
    const items = watch.items(data).map((i) => ({ ...i, mark: seenMark(i.id) }));
    const seen = new Set(state.seen ?? []);
    const unseen = items.filter((i) => !seen.has(i.mark));
    const fresh = state.baseline ? unseen : [];
    // Something new: the page's ids (refreshed) before the older ones. Nothing new: the state as it was.
    next.seen = unseen.length || !state.baseline ? [...new Set([...items.map((i) => i.mark), ...(state.seen ?? [])])].slice(0, SEEN_MAX) : state.seen;
    for (const batch of split(fresh.map((i) => i.item), about)) events.push({ type: 'items.new', data: { ...about, items: batch } });
  } else if (watch.kind === 'live') {
    const isLive = data.isLive === true;
    next.isLive = isLive;
    if (state.baseline && state.isLive !== undefined && isLive !== state.isLive) {
      events.push({ type: isLive ? 'live.started' : 'live.ended', data: { ...about, isLive, user: data.user ?? null, live: data.live ?? null, lastLive: data.lastLive ?? null } });
    }
  } else {
    const mark = `${String(data.date ?? '')}|${String(data.headline ?? '')}`;
    next.bulletin = mark;
    if (state.baseline && state.bulletin !== mark) events.push({ type: 'bulletin.new', data: { ...about, bulletin: data } });
  }
  if (!state.baseline) events.unshift({ type: 'monitor.ready', data: { ...about } });
  return { events, state: next };
}

/** Items in batches whose event body stays under MAX_EVENT_BYTES (an item alone over it goes alone). */
export function split(items: unknown[], about: Record<string, unknown>): unknown[][] {
  const overhead = Buffer.byteLength(JSON.stringify({ type: 'items.new', timestamp: new Date().toISOString(), data: { ...about, items: [] } }));
  const batches: unknown[][] = [];
  let current: unknown[] = [];
  let size = overhead;
  for (const item of items) {
    const bytes = Buffer.byteLength(JSON.stringify(item)) + 1;
    if (current.length && size + bytes > MAX_EVENT_BYTES) {
      batches.push(current);
      current = [];
      size = overhead;
    }
    current.push(item);
    size += bytes;
  }
  if (current.length) batches.push(current);
  return batches;
}
