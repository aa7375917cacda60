import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { itemBytes } from './bench-dynamo';

/**
 * Section 6 of `npm run bench`: what one poll of a monitor writes besides its request (section 2
 * prices the request's own writes). A microblog-a monitor that has seen 1,000 posts (70-character
 * `at://` ids, its state built by the same diff the polls run) is polled through `pollMonitor`, the
 * operation's answer given (no upstream): once quiet (the same page again), once with one new post;
 * then the delivery worker's attempt of that post's event, to a receiver on loopback.
 *
 * DynamoDB Local reports no consumed capacity, so each write is priced from the items themselves,
 * read before and after it (DynamoDB's item size rules: ./bench-dynamo.ts itemBytes): a PutItem
 * ⌈after / 1 KB⌉, an UpdateItem ⌈max(before, after) / 1 KB⌉; an item in the events table's `due` index
 * (projection ALL) the same again there, and both its old and new copies when its index key moves.
 */
const kb = (bytes: number) => (bytes ? Math.ceil(bytes / 1024) : 0);

export async function benchMonitorWrites(): Promise<void> {
  const { db, rawDb } = await import('../shared/db/client');
  const { config } = await import('../shared/runtime/config');
  const { putMonitor, putWatchState, getMonitor, listDeliveries, updateMonitor } = await import('../shared/monitors/store');
  const { attempt } = await import('../shared/monitors/deliver');
  const { newSecret, sealSecret } = await import('../shared/webhooks/secret');
  const { pollMonitor } = await import('../shared/monitors/poll');
  const { diff } = await import('../shared/monitors/events');
  const { logger } = await import('../shared/runtime/log');
  const read = async (key: { pk: string; sk: string }) => (await rawDb().send(new GetItemCommand({ TableName: config.eventsTable, Key: { pk: { S: key.pk }, sk: { S: key.sk } }, ConsistentRead: true }))).Item;

  const client = db();
  const send = client.send.bind(client);
  let tableUnits = 0;
  let indexUnits = 0;
  const written = new Map<string, number>();
  // Each write priced from the item before and after it; a transaction's items at twice the table's rate (DynamoDB's transactional writes).
  const spy = (async (command: { constructor: { name: string }; input: Record<string, any> }) => { // eslint-disable-line @typescript-eslint/no-explicit-any
    const name = command.constructor.name;
    type Write = { kind: string; input: Record<string, any>; factor: number }; // eslint-disable-line @typescript-eslint/no-explicit-any
    const writes: Write[] =
      name === 'TransactWriteCommand'
        ? (command.input.TransactItems as Record<string, Record<string, any>>[]).flatMap((t) => Object.entries(t).map(([kind, input]) => ({ kind, input, factor: 2 }))) // eslint-disable-line @typescript-eslint/no-explicit-any
        : name === 'PutCommand' || name === 'UpdateCommand'
          ? [{ kind: name === 'PutCommand' ? 'Put' : 'Update', input: command.input, factor: 1 }]
          : [];
    const priced = writes.filter((w) => (w.kind === 'Put' || w.kind === 'Update') && w.input.TableName === config.eventsTable).map((w) => ({ ...w, key: (w.input.Key ?? { pk: w.input.Item.pk, sk: w.input.Item.sk }) as { pk: string; sk: string } }));
    const before = await Promise.all(priced.map((w) => read(w.key)));
    const res = await send(command as never);
    for (const [i, w] of priced.entries()) {
      const after = await read(w.key);
      const [b, a] = [before[i] ? itemBytes(before[i]!) : 0, after ? itemBytes(after) : 0];
      tableUnits += w.factor * (w.kind === 'Put' ? kb(a) : Math.max(kb(b), kb(a)));
      const indexKey = (item: typeof after) => (item?.duePk && item?.dueSk ? `${item.duePk.S}|${item.dueSk.S}` : undefined);
      const [ib, ia] = [indexKey(before[i]), indexKey(after)];
      if (ib && ia && ib !== ia) indexUnits += kb(b) + kb(a);
      else if (ib || ia) indexUnits += Math.max(kb(b), kb(a));
      written.set(w.key.sk.replace(/#.*/, ''), a);
    }
    return res;
  }) as typeof client.send;
  client.send = spy;
  try {
    const uri = (i: number) => `at://did:plc:abcdefghijklmnopqrstuvwx/app.bsky.feed.post/3l${String(i).padStart(11, '0')}`;
    const page = (from: number) => ({ posts: Array.from({ length: 20 }, (_, i) => ({ id: uri(from + i), text: `post ${from + i}` })) });
    let state = diff('microblog-a-user-posts', { baseline: false }, page(0), {}).state;
    for (let p = 1; p < 50; p++) state = diff('microblog-a-user-posts', state, page(p * 20), {}).state;
    const now = Date.now();
    const teamId = `bench-monitor-${now}`;
    const monitorId = 'mon_bench';
    await putMonitor({ teamId, monitorId, operation: 'microblog-a-user-posts', params: { handle: 'someone.example' }, intervalSeconds: 300, webhookUrl: 'https://example.com/hooks/social', status: 'active', secret: await sealSecret(newSecret()), createdAt: new Date(now).toISOString(), updatedAt: new Date(now).toISOString(), nextPollAt: now });
    await putWatchState(teamId, monitorId, state);
    const poll = async (at: number, from: number) => {
      tableUnits = 0;
      indexUnits = 0;
      const { nextPollAt } = (await getMonitor(teamId, monitorId))!;
      const out = await pollMonitor({ teamId, monitorId, dueAt: nextPollAt }, at, logger, async () => ({ statusCode: 200, headers: {}, body: JSON.stringify({ data: page(from) }) }));
      return { events: out?.events.join(', ') || 'none', table: tableUnits, index: indexUnits };
    };
    const rows = [
      { what: 'quiet poll (the newest page again)', ...(await poll(now + 1, 980)) },
      { what: 'poll with one new post', ...(await poll(now + 400_000, 981)) },
    ];
    // The delivery worker's attempt of that event, to a receiver on loopback answering 204.
    const receiver = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const allowed = process.env.WEBHOOK_ALLOW_LOOPBACK;
    process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
    try {
      await updateMonitor(teamId, monitorId, { webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` });
      const [pending] = await listDeliveries(teamId, monitorId);
      tableUnits = 0;
      indexUnits = 0;
      const tried = await attempt(teamId, monitorId, pending!.eventId, pending!.nextAttemptAt!, logger);
      rows.push({ what: `delivery attempt (${tried?.lastStatus}, event ${pending!.body.length} B)`, events: tried?.state ?? '?', table: tableUnits, index: indexUnits });
    } finally {
      if (allowed === undefined) delete process.env.WEBHOOK_ALLOW_LOOPBACK;
      else process.env.WEBHOOK_ALLOW_LOOPBACK = allowed;
      await new Promise((r) => receiver.close(r));
    }
    console.log('\n== 6. A monitor\'s own writes per poll (besides its request: section 2) ==');
    console.log(`  a microblog-a monitor that has seen 1,000 posts; monitor item ${written.get('MON') ?? 0} B, seen-state item ${written.get('MONSTATE') ?? 0} B (after the polls)`);
    console.log(`  ${'step'.padEnd(44)} | ${'outcome'.padEnd(9)} | table WU | due index WU | total WU`);
    for (const r of rows) console.log(`  ${r.what.padEnd(44)} | ${r.events.padEnd(9)} | ${String(r.table).padStart(8)} | ${String(r.index).padStart(12)} | ${String(r.table + r.index).padStart(8)}`);
  } finally {
    client.send = send as typeof client.send;
  }
}
