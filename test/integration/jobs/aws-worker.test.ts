import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SQSClient, SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { ensureTables } from '../../../dev/tables';
import { inputWorker, jobEngine } from '../../../shared/jobs/aws';
import { pump } from '../../../shared/jobs/engine';
import { type Job, createJob, getJob, newJobId } from '../../../shared/jobs/store';
import { operation } from '../../../shared/operations';

/**
 * The deployed job engine's handlers (shared/jobs/aws.ts) on DynamoDB Local, with the SQS and Lambda
 * clients' `send` spied (no AWS here), as the stack configures them (infra/jobs.ts): `JOB_QUEUES`
 * names each platform its own input queue, and every input goes to its operation's platform's queue,
 * the one whose event source bounds that platform (docs/jobs.md, "Bounds"); the input worker invokes
 * the operation's function by name and ends the job.
 */
const QUEUES = { 'microblog-a': 'https://sqs.test/jobs-microblog-a', shortvideo: 'https://sqs.test/jobs-shortvideo' };
process.env.JOB_QUEUES = JSON.stringify(QUEUES);
process.env.JOB_FUNCTIONS = JSON.stringify({ 'microblog-a-user-posts': 'fn-posts', 'shortvideo-user-live': 'fn-live' });

const sent: { queue: string; bodies: string[] }[] = [];
const invoked: string[] = [];

beforeAll(async () => {
  await ensureTables();
  jest.spyOn(SQSClient.prototype, 'send').mockImplementation((async (command: SendMessageBatchCommand) => {
    if (!(command instanceof SendMessageBatchCommand)) throw new Error("the job engine sends batches only");
    sent.push({ queue: command.input.QueueUrl!, bodies: command.input.Entries!.map((e) => e.MessageBody!) });
    return { Successful: command.input.Entries!.map((e) => ({ Id: e.Id })), Failed: [] };
  }) as never);
  jest.spyOn(LambdaClient.prototype, 'send').mockImplementation((async (command: InvokeCommand) => {
    invoked.push(command.input.FunctionName!);
    const data = command.input.FunctionName === 'fn-posts' ? { posts: [{ id: 'p1' }], cursor: null, hasMore: false } : { isLive: false, user: null, live: null, lastLive: null };
    return { Payload: Buffer.from(JSON.stringify({ statusCode: 200, headers: { 'x-credits-charged': '1' }, body: JSON.stringify({ data }) })) };
  }) as never);
});
afterAll(() => jest.restoreAllMocks());

const aJob = (teamId: string, op: string, total: number): Job => {
  const now = Date.now();
  return { teamId, jobId: newJobId(), operation: op, state: 'queued', total, pages: 1, cursor: 0, inFlight: 0, done: 0, failed: 0, skipped: 0, pagesDone: 0, items: 0, credits: 0, duplicates: 0, invalid: 0, parked: [], createdAt: now, updatedAt: now };
};

test("each input goes to its platform's own queue (JOB_QUEUES); the worker runs it through the operation's function and ends the job", async () => {
  expect(operation('microblog-a-user-posts').platform).toBe('microblog-a');
  expect(operation('shortvideo-user-live').platform).toBe('shortvideo');
  const posts = aJob('team-jobs-aws', 'microblog-a-user-posts', 2);
  const live = aJob('team-jobs-aws', 'shortvideo-user-live', 1);
  expect(await createJob(posts, [0, 1].map((i) => ({ line: i + 1, input: `someone${i}.example`, params: { handle: `someone${i}.example` } })))).toBe(true);
  expect(await createJob(live, [{ line: 1, input: 'someone', params: { username: 'someone' } }])).toBe(true);

  const engine = jobEngine();
  await pump(posts.teamId, posts.jobId, engine);
  await pump(live.teamId, live.jobId, engine);
  const byQueue = new Map<string, { jobId: string; index: number }[]>();
  for (const s of sent.splice(0)) byQueue.set(s.queue, [...(byQueue.get(s.queue) ?? []), ...s.bodies.map((b) => JSON.parse(b))]);
  expect([...byQueue.keys()].sort()).toEqual([QUEUES['microblog-a'], QUEUES.shortvideo].sort());
  expect(byQueue.get(QUEUES['microblog-a'])!.map((r) => [r.jobId, r.index])).toEqual([[posts.jobId, 0], [posts.jobId, 1]]);
  expect(byQueue.get(QUEUES.shortvideo)!.map((r) => [r.jobId, r.index])).toEqual([[live.jobId, 0]]);

  // Each queue's event source feeds the one worker: every input runs through its operation's function.
  for (const refs of byQueue.values()) {
    const event: SQSEvent = { Records: refs.map((r, i) => ({ messageId: `m${i}`, body: JSON.stringify(r), attributes: { ApproximateReceiveCount: '1' } }) as unknown as SQSEvent['Records'][number]) };
    expect(await inputWorker(event)).toEqual({ batchItemFailures: [] });
  }
  expect(invoked.sort()).toEqual(['fn-live', 'fn-posts', 'fn-posts']);
  expect(await getJob(posts.teamId, posts.jobId)).toMatchObject({ state: 'succeeded', done: 2, inFlight: 0, credits: 2 });
  expect(await getJob(live.teamId, live.jobId)).toMatchObject({ state: 'succeeded', done: 1, inFlight: 0, credits: 1 });
  // Nothing more was queued: both jobs are done.
  expect(sent).toEqual([]);
});
