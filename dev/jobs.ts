import type { Invoke } from '../shared/jobs/engine';
import { type LocalQueue, localQueue, useLocalQueue } from '../shared/jobs/local-queue';
import { invokeInProcess } from './invoke';

/**
 * Bulk jobs in process for the local stack (`npm start`, `npm run demo`, the tests, the bench): the
 * jobs API hands inputs to this queue, which runs them through the same engine the SQS worker runs
 * (shared/jobs/engine.ts), each page through the operation's handler module (functions/<id>.ts), as
 * the local gateway runs it. Result files go under JOB_FILES_DIR (.local/jobs), served by the local
 * gateway behind short-lived signed URLs.
 */
export function startLocalJobs(invoke: Invoke = invokeInProcess, opts: { retryDelayMs?: number } = {}): LocalQueue {
  const q = localQueue(invoke, opts);
  useLocalQueue(q);
  return q;
}
