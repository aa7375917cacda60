import type { AccountChange } from '../auth/keys';
import type { MonitorOwners } from '../auth/members';
import { conditionally, isConditionalFailure, queryAll } from '../db/client';
import { KEY_PREFIX, TEAM_INDEX, teamPk } from '../db/tables';
import { config } from '../runtime/config';
import { logger } from '../runtime/log';
import { type PendingEvent, eventIdFor } from './events';
import { type Monitor, type PausedReason, deliveryPut, listMonitors, monitorUpdateItem, newDelivery, writeTogether } from './store';

type TransactItem = Parameters<typeof writeTogether>[0][number];

/**
 * A monitor is bound to who created it: a poll runs only while that key is live (not revoked) or
 * that member is still in the team. Otherwise the poll never reaches the upstream: the monitor is
 * paused (key_revoked, member_removed). Read from the team's listing of keys and members (the byTeam
 * index of the accounts table: a removed member leaves it; a revoked key carries revokedAt), only
 * the attributes OWNER_ATTRIBUTES names (the poll worker's IAM allows no other: infra/monitors.ts).
 * A monitor from before owners were recorded has neither, and stays bound to its team only.
 *
 * This is also the follow-up that cannot be lost after a revocation or a removal (ownerChange below
 * pauses them eagerly, in the same transaction while the count allows): every active monitor is in
 * the due index, so its next poll runs this check before any request.
 */
export const OWNER_ATTRIBUTES = [TEAM_INDEX.partitionKey, TEAM_INDEX.sortKey, 'keyId', 'memberId', 'revokedAt'] as const;

async function ownerItems(teamId: string, prefix: string, attribute: 'keyId' | 'memberId', id: string): Promise<Record<string, unknown>[]> {
  return queryAll({
    TableName: config.accountsTable,
    IndexName: TEAM_INDEX.name,
    KeyConditionExpression: '#p = :p AND begins_with(#s, :prefix)',
    FilterExpression: '#id = :id',
    ProjectionExpression: '#id, revokedAt',
    Select: 'SPECIFIC_ATTRIBUTES',
    ExpressionAttributeNames: { '#p': TEAM_INDEX.partitionKey, '#s': TEAM_INDEX.sortKey, '#id': attribute },
    ExpressionAttributeValues: { ':p': teamPk(teamId), ':prefix': prefix, ':id': id },
  });
}

export async function ownerGone(m: Pick<Monitor, 'teamId' | 'keyId' | 'memberId'>): Promise<Extract<PausedReason, 'key_revoked' | 'member_removed'> | null> {
  if (m.keyId) {
    const [key] = await ownerItems(m.teamId, KEY_PREFIX, 'keyId', m.keyId);
    return !key || key.revokedAt ? 'key_revoked' : null;
  }
  if (m.memberId) {
    const [member] = await ownerItems(m.teamId, 'MEMBER#', 'memberId', m.memberId);
    return member ? null : 'member_removed';
  }
  return null;
}

/** Whose monitors a change concerns: those created with a key, or by a member from a dashboard session. */
export type MonitorOwner = { keyId: string } | { memberId: string };
const ownedBy = (m: Monitor, owner: MonitorOwner) => ('keyId' in owner ? m.keyId === owner.keyId : !m.keyId && m.memberId === owner.memberId);
const ownerAttribute = (owner: MonitorOwner) => ('keyId' in owner ? { name: 'keyId', value: owner.keyId } : { name: 'memberId', value: owner.memberId });

/** Monitors paused beside the change and its team event in its transaction (2 items each, the pause and its event; DynamoDB's limit is 100 items). */
export const PAUSES_PER_TRANSACTION = 49;

/** A monitor change made only while the monitor still has that owner (a transfer made meanwhile wins). */
function whileOwnedBy(item: TransactItem, owner: MonitorOwner): TransactItem {
  const update = item.Update!;
  const { name, value } = ownerAttribute(owner);
  update.ConditionExpression = `${update.ConditionExpression} AND #owner = :owner`;
  update.ExpressionAttributeNames = { ...update.ExpressionAttributeNames, '#owner': name };
  update.ExpressionAttributeValues = { ...update.ExpressionAttributeValues, ':owner': value };
  return item;
}

/**
 * The items pausing one monitor because its owner went (`reason`), with its monitor.paused event:
 * only while it is active and still that owner's. The event's id is derived from the monitor, the
 * reason and `at` (the revocation's or removal's time), so a repeated follow-up re-creates the same id.
 */
export function ownerPauseItems(m: Monitor, owner: MonitorOwner, reason: OwnerReason, at: number): TransactItem[] {
  const event: PendingEvent = { type: 'monitor.paused', data: { monitorId: m.monitorId, operation: m.operation, params: m.params, reason } };
  const d = newDelivery(m, event, eventIdFor(m.monitorId, 'monitor.paused', at, reason), at);
  return [whileOwnedBy(monitorUpdateItem(m.teamId, m.monitorId, { status: 'paused', pausedReason: reason }, { whileActive: true }), owner), deliveryPut(d)];
}

type OwnerReason = Extract<PausedReason, 'key_revoked' | 'member_removed'>;
const changeRefused = (err: unknown) => (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed';

/**
 * Eager pause (issue 39 part 5): the AccountChange (shared/auth/keys.ts) that writes a revocation or
 * a removal together with the pause of the team's active monitors its owner created, each with its
 * monitor.paused event, in **one transaction** while the count allows (PAUSES_PER_TRANSACTION). A
 * monitor changed meanwhile (paused, transferred, deleted) cancels the transaction: read again,
 * twice more; then the change alone.
 *
 * What the transaction could not hold (more monitors than fit, or a contended one) is paused right
 * after, one transaction each (idempotent: only while active and still that owner's, the same
 * derived event id). Should that follow-up die, nothing is lost: every active monitor stays in the
 * due index, and its next poll runs ownerGone above before any request, so it pauses then, never
 * reaching the upstream and never charged (the poll-time check is the follow-up that cannot be lost).
 *
 * `paused` collects the ids of the monitors paused (for the answer and the log).
 */
export function ownerChange(teamId: string, owner: MonitorOwner, reason: OwnerReason, paused: string[] = []): AccountChange {
  return async (update, also = []) => {
    // The change and what must land with it (its team event: shared/webhooks/events.ts), first in every transaction.
    const change: TransactItem[] = [{ Update: update as NonNullable<TransactItem['Update']> }, ...also];
    const at = Date.now();
    const owned = async () => (await listMonitors(teamId)).filter((m) => m.status === 'active' && ownedBy(m, owner));
    let rest: Monitor[] | null = null;
    for (let round = 0; round < 3 && rest === null; round++) {
      const mine = await owned();
      const now = mine.slice(0, PAUSES_PER_TRANSACTION);
      try {
        await writeTogether([...change, ...now.flatMap((m) => ownerPauseItems(m, owner, reason, at))]);
        paused.push(...now.map((m) => m.monitorId));
        rest = mine.slice(PAUSES_PER_TRANSACTION);
      } catch (err) {
        if (!isConditionalFailure(err)) throw err;
        if (changeRefused(err)) return false;
      }
    }
    if (rest === null) {
      if (!(await conditionally(() => writeTogether(change)))) return false;
      rest = await owned();
    }
    for (const m of rest) {
      try {
        if (await conditionally(() => writeTogether(ownerPauseItems(m, owner, reason, at)))) paused.push(m.monitorId);
      } catch (err) {
        logger.warn('monitor not paused at once; its next poll pauses it', { monitorId: m.monitorId, reason, error: (err as Error).message });
      }
    }
    return true;
  };
}

/**
 * A transfer instead of a pause (a removal with transferKeysTo): the removed member's monitors are
 * the recipient's from then on, in the removal's transaction while the count allows (one item
 * each), then one by one; a monitor left behind is paused by its next poll (member_removed).
 */
export function ownerTransfer(teamId: string, from: { memberId: string }, to: { memberId: string }, moved: string[] = []): AccountChange {
  return async (update, also = []) => {
    // The change and what must land with it (its team event: shared/webhooks/events.ts), first in every transaction.
    const change: TransactItem[] = [{ Update: update as NonNullable<TransactItem['Update']> }, ...also];
    const move = (m: Monitor) => whileOwnedBy(monitorUpdateItem(teamId, m.monitorId, { memberId: to.memberId }), from);
    const mine = (await listMonitors(teamId)).filter((m) => ownedBy(m, from));
    const now = mine.slice(0, 2 * PAUSES_PER_TRANSACTION - also.length + 1);
    let rest = mine.slice(now.length);
    try {
      await writeTogether([...change, ...now.map(move)]);
      moved.push(...now.map((m) => m.monitorId));
    } catch (err) {
      if (!isConditionalFailure(err)) throw err;
      if (changeRefused(err)) return false;
      if (!(await conditionally(() => writeTogether(change)))) return false;
      rest = mine;
    }
    for (const m of rest) if (await conditionally(() => writeTogether([move(m)]))) moved.push(m.monitorId);
    return true;
  };
}

/** The eager pause as the account API is given it (functions/account.ts, scripts/admin.ts). */
export const monitorOwners: MonitorOwners = {
  keyRevoked: (teamId, keyId, paused) => ownerChange(teamId, { keyId }, 'key_revoked', paused),
  memberRemoved: (teamId, memberId, paused) => ownerChange(teamId, { memberId }, 'member_removed', paused),
  memberTransferred: (teamId, from, to, moved) => ownerTransfer(teamId, { memberId: from }, { memberId: to }, moved),
};
