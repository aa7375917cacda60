import { platformLimit } from '../api/platform-bound';
import { type OperationId, operation } from '../operations';
import { logger } from '../runtime/log';
import { type Engine, type InputRef, type Invoke, MAX_ATTEMPTS, RetryInput, giveUpInput, runInput } from './engine';

/**
 * The in-process queue of `npm start`, `npm run demo`, the tests and the bench: the inputs handed out
 * run here, through the same runInput the SQS worker runs, each platform's inputs inside the
 * process's one per-platform bound shared with the monitors' polls (shared/api/platform-bound.ts),
 * each failed attempt tried again (up to MAX_ATTEMPTS, then recorded as failed) after a short wait,
 * as the queue's visibility timeout would. `idle()` resolves when nothing is running or waiting.
 */
export interface LocalQueue {
  engine: Engine;
  idle(): Promise<void>;
}

export function localQueue(invoke: Invoke, opts: { retryDelayMs?: number } = {}): LocalQueue {
  let pending = 0;
  const waiters: (() => void)[] = [];
  const settle = () => {
    if (--pending === 0) for (const w of waiters.splice(0)) w();
  };
  const engine: Engine = {
    invoke,
    log: logger,
    send: async (job, refs) => {
      const platform = operation(job.operation as OperationId).platform;
      for (const ref of refs) run(ref, 1, platform);
    },
  };
  const run = (ref: InputRef, attempt: number, platform: string) => {
    pending += 1;
    void platformLimit(platform)(() => runInput(ref, attempt, engine))
      .catch((err: unknown) => {
        if (attempt < MAX_ATTEMPTS) {
          if (!(err instanceof RetryInput)) logger.warn('job input failed; trying again', { jobId: ref.jobId, index: ref.index, attempt, error: (err as Error).message });
          return new Promise<void>((resolve) =>
            setTimeout(() => {
              run(ref, attempt + 1, platform);
              resolve();
            }, (opts.retryDelayMs ?? 200) * attempt),
          );
        }
        return giveUpInput(ref, (err as Error).message, engine).catch((e: unknown) => logger.error('job input not recorded', { jobId: ref.jobId, error: (e as Error).message }));
      })
      .finally(settle);
  };
  return {
    engine,
    idle: () => (pending === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
  };
}

/**
 * The engine jobs are handed to when no SQS queue is configured: set once by the local stack
 * (dev/stack.ts) with the in-process invoke; the jobs API reads it.
 */
let local: LocalQueue | undefined;
export const useLocalQueue = (q: LocalQueue | undefined) => void (local = q);
export const currentLocalQueue = () => local;
