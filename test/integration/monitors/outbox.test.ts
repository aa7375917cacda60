import { aMonitor } from '../../support/monitors';
import { ensureTables } from '../../../dev/tables';
import { attempt, newDelivery, outboxItems } from '../../../shared/monitors/deliver';
import { eventIdFor } from '../../../shared/monitors/events';
import { type Monitor, deleteMonitor, dueDeliveries, listDeliveries, monitorUpdateItem, putMonitor, writeTogether, createMonitor } from '../../../shared/monitors/store';
import { logger } from '../../../shared/runtime/log';

/**
 * The outbox past a transaction's limits: 150 events of one step are written with the state change
 * in one transaction, those beyond its room packed into overflow items the delivery side expands
 * (each delivery once, under its derived id, however often it is expanded); and a deleted monitor's
 * pending delivery fails.
 */
beforeAll(() => ensureTables());

const monitor = (teamId: string): Monitor => aMonitor(teamId);

test('150 events of one step: one transaction with overflow items, expanded into 150 deliveries, each once', async () => {
  const m = monitor(`outbox-${Date.now()}`);
  await putMonitor(m);
  const at = Date.now();
  const events = Array.from({ length: 150 }, (_, i) => ({ type: 'items.new' as const, data: { monitorId: m.monitorId, items: [{ id: `post-${i}`, text: 'x'.repeat(2000) }] } }));
  const deliveries = events.map((e, i) => newDelivery(m, e, eventIdFor(m.monitorId, e.type, at, `post-${i}`), at));
  const items = outboxItems(deliveries, [monitorUpdateItem(m.teamId, m.monitorId, { lastPollAt: at })], at);
  expect(items.length).toBeLessThanOrEqual(100);
  await writeTogether(items);
  const direct = (await listDeliveries(m.teamId, m.monitorId, 1000)).length;
  expect(direct).toBeLessThan(150);
  const overflows = (await dueDeliveries(Date.now(), 20_000)).filter((d) => d.monitorId === m.monitorId && d.eventId.startsWith('ovf_'));
  expect(overflows.length).toBeGreaterThan(0);
  // Expanded twice at once (a duplicate message): each delivery written once.
  await Promise.all(overflows.flatMap((o) => [attempt(o.teamId, o.monitorId, o.eventId, Date.now(), logger), attempt(o.teamId, o.monitorId, o.eventId, Date.now(), logger)]));
  const all = await listDeliveries(m.teamId, m.monitorId, 1000);
  expect(all.map((d) => d.eventId).sort()).toEqual(deliveries.map((d) => d.eventId).sort());
  expect((await dueDeliveries(Date.now(), 20_000)).filter((d) => d.eventId.startsWith('ovf_') && d.monitorId === m.monitorId)).toEqual([]);
});

test('a deleted monitor fails its pending deliveries', async () => {
  const m = monitor(`outbox-del-${Date.now()}`);
  expect(await createMonitor(m, 100)).toBe(true);
  const d = newDelivery(m, { type: 'monitor.test', data: {} }, eventIdFor(m.monitorId, 'monitor.test', Date.now(), 'x'), Date.now());
  await writeTogether(outboxItems([d], [], Date.now()));
  expect(await deleteMonitor(m.teamId, m.monitorId)).toBe(true);
  expect(await attempt(m.teamId, m.monitorId, d.eventId, Date.now(), logger)).toMatchObject({ state: 'failed', lastError: 'monitor deleted' });
});
