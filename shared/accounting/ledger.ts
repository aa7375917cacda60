import { GetCommand, QueryCommand, TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { config } from '../runtime/config';
import { db, itemUpdate, retryPolicy, teamRange } from '../db/client';
import { LEDGER_PREFIX, teamPk } from '../db/tables';
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
