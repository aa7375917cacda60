import { teamItems } from '../db/client';
import type { Monitor, PausedReason } from './store';

/**
 * A monitor is bound to who created it: a poll runs only while that key is live (not revoked) or
 * that member is still in the team. Otherwise the poll never reaches the upstream: the monitor is
 * paused (key_revoked, member_removed). Read from the team's listing of keys and members (the byTeam
 * index: a removed member leaves it; a revoked key carries revokedAt). A monitor from before owners
 * were recorded has neither, and stays bound to its team only.
 */
export async function ownerGone(m: Pick<Monitor, 'teamId' | 'keyId' | 'memberId'>): Promise<Extract<PausedReason, 'key_revoked' | 'member_removed'> | null> {
  if (m.keyId) {
    const [key] = await teamItems(m.teamId, 'KEY#', { expression: 'keyId = :id', values: { ':id': m.keyId } });
    return !key || key.revokedAt ? 'key_revoked' : null;
  }
  if (m.memberId) {
    const [member] = await teamItems(m.teamId, 'MEMBER#', { expression: 'memberId = :id', values: { ':id': m.memberId } });
    return member ? null : 'member_removed';
  }
  return null;
}
