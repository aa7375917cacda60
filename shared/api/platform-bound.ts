import pLimit from 'p-limit';
import { POLLS_PER_PLATFORM } from './monitor-kinds';

/**
 * The one per-platform bound of upstream work in this process, shared by the monitors' polls
 * (shared/monitors/scheduler.ts) and the bulk jobs' inputs (shared/jobs/local-queue.ts) when they
 * run in process (`npm start`, `npm run demo`, the tests): POLLS_PER_PLATFORM requests of one
 * platform at once, whoever asks, so a job of 100,000 inputs never starves the platform's polls of
 * more than their turn, nor the platform of its bound. Deployed, each platform's queue's event source
 * carries the bound instead (infra/monitors.ts, infra/jobs.ts; docs/jobs.md).
 */
const limits = new Map<string, ReturnType<typeof pLimit>>();
export const platformLimit = (platform: string): ReturnType<typeof pLimit> => limits.get(platform) ?? limits.set(platform, pLimit(POLLS_PER_PLATFORM)).get(platform)!;
