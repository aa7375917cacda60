import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally, db, queryAll } from '../db/client';
import { TEAM_INDEX, TEAM_SK, teamPk } from '../db/tables';
import { config } from '../runtime/config';
import type { Log } from '../runtime/log';
import { teamEventWrites } from './events';

/**
 * credits.low and credits.exhausted, once per crossing, without slowing the charge down.
 *
 * The team item carries the threshold (`creditsLowThreshold`, set by PATCH /v1/account/settings)
 * and what was last announced: `creditAlert` (absent, `low` or `exhausted`) and `creditAlertSeq`, a
 * counter of transitions. A charge (shared/accounting/reservation.ts reserve) already gets the team
 * item back from its UpdateItem (ReturnValues ALL_NEW); `creditTransition` decides on those values,
 * in memory: nearly every charge stops there, with no call at all. Only the charge that crosses
 * writes one transaction: the team item's `creditAlert` and `creditAlertSeq` on condition that the
 * counter is still the one it read (two charges crossing at once: one wins, one event), and the
 * event(s), each id derived from the team, the type and the new counter value (so a retry re-creates
 * the same id, and the next crossing has a new one).
 *
 * A crash between the charge and that transaction would lose the crossing, so the minute tick
 * reconciles (`reconcileCredits`): every team with a threshold (the byTeam index's CREDITWATCH
 * partition, which the setting puts the team item in) is checked the same way, and its missing
 * event written then — at most a minute late, never lost, never twice. The same check re-arms: a
 * balance back at or above the threshold (a grant, refunds, a lower threshold) clears the alert,
 * so the next fall below it is a new crossing. A grant re-arms at once (shared/accounting/teams.ts).
 * credits.exhausted needs no threshold: the charge that reaches 0 sends it (and the tick covers
 * the teams with a threshold).
 */
export const CREDIT_WATCH = 'CREDITWATCH';
export type CreditAlert = 'low' | 'exhausted';

export interface CreditFields {
  credits: number;
  creditsLowThreshold?: number;
  creditAlert?: CreditAlert;
  creditAlertSeq?: number;
}

export const alertOf = (credits: number, threshold: number | undefined): CreditAlert | undefined => (credits <= 0 ? 'exhausted' : threshold !== undefined && credits < threshold ? 'low' : undefined);

const RANK = { undefined: 0, low: 1, exhausted: 2 } as const;

/** What a team item's values call for (pure): null when nothing, else the alert to record and the events a fall announces. */
export function creditTransition(f: CreditFields): { next: CreditAlert | undefined; events: ('credits.low' | 'credits.exhausted')[] } | null {
  const next = alertOf(f.credits, f.creditsLowThreshold);
  if (next === f.creditAlert) return null;
  const from = RANK[String(f.creditAlert) as keyof typeof RANK];
  const to = RANK[String(next) as keyof typeof RANK];
  if (to < from) return { next, events: [] };
  const events: ('credits.low' | 'credits.exhausted')[] = [];
  // From above the threshold straight to zero: the low crossing happened too (when there is a threshold).
  if (from === 0 && f.creditsLowThreshold !== undefined && f.creditsLowThreshold > 0) events.push('credits.low');
  if (next === 'exhausted') events.push('credits.exhausted');
  return { next, events };
}

export const creditFieldsOf = (item: Record<string, unknown>): CreditFields => ({
  credits: Number(item.credits ?? 0),
  creditsLowThreshold: typeof item.creditsLowThreshold === 'number' ? item.creditsLowThreshold : undefined,
  creditAlert: item.creditAlert as CreditAlert | undefined,
  creditAlertSeq: typeof item.creditAlertSeq === 'number' ? item.creditAlertSeq : undefined,
});

/**
 * After a balance change, from the team item as the change returned it: records a transition and
 * writes its events in one transaction (nothing when there is none, the common case: no call).
 * True when this call wrote it. Never throws: a failure is left to the minute tick.
 */
export async function creditEvents(teamId: string, item: Record<string, unknown> | undefined, log?: Log, now = Date.now()): Promise<boolean> {
  if (!item) return false;
  const f = creditFieldsOf(item);
  const t = creditTransition(f);
  if (!t) return false;
  const seq = f.creditAlertSeq ?? 0;
  const next = seq + 1;
  try {
    const wrote = await conditionally(() =>
      db().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: config.accountsTable,
                Key: { pk: teamPk(teamId), sk: TEAM_SK },
                UpdateExpression: `SET creditAlertSeq = :next${t.next ? ', creditAlert = :alert' : ''}${t.next ? '' : ' REMOVE creditAlert'}`,
                ConditionExpression: seq === 0 ? 'attribute_exists(pk) AND attribute_not_exists(creditAlertSeq)' : 'creditAlertSeq = :seq',
                ExpressionAttributeValues: { ':next': next, ...(t.next ? { ':alert': t.next } : {}), ...(seq === 0 ? {} : { ':seq': seq }) },
              },
            },
            ...t.events.flatMap((type) =>
              type === 'credits.low'
                ? teamEventWrites(teamId, type, `crossing-${next}`, { teamId, credits: f.credits, threshold: f.creditsLowThreshold ?? 0 }, now)
                : teamEventWrites(teamId, type, `crossing-${next}`, { teamId, credits: f.credits }, now),
            ),
          ],
        }),
      ),
    );
    if (wrote && t.events.length) log?.info('credit events', { teamId, events: t.events, credits: f.credits });
    return wrote;
  } catch (err) {
    log?.warn('credit events not written; the minute tick will', { teamId, error: (err as Error).name });
    return false;
  }
}

/** The minute tick's check of every team with a threshold (a crash between a charge and its event cannot lose it). */
export async function reconcileCredits(log?: Log, now = Date.now()): Promise<{ teams: number; written: number }> {
  const items = await queryAll({
    TableName: config.accountsTable,
    IndexName: TEAM_INDEX.name,
    KeyConditionExpression: '#p = :p',
    ExpressionAttributeNames: { '#p': TEAM_INDEX.partitionKey },
    ExpressionAttributeValues: { ':p': CREDIT_WATCH },
  });
  let written = 0;
  for (const item of items) {
    // The index is eventually consistent; the transaction's condition on the counter is not.
    if (creditTransition(creditFieldsOf(item)) && (await creditEvents(String(item.teamId ?? String(item.pk).slice('TEAM#'.length)), item, log, now))) written++;
  }
  return { teams: items.length, written };
}

/** The team's threshold and what was last announced (null: no team). */
export async function creditSettings(teamId: string): Promise<{ creditsLowThreshold: number | null; credits: number; creditAlert: CreditAlert | null } | null> {
  const res = await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: teamPk(teamId), sk: TEAM_SK }, ConsistentRead: true }));
  if (!res.Item) return null;
  const f = creditFieldsOf(res.Item);
  return { creditsLowThreshold: f.creditsLowThreshold ?? null, credits: f.credits, creditAlert: f.creditAlert ?? null };
}

/**
 * Sets (a number) or clears (null) the team's threshold, naming only the threshold and the byTeam
 * index's keys (its place in the CREDITWATCH listing) and returning nothing (the function's IAM
 * allows no more); then the team as it stands is checked at once (a threshold above the balance is
 * a crossing now).
 */
export async function setCreditsLowThreshold(teamId: string, threshold: number | null, log?: Log): Promise<boolean> {
  const set = await conditionally(() =>
    db().send(
      new UpdateCommand({
        TableName: config.accountsTable,
        Key: { pk: teamPk(teamId), sk: TEAM_SK },
        UpdateExpression: threshold === null ? 'REMOVE creditsLowThreshold, #gp, #gs' : 'SET creditsLowThreshold = :t, #gp = :watch, #gs = :team',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#gp': TEAM_INDEX.partitionKey, '#gs': TEAM_INDEX.sortKey },
        ...(threshold === null ? {} : { ExpressionAttributeValues: { ':t': threshold, ':watch': CREDIT_WATCH, ':team': teamId } }),
      }),
    ),
  );
  if (!set) return false;
  const res = await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: teamPk(teamId), sk: TEAM_SK }, ConsistentRead: true }));
  await creditEvents(teamId, res.Item, log);
  return true;
}
