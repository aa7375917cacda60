import { queryAll } from '../db/client';
import { KEY_PREFIX, TEAM_INDEX, teamPk } from '../db/tables';
import { config } from '../runtime/config';
import type { Monitor, PausedReason } from './store';

/**
 * A monitor is bound to who created it: a poll runs only while that key is live (not revoked) or
 * that member is still in the team. Otherwise the poll never reaches the upstream: the monitor is
 * paused (key_revoked, member_removed). Read from the team's listing of keys and members (the byTeam
 * index of the accounts table: a removed member leaves it; a revoked key carries revokedAt), only
 * the attributes OWNER_ATTRIBUTES names (the poll worker's IAM allows no other: infra/monitors.ts).
 * A monitor from before owners were recorded has neither, and stays bound to its team only.
 *
 * This is also the follow-up that cannot be lost after a revocation or a removal (./owner-pause.ts
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
