/**
 * The command line's own pacing, shared by all its concurrent requests, so that a batch stays inside
 * the team's rate limit instead of finding it with 429s:
 *   - a token bucket at `perMinute` (default the spec's 100 per minute), holding at most `capacity`
 *     turns (a tenth of a minute's budget: a run never starts with a burst the team may not have);
 *   - the server's RateLimit-Remaining, where it sends one (the local gateway does; API Gateway does
 *     not), lowers the turns left to what the team really has, less the run's other requests in
 *     flight; none left, the next turn waits for the bucket's next token (RateLimit-Reset / -Limit);
 *   - a 429 pauses every request of the run until its Retry-After has passed.
 * Turns are given in the order they were asked for.
 */
export interface GateOptions {
  perMinute: number;
  capacity?: number;
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export class RateGate {
  readonly perMinute: number;
  readonly capacity: number;
  /** Requests of the run between their turn and their answer (kept by the caller). */
  inFlight = 0;
  /** 429 answers seen. */
  limited = 0;
  private tokens: number;
  private at: number;
  private pausedUntil = 0;
  private queue: Promise<void> = Promise.resolve();
  private readonly now: () => number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(opts: GateOptions) {
    if (!(opts.perMinute > 0)) throw new Error('perMinute must be positive');
    this.perMinute = opts.perMinute;
    this.capacity = Math.max(1, opts.capacity ?? Math.ceil(opts.perMinute / 10));
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? sleep;
    this.tokens = this.capacity;
    this.at = this.now();
  }

  /** Resolves when the caller may send one request. */
  turn(signal?: AbortSignal): Promise<void> {
    const mine = this.queue.then(() => this.wait(signal));
    this.queue = mine.catch(() => undefined);
    return mine;
  }

  /** What an answer tells about the team's budget: its status, Retry-After and RateLimit-* headers. */
  observe(status: number, headers: { get(name: string): string | null }): void {
    const now = this.now();
    this.refill(now);
    if (status === 429) {
      this.limited += 1;
      const retryAfter = retryAfterSeconds(headers.get('retry-after'), now) ?? 1;
      this.pausedUntil = Math.max(this.pausedUntil, now + retryAfter * 1000);
      this.tokens = Math.min(this.tokens, 0);
    }
    const remaining = seconds(headers.get('ratelimit-remaining'));
    if (remaining === undefined) return;
    this.tokens = Math.min(this.tokens, remaining - Math.max(0, this.inFlight - 1));
    const limit = seconds(headers.get('ratelimit-limit'));
    const reset = seconds(headers.get('ratelimit-reset'));
    // Empty: the bucket's next token comes at the latest after Reset (time to full) / Limit.
    if (remaining < 1 && limit && reset !== undefined) this.pausedUntil = Math.max(this.pausedUntil, now + (reset / limit) * 1000);
  }

  private refill(now: number) {
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) * this.perMinute) / 60_000);
    this.at = now;
  }

  private async wait(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const now = this.now();
      this.refill(now);
      if (now < this.pausedUntil) {
        await this.sleep(this.pausedUntil - now, signal);
        continue;
      }
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await this.sleep(Math.ceil(((1 - this.tokens) * 60_000) / this.perMinute), signal);
    }
  }
}

const seconds = (value: string | null): number | undefined => {
  if (value === null || value.trim() === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
};

/** Retry-After in seconds: a number of seconds, or an HTTP date. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  const n = seconds(value);
  if (n !== undefined || value === null) return n;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
