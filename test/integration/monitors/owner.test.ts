import { aMonitor } from '../../support/monitors';
import { ensureTables } from '../../../dev/tables';
import { teamWithKey } from '../../../dev/teams';
import { getMember, invite, removeMember } from '../../../shared/auth/members';
import { revokeKey } from '../../../shared/auth/keys';
import { pollMonitor } from '../../../shared/monitors/poll';
import { type Monitor, getMonitor, listDeliveries, putMonitor } from '../../../shared/monitors/store';
import { logger } from '../../../shared/runtime/log';

/** A monitor is bound to who created it: its key revoked or its member removed, a poll pauses it and never reaches the upstream. */
beforeAll(() => ensureTables());

const monitorOf = (teamId: string, owner: Pick<Monitor, 'keyId' | 'memberId'>): Monitor => aMonitor(teamId, owner);

test.each(['key_revoked', 'member_removed'] as const)('%s: paused with that reason, one monitor.paused, no upstream request', async (reason) => {
  const { teamId, keyId } = await teamWithKey('owner-test', 10);
  let m: Monitor;
  if (reason === 'key_revoked') {
    m = monitorOf(teamId, { keyId });
    await putMonitor(m);
    await revokeKey(teamId, keyId);
  } else {
    const email = `owner-${Date.now()}@example.com`;
    await invite(teamId, email);
    const member = (await getMember(email))!;
    m = monitorOf(teamId, { memberId: member.memberId });
    await putMonitor(m);
    await removeMember(member);
  }
  const invoked: string[] = [];
  const out = await pollMonitor({ teamId, monitorId: m.monitorId, dueAt: m.nextPollAt }, Date.now(), logger, async (id) => {
    invoked.push(id);
    return { statusCode: 200, body: JSON.stringify({ data: { posts: [] } }) };
  });
  expect(out?.events).toEqual(['monitor.paused']);
  expect(invoked).toEqual([]);
  expect(await getMonitor(teamId, m.monitorId)).toMatchObject({ status: 'paused', pausedReason: reason });
  const [paused] = await listDeliveries(teamId, m.monitorId);
  expect(JSON.parse(paused!.body)).toMatchObject({ type: 'monitor.paused', data: { reason } });
});

test('a live key or a current member: the poll goes ahead', async () => {
  const { teamId, keyId } = await teamWithKey('owner-live', 10);
  const m = monitorOf(teamId, { keyId });
  await putMonitor(m);
  const invoked: string[] = [];
  await pollMonitor({ teamId, monitorId: m.monitorId, dueAt: m.nextPollAt }, Date.now(), logger, async (id) => {
    invoked.push(id);
    return { statusCode: 200, body: JSON.stringify({ data: { posts: [] } }) };
  });
  expect(invoked).toEqual(['microblog-a-user-posts']);
});
