import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { startMonitorScheduler } from '../../../dev/monitors';
import { startLocalStack, type LocalStack } from '../../../dev/stack';
import { teamWithKey } from '../../../dev/teams';
import { fixture, fixtureText } from '../../../dev/upstream/fake';
import { RECORDED, SHORTVIDEO } from '../../../dev/upstream/replay';
import { routedOperations } from '../../../shared/operations';
import { snake } from '../../../scripts/python-sdk';

/**
 * What the Python SDK's tests (python/tests) run against: the local stack (dev/stack.ts) on DynamoDB
 * Local with the replay upstream, a team with credits and one without, and what the tests cannot
 * make in Python without restating the project's facts, handed over in the environment:
 *   SOCIAL_DATA_API_URL / SOCIAL_DATA_API_KEY   the local gateway and the team's key;
 *   SOCIAL_DATA_TEST_POOR_KEY                   a key of a team with 0 credits (402);
 *   SOCIAL_DATA_TEST_CALLS                      per operation id, the keyword arguments of a recorded input;
 *   SOCIAL_DATA_TEST_WEBHOOKS                   webhooks signed by the `standardwebhooks` package, each
 *                                               with whether it must verify.
 * test/gateway/python/sdk.test.ts starts it in jest's process; `python3 -m unittest` run from python/ without
 * SOCIAL_DATA_API_URL starts it as `tsx test/gateway/python/stack.ts`, which prints the environment as one
 * JSON line and runs until its standard input closes.
 *
 * The video's comments are served as a source that re-ranks between requests (the first comment of
 * page 1 comes back on page 2, as in test/cli/pages.test.ts), so `.items()` meets overlapping pages.
 */
export interface SdkStack {
  env: Record<string, string>;
  stack: LocalStack;
  stop(): Promise<void>;
}

/** Webhooks signed by the Standard Webhooks reference, for the Python verifier. */
export function signedWebhooks(): { secret: string; cases: { name: string; body: string; headers: Record<string, string>; valid: boolean }[] } {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const other = `whsec_${randomBytes(24).toString('base64')}`;
  const body = JSON.stringify({ type: 'items.new', data: { monitorId: 'mon_1', items: [{ id: '1', text: 'héllo' }] } });
  const signed = (key: string, id: string, at: Date, payload = body) => new Webhook(key).sign(id, at, payload);
  const now = new Date();
  const headers = (id: string, at: Date, signature: string) => ({ 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature });
  const old = new Date(now.getTime() - 10 * 60_000);
  return {
    secret,
    cases: [
      { name: 'signed now', body, headers: headers('msg_ok', now, signed(secret, 'msg_ok', now)), valid: true },
      // During a rotation the header holds the old secret's signature and the new one's.
      { name: 'two signatures, one of this secret', body, headers: headers('msg_two', now, `${signed(other, 'msg_two', now)} ${signed(secret, 'msg_two', now)}`), valid: true },
      { name: 'signed with another secret', body, headers: headers('msg_wrong', now, signed(other, 'msg_wrong', now)), valid: false },
      { name: 'a body changed after signing', body: body.replace('héllo', 'hello'), headers: headers('msg_changed', now, signed(secret, 'msg_changed', now)), valid: false },
      { name: 'signed 10 minutes ago', body, headers: headers('msg_old', old, signed(secret, 'msg_old', old)), valid: false },
    ],
  };
}

export async function startSdkStack(): Promise<SdkStack> {
  // The documented 503 of a deployment without a citygame source (dev/demo.ts does the same).
  delete process.env.CITYGAME_SOURCE_URL;
  delete process.env.CITYGAME_FIELDS;
  // Monitors may deliver to http://127.0.0.1 (as in `npm start`); put back as it was when stopped (a jest worker runs other files after this one).
  const loopback = process.env.WEBHOOK_ALLOW_LOOPBACK;
  process.env.WEBHOOK_ALLOW_LOOPBACK = '1';
  const restore = () => {
    if (loopback === undefined) delete process.env.WEBHOOK_ALLOW_LOOPBACK;
    else process.env.WEBHOOK_ALLOW_LOOPBACK = loopback;
  };
  let stack: LocalStack;
  try {
    stack = await startLocalStack({ upstream: 'replay', team: { name: 'python-sdk', credits: 1000 } });
  } catch (err) {
    restore();
    throw err;
  }
  // The local scheduler, as under npm start: a test event is queued (202) and sent by it.
  const scheduler = startMonitorScheduler(250);
  const stop = async () => {
    scheduler.stop();
    await stack.stop();
    restore();
  };
  try {
    const page1 = fixture('shortvideo/comments-page1.json') as { comments: unknown[] };
    const last = fixture('shortvideo/comments-last.json') as { comments: unknown[] };
    const reranked = JSON.stringify({ ...last, comments: [page1.comments[0], ...last.comments] });
    const headers = { 'content-type': 'application/json; charset=utf-8', 'set-cookie': 'tt_chain_token=replay; Path=/' };
    stack.upstream!.on(SHORTVIDEO.comments, (req) => ({ headers, body: req.query.cursor === '40' ? reranked : fixtureText('shortvideo/comments-page1.json') }));
    const poor = await teamWithKey('python-sdk-poor', 0);
    const calls = Object.fromEntries(
      routedOperations().map((op) => [op.id, Object.fromEntries(Object.entries(RECORDED[op.id as keyof typeof RECORDED] ?? {}).map(([name, value]) => [snake(name), value]))]),
    );
    const env = {
      SOCIAL_DATA_API_URL: stack.gateway.url,
      SOCIAL_DATA_API_KEY: stack.team!.key,
      SOCIAL_DATA_TEST_POOR_KEY: poor.key,
      SOCIAL_DATA_TEST_CALLS: JSON.stringify(calls),
      SOCIAL_DATA_TEST_WEBHOOKS: JSON.stringify(signedWebhooks()),
    };
    return { env, stack, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

if (require.main === module) {
  // The environment the handlers read, as jest's set-up gives it (quiet logs, no metrics).
  process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  process.env.AWS_REGION ??= 'us-east-1';
  startSdkStack().then(
    (s) => {
      process.stdout.write(`SOCIAL_DATA_TEST_ENV ${JSON.stringify(s.env)}\n`);
      const stop = () => void s.stop().finally(() => process.exit(0));
      process.stdin.on('end', stop).on('close', stop).resume();
      process.on('SIGTERM', stop);
    },
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
