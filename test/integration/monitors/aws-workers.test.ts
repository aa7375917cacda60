import { aMonitor } from '../../support/monitors';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SQSClient, SendMessageBatchCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { ensureTables } from '../../../dev/tables';
import { deliveryWorker, pollWorker, tickHandler } from '../../../shared/monitors/aws';
import { type Monitor, getMonitor, listDeliveries, putMonitor } from '../../../shared/monitors/store';
import { operation } from '../../../shared/operations';

/**
 * The deployed engine's handlers (shared/monitors/aws.ts) on DynamoDB Local, with the SQS and Lambda
 * clients' `send` spied (no AWS here): the tick sends each due monitor to its own platform's poll
 * queue; the poll worker invokes the operation's function by name and queues the events' deliveries,
 * a failing record reported alone; the delivery worker puts a failed attempt back on its queue,
 * delayed.
 */
process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
const QUEUES = { 'microblog-a': 'https://sqs.test/poll-microblog-a', shortvideo: 'https://sqs.test/poll-shortvideo' };
process.env.MONITOR_POLL_QUEUES = JSON.stringify(QUEUES);
process.env.MONITOR_DELIVERY_QUEUE_URL = 'https://sqs.test/deliveries';
process.env.MONITOR_FUNCTIONS = JSON.stringify({ 'microblog-a-user-posts': 'fn-posts', 'shortvideo-user-live': 'fn-live' });

type Sent = { queue: string; bodies: Record<string, unknown>[]; delay?: number };
const sent: Sent[] = [];
const invoked: string[] = [];
let statuses: number[] = [];
const receiver = http.createServer((req, res) => req.resume().on('end', () => res.writeHead(statuses.shift() ?? 204).end()));
let hook = '';

beforeAll(async () => {
  await ensureTables();
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  jest.spyOn(SQSClient.prototype, 'send').mockImplementation((async (command: SendMessageBatchCommand | SendMessageCommand) => {
    if (command instanceof SendMessageBatchCommand) {
      sent.push({ queue: command.input.QueueUrl!, bodies: command.input.Entries!.map((e) => JSON.parse(e.MessageBody!)) });
      return { Successful: command.input.Entries!.map((e) => ({ Id: e.Id })), Failed: [] };
    }
    sent.push({ queue: command.input.QueueUrl!, bodies: [JSON.parse(command.input.MessageBody!)], delay: command.input.DelaySeconds });
    return {};
  }) as never);
  jest.spyOn(LambdaClient.prototype, 'send').mockImplementation((async (command: InvokeCommand) => {
    invoked.push(command.input.FunctionName!);
    const data = command.input.FunctionName === 'fn-posts' ? { posts: [{ id: 'p1' }] } : { isLive: false, user: null, live: null, lastLive: null };
    return { Payload: Buffer.from(JSON.stringify({ statusCode: 200, headers: {}, body: JSON.stringify({ data }) })) };
  }) as never);
});
afterAll(async () => {
  jest.restoreAllMocks();
  await new Promise((r) => receiver.close(r));
});

const monitor = (monitorId: string, op: Monitor['operation'], params: Record<string, string>, at: number): Monitor =>
  aMonitor('team-aws', { monitorId, operation: op, params, intervalSeconds: 300, webhookUrl: hook }, at);
const sqsEvent = (bodies: string[]): SQSEvent => ({ Records: bodies.map((body, i) => ({ messageId: `m${i}`, body }) as SQSEvent['Records'][number]) });

test('tick -> per-platform poll queues -> poll worker -> delivery queue -> delivery worker, with its retry delayed', async () => {
  const at = Date.now() - 1000;
  await putMonitor(monitor('mon_posts', 'microblog-a-user-posts', { handle: 'someone.example' }, at));
  await putMonitor(monitor('mon_live', 'shortvideo-user-live', { username: 'someone' }, at));

  expect(await tickHandler()).toMatchObject({ polls: 2 });
  const polls = sent.splice(0);
  expect(polls.map((s) => s.queue).sort()).toEqual([QUEUES['microblog-a'], QUEUES.shortvideo].sort());
  expect(polls.find((s) => s.queue === QUEUES[operation('microblog-a-user-posts').platform as 'microblog-a'])!.bodies).toEqual([{ teamId: 'team-aws', monitorId: 'mon_posts', dueAt: at }]);

  // Both messages, one twice (a duplicate delivery of the queue: polls once), and a record that is not JSON.
  const bodies = polls.flatMap((s) => s.bodies.map((b) => JSON.stringify(b)));
  const result = await pollWorker(sqsEvent([...bodies, bodies[0]!, 'not json']));
  expect(result.batchItemFailures).toEqual([{ itemIdentifier: 'm3' }]);
  expect(invoked.sort()).toEqual(['fn-live', 'fn-posts']);
  expect((await getMonitor('team-aws', 'mon_posts'))!.lastPollStatus).toBe(200);
  const deliveries = sent.splice(0);
  expect(deliveries.every((s) => s.queue === process.env.MONITOR_DELIVERY_QUEUE_URL)).toBe(true);
  const refs = deliveries.flatMap((s) => s.bodies) as { teamId: string; monitorId: string; eventId: string }[];
  expect(refs.map((r) => r.monitorId).sort()).toEqual(['mon_live', 'mon_posts']); // monitor.ready each, once

  // The receiver answers 500 once: the attempt goes back on the queue, 10 s later; then it is delivered.
  statuses = [500];
  const posts = refs.find((r) => r.monitorId === 'mon_posts')!;
  expect((await deliveryWorker(sqsEvent([JSON.stringify(posts)]))).batchItemFailures).toEqual([]);
  expect(sent.splice(0)).toEqual([{ queue: process.env.MONITOR_DELIVERY_QUEUE_URL, bodies: [posts], delay: 10 }]);
  // The same message again at once (a duplicate, or early): the retry is not due, nothing is sent.
  await deliveryWorker(sqsEvent([JSON.stringify(posts)]));
  expect((await listDeliveries('team-aws', 'mon_posts'))[0]).toMatchObject({ eventId: posts.eventId, state: 'pending', attempts: 1 });
  // The delayed message, 10 s later.
  const later = Date.now() + 11_000;
  jest.spyOn(Date, 'now').mockReturnValue(later);
  await deliveryWorker(sqsEvent([JSON.stringify(posts)]));
  (Date.now as jest.Mock).mockRestore();
  expect((await listDeliveries('team-aws', 'mon_posts'))[0]).toMatchObject({ eventId: posts.eventId, state: 'delivered', attempts: 2, lastStatus: 204 });
});
