import { config } from '../runtime/config';

/** Per-request state: the deadline every attempt must respect and a count of upstream calls. */
export class ScrapeContext {
  upstreamCalls = 0;
  constructor(readonly deadline: number, readonly signal?: AbortSignal) {}
  static withBudget(ms = config.scrapeDeadlineMs, signal?: AbortSignal) {
    return new ScrapeContext(Date.now() + ms, signal);
  }
  remaining() {
    return this.deadline - Date.now();
  }
}
