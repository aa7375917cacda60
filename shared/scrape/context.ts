import { config } from '../runtime/config';
import type { Log } from '../runtime/log';

/**
 * Per-request state: the deadline every attempt must respect, a count of upstream calls, and a
 * count of the items the answer left out because the platform sent them without a value they
 * cannot be built without (drift, issue 31). The pipeline reads both counts after the scrape.
 */
export class ScrapeContext {
  upstreamCalls = 0;
  /** Items (and nested parts such as an image or a quoted post) left out for a missing required value. */
  droppedItems = 0;
  constructor(readonly deadline: number, readonly signal?: AbortSignal) {}
  static withBudget(ms = config.scrapeDeadlineMs, signal?: AbortSignal) {
    return new ScrapeContext(Date.now() + ms, signal);
  }
  remaining() {
    return this.deadline - Date.now();
  }
  /**
   * A mapper left out `resource` (one item of a list, or a nested part) because the platform sent it
   * without `missing`, a value on the resource's required list: counted as drift and logged.
   */
  dropped(resource: string, missing: string, log: Log) {
    this.droppedItems += 1;
    log.warn('left out an item the platform sent without a required value', { resource, missing });
  }
  /** The `Drops` a mapper is given: every drop counted on this context and logged on `log`. */
  drops(log: Log): Drops {
    return { dropped: (resource, missing) => this.dropped(resource, missing, log) };
  }
}

/** Where a mapper reports a part it left out (ScrapeContext.drops). */
export interface Drops {
  dropped(resource: string, missing: string): void;
}

/** For mappers called outside a request (unit tests, the canary's shape checks): drops go nowhere. */
export const IGNORED_DROPS: Drops = { dropped: () => undefined };
