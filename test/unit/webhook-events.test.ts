import * as v from 'valibot';
import { ALL_EVENT_TYPES, CATALOGUE, TEAM_EVENT_TYPES } from '../../shared/webhooks/catalogue';
import { alertOf, fallEvents } from '../../shared/webhooks/credits';
import { teamEventId, teamEventWrites } from '../../shared/webhooks/events';
import { statusChanges } from '../../shared/webhooks/status-watch';

/** The pure parts of the team events: the catalogue, derived ids, the credits crossing rule, the status change rule. */
describe('the event catalogue', () => {
  test('names every account and service event, and the three bulk-job events for the jobs helper', () => {
    expect(TEAM_EVENT_TYPES).toEqual(['credits.low', 'credits.exhausted', 'key.created', 'key.revoked', 'member.removed', 'operation.degraded', 'operation.recovered', 'job.succeeded', 'job.failed', 'job.paused']);
    expect(ALL_EVENT_TYPES).toContain('webhook.test');
    for (const t of ['job.succeeded', 'job.failed', 'job.paused']) {
      const e = CATALOGUE.find((x) => x.type === t)!;
      expect(e.providedBy).toBe('jobs');
      expect(v.safeParse(e.data, { jobId: 'job_1', state: 'succeeded', counts: { succeeded: 3, failed: 0 } }).success).toBe(true);
    }
  });

  test('a producer’s data is checked against the catalogue: a wrong body fails its own transaction', () => {
    expect(() => teamEventWrites('t1', 'key.revoked', 'k1', { teamId: 't1', keyId: 'k1' } as never)).toThrow();
    expect(() => teamEventWrites('t1', 'operation.degraded', 'x', { operation: 'o', status: 'down', previous: 'operational', reason: 'r' })).toThrow(/broadcast/);
  });
});

describe('derived event ids', () => {
  test('the same team, type and key give the same id (a retried producer re-creates it); anything else another', () => {
    const id = teamEventId('t1', 'key.revoked', 'k1');
    expect(id).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(teamEventId('t1', 'key.revoked', 'k1')).toBe(id);
    expect(teamEventId('t2', 'key.revoked', 'k1')).not.toBe(id);
    expect(teamEventId('t1', 'key.created', 'k1')).not.toBe(id);
    const [a] = teamEventWrites('t1', 'key.revoked', 'k1', { teamId: 't1', keyId: 'k1', name: 'n', revokedAt: 'x' }, 1);
    const [b] = teamEventWrites('t1', 'key.revoked', 'k1', { teamId: 't1', keyId: 'k1', name: 'n', revokedAt: 'x' }, 2);
    expect(a!.Put!.Item!.eventId).toBe(b!.Put!.Item!.eventId);
    expect(a!.Put!.ConditionExpression).toBe('attribute_not_exists(pk)');
  });
});

describe('credits: a charge crossed when the level after it is worse than one credit earlier', () => {
  const crossed = (after: number, threshold?: number) => fallEvents(alertOf(after + 1, threshold), alertOf(after, threshold), threshold);
  test('below the threshold once, at the charge that passes it', () => {
    expect(crossed(10, 10)).toEqual([]);
    expect(crossed(9, 10)).toEqual(['credits.low']);
    expect(crossed(8, 10)).toEqual([]);
  });
  test('zero: exhausted (with or without a threshold); straight from above a threshold of 1 to zero: both', () => {
    expect(crossed(0)).toEqual(['credits.exhausted']);
    expect(crossed(0, 5)).toEqual(['credits.exhausted']);
    expect(crossed(0, 1)).toEqual(['credits.low', 'credits.exhausted']);
  });
  test('going up announces nothing', () => {
    expect(fallEvents('exhausted', 'low', 5)).toEqual([]);
    expect(fallEvents('low', undefined, 5)).toEqual([]);
  });
});

describe('operation status: what is announced', () => {
  const doc = (state: string) => ({ operations: [{ operation: 'op', state, reason: 'r' }] });
  test('operational -> degraded or down, degraded -> down: degraded; back to operational: recovered', () => {
    expect(statusChanges(doc('degraded'), { op: 'operational' }).changes).toEqual([expect.objectContaining({ type: 'operation.degraded', status: 'degraded', previous: 'operational' })]);
    expect(statusChanges(doc('down'), { op: 'degraded' }).changes).toEqual([expect.objectContaining({ type: 'operation.degraded', status: 'down' })]);
    expect(statusChanges(doc('operational'), { op: 'down' }).changes).toEqual([expect.objectContaining({ type: 'operation.recovered', previous: 'down' })]);
    expect(statusChanges(doc('degraded'), { op: 'down' }).changes).toEqual([]);
  });
  test('the first sight sets a baseline; unknown and not configured change nothing', () => {
    expect(statusChanges(doc('degraded'), {})).toEqual({ changes: [], next: { op: 'degraded' } });
    expect(statusChanges(doc('unknown'), { op: 'degraded' })).toEqual({ changes: [], next: { op: 'degraded' } });
    expect(statusChanges(doc('not configured'), { op: 'operational' }).changes).toEqual([]);
  });
});
