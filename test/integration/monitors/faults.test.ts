import { aMonitor } from '../../support/monitors';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTables } from '../../../dev/tables';
import { teamWithKey } from '../../../dev/teams';
import { invokeInProcess } from '../../../dev/monitors';
import { FakeUpstream, fixture } from '../../../dev/upstream/fake';
import { ledger } from '../../../shared/accounting/ledger';
import { balance } from '../../../shared/accounting/teams';
import { db } from '../../../shared/db/client';
import { HOLD_PREFIX, TEAM_SK, teamPk } from '../../../shared/db/tables';
import { attempt } from '../../../shared/monitors/deliver';
import { pollMonitor } from '../../../shared/monitors/poll';
import { runDue } from '../../../shared/monitors/scheduler';
import { type Monitor, createMonitor, deleteMonitor, getWatchState, listDeliveries } from '../../../shared/monitors/store';
import { config } from '../../../shared/runtime/config';
import { logger } from '../../../shared/runtime/log';
import { dbSends, type Sent } from '../../support/db-sends';

/**
 * The delivery engine under faults, on DynamoDB Local, with the operation's own pipeline in process
 * against a fake upstream and a receiver on 127.0.0.1 (WEBHOOK_ALLOW_LOOPBACK, as every monitors test):
 * a monitor's first poll (monitor.ready), then a poll that finds two new posts (items.new), the
 * receiver answering 500 to its first request. The script is run once clean, counting its writes;
 * then once per write, that write failing after it landed (an error thrown before the next), and
 * once per write, that write refused before it is sent (e.g. an attempt's outcome lost after its POST). In
 * every case every event reaches the receiver, a repeat only ever carries the same webhook-id (and
 * the same body), and no credit is charged twice. Plus: a poll message delivered twice at once, and
 * two attempts of one delivery at once.
 */
process.env.WEBHOOK_ALLOW_LOOPBACK = '1';

const PROFILE = '/xrpc/app.bsky.actor.getProfile';
const FEED = '/xrpc/app.bsky.feed.getAuthorFeed';
const HANDLE = 'marlowe-tern.bsky.social';
type Feed = { feed: { post: { uri: string; cid: string } }[] };
const baseFeed = () => JSON.parse(JSON.stringify(fixture('microblog-a/feed-page1.json'))) as Feed;
const NEW_POSTS = ['3lfaultnew001', '3lfaultnew002'];
function withNewPosts(): Feed {
  const f = baseFeed();
  const added = NEW_POSTS.map((id, i) => {
    const p = JSON.parse(JSON.stringify(f.feed[i])) as Feed['feed'][number];
    p.post.uri = p.post.uri.replace(/[^/]+$/, id);
    p.post.cid = `${p.post.cid}${id}`;
    return p;
  });
  f.feed = [...added, ...f.feed];
  return f;
}

const fake = new FakeUpstream();
let feed = baseFeed();
interface Received {
  id: string;
  body: string;
}
let received: Received[] = [];
let failNext = 0;
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    received.push({ id: String(req.headers['webhook-id']), body: Buffer.concat(chunks).toString('utf8') });
    if (failNext > 0) {
      failNext -= 1;
      res.writeHead(500).end();
    } else res.writeHead(200).end();
  });
});
let hook = '';
let clock = Date.now();

beforeAll(async () => {
  await ensureTables();
  await fake.start();
  process.env.UPSTREAM_MICROBLOG_A_URL = fake.url;
  fake.on(PROFILE, { body: fixture('microblog-a/profile.json') });
  fake.on(FEED, () => ({ body: feed }));
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await fake.stop();
  await new Promise((r) => receiver.close(r));
});

const CREDITS = 1000;
async function newMonitor(): Promise<Monitor> {
  const { teamId, keyId } = await teamWithKey(`faults-${Math.random().toString(36).slice(2, 8)}`, CREDITS);
  const now = clock;
  const m = aMonitor(teamId, { keyId, params: { handle: HANDLE }, intervalSeconds: 1, webhookUrl: hook }, now);
  expect(await createMonitor(m, 100)).toBe(true);
  return m;
}

const WRITES = new Set(['PutCommand', 'UpdateCommand', 'DeleteCommand', 'TransactWriteCommand', 'BatchWriteCommand']);
type Event = { type: string; data: { items?: { id: string }[] } };

/** What the receiver got, checked: each event once by id (repeats identical), monitor.ready once, each new post in exactly one items.new. */
function deliveredEvents(): { events: number; deliveries: number; repeats: number; complete: boolean } {
  const byId = new Map<string, string>();
  for (const r of received) {
    const before = byId.get(r.id);
    if (before !== undefined) expect(r.body).toBe(before); // a repeat carries the same webhook-id and body
    byId.set(r.id, r.body);
  }
  const events = [...byId.values()].map((b) => JSON.parse(b) as Event);
  expect(events.filter((e) => e.type === 'monitor.ready').length).toBeLessThanOrEqual(1);
  const announced = events.filter((e) => e.type === 'items.new').flatMap((e) => e.data.items!.map((i) => i.id));
  expect(new Set(announced).size).toBe(announced.length); // no post announced by two events
  const complete = events.some((e) => e.type === 'monitor.ready') && NEW_POSTS.every((p) => announced.includes(p));
  return { events: byId.size, deliveries: received.length, repeats: received.length - byId.size, complete };
}

/** No request charged twice: each ledger record's request once, and every credit taken is in the ledger or a reservation still marked. */
async function checkCredits(teamId: string): Promise<number> {
  const charges = await ledger(teamId);
  const ids = charges.map((c) => c.requestId);
  expect(new Set(ids).size).toBe(ids.length);
  const team = (await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: teamPk(teamId), sk: TEAM_SK }, ConsistentRead: true }))).Item!;
  const held = Object.keys(team).filter((k) => k.startsWith(HOLD_PREFIX)).map((k) => k.slice(HOLD_PREFIX.length)).filter((id) => !ids.includes(id));
  expect(CREDITS - (await balance(teamId))).toBe(charges.length + held.length);
  return charges.length;
}

/**
 * The script: polls and attempts, the clock 20 s on each round (a lease left by a failed step expires
 * within a few rounds; the 10 s retry comes due), until the receiver has every event and nothing is
 * pending. The new posts appear once the first poll's baseline is set.
 */
async function drive(m: Monitor): Promise<void> {
  for (let round = 0; round < 40; round++) {
    await runDue((clock += 20_000), logger, invokeInProcess);
    if ((await getWatchState(m.teamId, m.monitorId)).baseline) feed = withNewPosts();
    const pending = (await listDeliveries(m.teamId, m.monitorId)).filter((d) => d.state === 'pending');
    if (deliveredEvents().complete && !pending.length) return;
  }
}

/** A fault at write `n`: `after` it landed (its answer lost), or `before` it is sent (refused). */
type Fault = { n: number; when: 'after' | 'before' } | null;

async function runCase(fault: Fault): Promise<{ writes: number; teamId: string; m: Monitor }> {
  received = [];
  failNext = 1;
  feed = baseFeed();
  const m = await newMonitor();
  let writes = 0;
  const inject = async (call: Sent, answer: () => Promise<unknown>) => {
    if (!WRITES.has(call.name)) return answer();
    writes += 1;
    const failing = writes === fault?.n;
    if (failing && fault.when === 'before') throw Object.assign(new Error(`injected fault before write ${writes} (${call.name})`), { name: 'InjectedFault' });
    const out = await answer();
    if (failing) throw Object.assign(new Error(`injected fault after write ${writes} (${call.name})`), { name: 'InjectedFault' });
    return out;
  };
  await dbSends(() => drive(m), inject as never);
  return { writes, teamId: m.teamId, m };
}

async function cleanUp(m: Monitor): Promise<void> {
  await deleteMonitor(m.teamId, m.monitorId);
  // Whatever the deleted monitor left pending fails now, outside the next case.
  for (const d of await listDeliveries(m.teamId, m.monitorId)) if (d.state === 'pending') await attempt(d.teamId, d.monitorId, d.eventId, (clock += 100_000), logger);
}

test('each write of a poll-and-deliver script failing in turn: every event arrives, repeats only with the same webhook-id, no credit charged twice', async () => {
  const clean = await runCase(null);
  expect(deliveredEvents()).toMatchObject({ complete: true, events: 2 });
  await checkCredits(clean.teamId);
  await cleanUp(clean.m);
  const totals = { cases: 0, events: 0, deliveries: 0, repeats: 0, credits: 0 };
  const writes = clean.writes;
  expect(writes).toBeGreaterThan(15);
  for (const when of ['after', 'before'] as const) {
    for (let n = 1; n <= writes; n++) {
      const run = await runCase({ n, when });
      const got = deliveredEvents();
      if (!got.complete) throw new Error(`fault ${when} write ${n}: the receiver did not get every event (${JSON.stringify(received.map((r) => JSON.parse(r.body).type))})`);
      totals.cases += 1;
      totals.events += got.events;
      totals.deliveries += got.deliveries;
      totals.repeats += got.repeats;
      totals.credits += await checkCredits(run.teamId);
      await cleanUp(run.m);
    }
  }
  // eslint-disable-next-line no-console
  console.log(`fault suite: ${totals.cases} cases (a fault after, then before, each of the script's ${writes} writes), ${totals.events} events, ${totals.deliveries} deliveries, ${totals.repeats} repeats (same webhook-id), ${totals.credits} credits charged, none twice`);
  expect(totals.cases).toBe(2 * writes);
});

test('a poll message delivered twice at once polls once: one upstream request, one monitor.ready, one credit', async () => {
  received = [];
  failNext = 0;
  feed = baseFeed();
  const m = await newMonitor();
  fake.requests.length = 0;
  const now = (clock += 20_000);
  const outcomes = await Promise.all([pollMonitor({ teamId: m.teamId, monitorId: m.monitorId, dueAt: m.nextPollAt }, now, logger, invokeInProcess), pollMonitor({ teamId: m.teamId, monitorId: m.monitorId, dueAt: m.nextPollAt }, now, logger, invokeInProcess)]);
  expect(outcomes.filter((o) => o !== null)).toHaveLength(1);
  expect(fake.requestsTo(FEED)).toHaveLength(1);
  expect((await listDeliveries(m.teamId, m.monitorId)).map((d) => d.type)).toEqual(['monitor.ready']);
  expect(await checkCredits(m.teamId)).toBe(1);
  await deleteMonitor(m.teamId, m.monitorId);
});

test('two attempts of one delivery at once: one POST, one attempt recorded', async () => {
  received = [];
  failNext = 0;
  feed = baseFeed();
  const m = await newMonitor();
  const now = (clock += 20_000);
  await pollMonitor({ teamId: m.teamId, monitorId: m.monitorId, dueAt: m.nextPollAt }, now, logger, invokeInProcess);
  const [d] = await listDeliveries(m.teamId, m.monitorId);
  const both = await Promise.all([attempt(m.teamId, m.monitorId, d!.eventId, now, logger), attempt(m.teamId, m.monitorId, d!.eventId, now, logger)]);
  expect(both.filter((x) => x !== null)).toHaveLength(1);
  expect(received).toHaveLength(1);
  const [after] = await listDeliveries(m.teamId, m.monitorId);
  expect(after).toMatchObject({ state: 'delivered', attempts: 1 });
  expect(after!.log).toHaveLength(1);
  await deleteMonitor(m.teamId, m.monitorId);
});
