import { config } from '../runtime/config';

/** Per-request state: the deadline every attempt must respect, a count of upstream calls, and of list items dropped for drift. */
export class ScrapeContext {
  upstreamCalls = 0;
  /** Items of the answer's list that could not be built (a required value missing): counted in the operation's status. */
  droppedItems = 0;
  constructor(readonly deadline: number, readonly signal?: AbortSignal) {}
  static withBudget(ms = config.scrapeDeadlineMs, signal?: AbortSignal) {
    return new ScrapeContext(Date.now() + ms, signal);
  }
  remaining() {
    return this.deadline - Date.now();
  }
}
