import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db/client';
import type { Log } from '../runtime/log';
import { type Outcome, outcomeUpdates } from './outcome-counts';

/**
 * The outcome counters' writes (plain UpdateItems, never in a transaction: every team's answers of
 * an operation in one minute meet on the same few items, and a transaction holding one would be
 * cancelled, and fail the plain updates of others, whenever two met). Without metrics, so the
 * authorizer bundles it (shared/status/outcomes.ts adds the metric of a failed count).
 */

/** The counters of `o` written (those of `replacing` taken back in the same updates); false, logged, when they were not. Never throws. */
export async function countOutcome(o: Outcome, log: Log, replacing?: Outcome): Promise<boolean> {
  return send(outcomeUpdates(o, replacing), log);
}

/** The counters of `o` taken back (counted ahead for a request that never reached its function). Never throws. */
export async function uncountOutcome(o: Outcome, log: Log): Promise<boolean> {
  return send(outcomeUpdates(o, undefined, -1), log);
}

async function send(inputs: readonly ReturnType<typeof outcomeUpdates>[number][], log: Log): Promise<boolean> {
  try {
    await Promise.all(inputs.map((input) => db().send(new UpdateCommand(input))));
    return true;
  } catch (err) {
    log.warn('outcome not counted', { error: (err as Error).name });
    return false;
  }
}
