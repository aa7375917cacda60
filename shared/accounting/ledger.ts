import { GetCommand, QueryCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { config } from '../runtime/config';
import { db, itemUpdate, retryPolicy, teamRange } from '../db/client';
import { JOB_PAGE_CHARGE_PREFIX, LEDGER_PREFIX, teamPk } from '../db/tables';
import { atCapacity } from '../http/errors';
import type { Log } from '../runtime/log';
import { type Answered, historyUpdate } from './request-history';
import { COST } from './teams';

/**
 * The ledger of charges, and the settle of a live answer: the one write that makes a reserved
 * credit a charge (./reservation.ts took it from the balance).
 *
 *   TEAM#<teamId> / LEDGER#<reservation time>#<requestId>   requestId, operation, credits, time (of the charge)
 *                                                            [source: 'monitor', monitorId: a monitor's poll]
 *                                                            [source: 'job', jobId: a bulk job's page]
 *
 * The record is keyed by its reservation's time (the mark's value), so the sweep of old marks can
 * tell a charged reservation from one whose credit never reached the ledger; its `time` is the
 * charge's (when the result was fetched), as the account API shows it.
 */
export interface LedgerEntry {
  teamId: string;
  requestId: string;
  operation: string;
  /** Credits consumed by this request. */
  credits: number;
  time: string;
  /** A monitor's poll (as its history item says); absent for the team's own request, and on charges written before it was recorded. */
  source?: 'monitor' | 'job';
  monitorId?: string;
  jobId?: string;
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export const ledgerKey = (teamId: string, at: number, requestId: string) => ({ pk: teamPk(teamId), sk: `${LEDGER_PREFIX}${new Date(at).toISOString()}#${requestId}` });

const entryOf = (i: Record<string, unknown>): LedgerEntry => ({
  teamId: String(i.teamId),
  requestId: String(i.requestId),
  operation: String(i.operation),
  credits: Number(i.credits),
  time: String(i.time),
  ...(i.source === 'monitor' && typeof i.monitorId === 'string' ? { source: 'monitor' as const, monitorId: i.monitorId } : {}),
  ...(i.source === 'job' && typeof i.jobId === 'string' ? { source: 'job' as const, jobId: i.jobId } : {}),
});

export async function ledger(teamId: string, since?: string): Promise<LedgerEntry[]> {
  return (await teamRange(teamId, `${LEDGER_PREFIX}${since ?? ''}`, `${LEDGER_PREFIX}\uffff`)).map(entryOf);
}

/** The newest charges first, at most `limit`. */
export async function recentCharges(teamId: string, limit: number): Promise<LedgerEntry[]> {
  const res = await db().send(
    new QueryCommand({
      TableName: config.accountsTable,
      KeyConditionExpression: 'pk = :p AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':p': teamPk(teamId), ':from': LEDGER_PREFIX, ':to': `${LEDGER_PREFIX}\uffff` },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (res.Items ?? []).map(entryOf);
}

/**
 * A bulk job's page, charged: one item per request id (a page's is derived from the job, the input
 * and the page: every attempt of it has the same, shared/jobs/engine.ts pageRequestId), written in
 * the settle transaction with the ledger record and conditional on its absence. The ledger record is
 * keyed by its reservation's time, so it alone makes only one attempt's settle idempotent (the same
 * reservation, while its mark stands); this item makes the page's: an attempt that took another
 * reservation (the first one's mark was gone: settled, then removed) is refused by it, and its credit
 * given back (`PageChargedBefore`). It is also what tells the job, on a retried attempt, that the
 * page was paid for (`jobPageCharged`), so the job's credits are the ledger's.
 */
export const jobPageChargeKey = (teamId: string, jobId: string, requestId: string) => ({ pk: teamPk(teamId), sk: `${JOB_PAGE_CHARGE_PREFIX}${jobId}#${requestId}` });

/** Kept longer than a job's own items (8 days, shared/jobs/store.ts): a retry comes within the job's life. */
const JOB_PAGE_CHARGE_KEPT_S = 9 * 86_400;

/** Whether the ledger holds the charge of job `jobId`'s page `requestId` (a strongly consistent read). */
export async function jobPageCharged(teamId: string, jobId: string, requestId: string): Promise<boolean> {
  const res = await db().send(new GetCommand({ TableName: config.accountsTable, Key: jobPageChargeKey(teamId, jobId, requestId), ConsistentRead: true, ProjectionExpression: 'pk' }));
  return res.Item !== undefined;
}

/** A job's page whose charge is in the ledger already, by another reservation: this one's credit goes back, nothing is charged. */
export class PageChargedBefore extends Error {
  constructor() {
    super('this job page was charged before');
    this.name = 'PageChargedBefore';
  }
}

/** The reservation a live answer settles (./reservation.ts). */
export interface Reserved {
  teamId: string;
  requestId: string;
  /** The reservation's time (epoch ms): the ledger record's key. */
  at: number;
}

/**
 * A live answer's settle: one TransactWriteItems writes its ledger record, its request record
 * (history item: `answer`) and the cache entry, so the history and the cache hold a result exactly
 * when it was charged. The ledger record is conditional on its absence, which makes a retry safe:
 * a retry of a write that landed is refused on the ledger record and changes nothing. A cache entry
 * the database refuses (size, say) must not cost the charge: the write is tried again without it.
 * A bulk job's page also writes its JOBPAGE# item (jobPageChargeKey), conditional on its absence:
 * refused there, the page was charged under another reservation, and PageChargedBefore is thrown
 * (the caller gives this reservation's credit back and answers free).
 * A settle that fails, and whose ledger record a strongly consistent read then does not find,
 * throws (503); the caller gives the credit back. `cacheItem` null: served uncached.
 */
export async function settleLive(r: Reserved, answer: Answered, cacheItem: Record<string, unknown> | null, log: Log): Promise<void> {
  const key = ledgerKey(r.teamId, r.at, r.requestId);
  const entry: LedgerEntry = {
    teamId: r.teamId,
    requestId: r.requestId,
    operation: answer.operation,
    credits: COST,
    time: new Date(answer.time).toISOString(),
    ...(answer.monitorId ? { source: 'monitor' as const, monitorId: answer.monitorId } : {}),
    ...(answer.jobId ? { source: 'job' as const, jobId: answer.jobId } : {}),
  };
  // UpdateItem, never PutItem (a scraping function has none on the accounts table); created, never changed.
  const charge: TransactItem[] = [
    { Update: itemUpdate(config.accountsTable, { ...key, ...entry }, { condition: { expression: 'attribute_not_exists(pk)' } }) },
    { Update: historyUpdate(answer) },
  ];
  // A job's page: charged once per request id, whatever reservation this attempt took (jobPageChargeKey).
  const JOB_PAGE = charge.length;
  if (answer.jobId) {
    const page = { ...jobPageChargeKey(r.teamId, answer.jobId, r.requestId), requestId: r.requestId, jobId: answer.jobId, ledgerSk: key.sk, expiresAt: Math.floor(Date.now() / 1000) + JOB_PAGE_CHARGE_KEPT_S };
    charge.push({ Update: itemUpdate(config.accountsTable, page, { condition: { expression: 'attribute_not_exists(pk)' } }) });
  }
  let withCache = cacheItem !== null;
  const again = retryPolicy();
  let last: unknown;
  for (let attempt = 0; await again(attempt); attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: withCache ? [...charge, { Put: { TableName: config.cacheTable, Item: cacheItem! } }] : charge }));
      return;
    } catch (err) {
      last = err;
      const reasons = cancellationCodes(err);
      if (reasons?.[0] === 'ConditionalCheckFailed') return; // an earlier attempt of this very write landed
      if (answer.jobId && reasons?.[JOB_PAGE] === 'ConditionalCheckFailed') throw new PageChargedBefore(); // another attempt of the page was charged
      if (reasons?.includes('TransactionConflict')) continue;
      if (withCache) {
        log.warn('ledger+cache write failed; writing the charge alone', { error: (err as Error).name });
        withCache = false;
      }
    }
  }
  // A write whose answer was lost may have landed: then the charge is real and the answer delivered.
  const recorded = await db()
    .send(new GetCommand({ TableName: config.accountsTable, Key: key, ConsistentRead: true }))
    .then((res) => res.Item !== undefined)
    .catch(() => false);
  if (recorded) return log.warn('ledger write reported a failure but the record exists; charged', { error: (last as Error)?.name });
  throw atCapacity(`ledger write failed: ${(last as Error)?.name}`);
}

/** The per-action codes of a cancelled transaction ('None' for an action that was not the cause), or undefined for any other error. */
function cancellationCodes(err: unknown): string[] | undefined {
  if ((err as { name?: string }).name !== 'TransactionCanceledException') return undefined;
  return ((err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code ?? 'None');
}
