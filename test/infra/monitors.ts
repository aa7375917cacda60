import { DELIVERY_CONCURRENCY, POLL_CONCURRENCY, pascalCase } from '../../infra/monitors';
import { MONITOR_ROUTES } from '../../shared/api/monitor-routes';
import { WEBHOOK_ROUTES } from '../../shared/api/webhook-routes';
import { MONITORABLE_IDS, POLL_BATCH } from '../../shared/api/monitor-kinds';
import { operation } from '../../shared/operations';
import { groupOf } from '../../infra/edge';
import { nestedTemplate, nestedWiring, stackTemplate } from '../support/synth';

/**
 * Registered by test/infra/stack.test.ts (one module registry for the stack's template tests).
 * The monitors' part of the stack (infra/monitors.ts): the one-minute tick, a poll queue per platform
 * and the delivery queue with their dead-letter queues, the workers with bounded concurrency, least
 * privilege (cdk-nag runs on the whole stack: ./nag.ts).
 */
type Resource = { Type: string; Properties: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
const resources = stackTemplate().toJSON().Resources as Record<string, Resource>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const logicalId = (prefix: string) => Object.keys(resources).find((id) => id.startsWith(prefix) && resources[id]!.Type === 'AWS::Lambda::Function')!;
const policiesOf = (fnPrefix: string) => {
  const role = resources[logicalId(fnPrefix)]!.Properties.Role['Fn::GetAtt'][0] as string;
  return ofType('AWS::IAM::Policy').filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role)).flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[]);
};
const actions = (s: { Action: string | string[] }) => (Array.isArray(s.Action) ? s.Action : [s.Action]);

const PLATFORMS = [...new Set(MONITORABLE_IDS.map((id) => operation(id).platform))];
const queueArn = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
const monitorQueues = () => ofType('AWS::SQS::Queue').filter(([id]) => id.startsWith('Monitor'));
const queueId = (prefix: string) => monitorQueues().find(([id]) => id.startsWith(prefix))![0];

test('a poll queue per platform and the delivery queue, each redriven to a dead-letter queue after 5 receives; TLS only', () => {
  const ids = monitorQueues().map(([id]) => id.replace(/[0-9A-F]{8}$/, ''));
  expect(ids.sort()).toEqual(['MonitorDeliveryDlq', 'MonitorDeliveryQueue', 'MonitorPollDlq', ...PLATFORMS.map((p) => `MonitorPollQueue${pascalCase(p)}`)].sort());
  const redrive = (prefix: string) => resources[queueId(prefix)]!.Properties.RedrivePolicy;
  for (const p of PLATFORMS) expect(redrive(`MonitorPollQueue${pascalCase(p)}`)).toEqual({ deadLetterTargetArn: queueArn(queueId('MonitorPollDlq')), maxReceiveCount: 5 });
  expect(redrive('MonitorDeliveryQueue')).toEqual({ deadLetterTargetArn: queueArn(queueId('MonitorDeliveryDlq')), maxReceiveCount: 5 });
  const sslOnly = ofType('AWS::SQS::QueuePolicy').filter(([id, p]) => id.startsWith('Monitor') && JSON.stringify(p.Properties.PolicyDocument).includes('aws:SecureTransport'));
  expect(sslOnly.length).toBe(monitorQueues().length);
});

test('a one-minute tick; the poll worker fed by every platform\'s queue, each with its own bounded concurrency; visibility six times the worker\'s timeout', () => {
  const rules = ofType('AWS::Events::Rule').filter(([id]) => id.startsWith('MonitorsTick'));
  expect(rules).toHaveLength(1);
  expect(rules[0]![1].Properties.ScheduleExpression).toBe('rate(1 minute)');
  const fnRef = (prefix: string) => ({ Ref: logicalId(prefix) });
  const monitorFns = [fnRef('MonitorsPoll'), fnRef('MonitorsDeliver')].map((f) => JSON.stringify(f));
  const mappings = ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties).filter((m) => monitorFns.includes(JSON.stringify(m.FunctionName)));
  const polls = mappings.filter((m) => JSON.stringify(m.FunctionName) === JSON.stringify(fnRef('MonitorsPoll')));
  expect(polls.map((m) => JSON.stringify(m.EventSourceArn)).sort()).toEqual(PLATFORMS.map((p) => JSON.stringify(queueArn(queueId(`MonitorPollQueue${pascalCase(p)}`)))).sort());
  for (const m of polls) expect({ max: m.ScalingConfig?.MaximumConcurrency, batch: m.BatchSize, partial: m.FunctionResponseTypes }).toEqual({ max: POLL_CONCURRENCY, batch: POLL_BATCH, partial: ['ReportBatchItemFailures'] });
  const deliver = mappings.filter((m) => JSON.stringify(m.FunctionName) === JSON.stringify(fnRef('MonitorsDeliver')));
  expect(deliver.map((m) => m.ScalingConfig?.MaximumConcurrency)).toEqual([DELIVERY_CONCURRENCY]);
  expect(mappings).toHaveLength(PLATFORMS.length + 1);
  const timeout = (prefix: string) => resources[logicalId(prefix)]!.Properties.Timeout as number;
  for (const [id, q] of monitorQueues().filter(([qid]) => !qid.includes('Dlq'))) expect({ id, visibility: q.Properties.VisibilityTimeout }).toEqual({ id, visibility: 6 * timeout(id.startsWith('MonitorPoll') ? 'MonitorsPoll' : 'MonitorsDeliver') });
  // The tick knows every platform's queue.
  const tickEnv = resources[logicalId('MonitorsTick')]!.Properties.Environment.Variables;
  const named = JSON.stringify(tickEnv.MONITOR_POLL_QUEUES);
  for (const p of PLATFORMS) {
    expect(named).toContain(`\\"${p}\\":\\"`);
    expect(named).toContain(queueId(`MonitorPollQueue${pascalCase(p)}`));
  }
});

test('each worker may send only to the queues it feeds and receive only from its own: the tick sends polls and deliveries, the poll worker deliveries, the delivery worker its retries', () => {
  const sqsReach = (fnPrefix: string) => {
    const statements = policiesOf(fnPrefix).filter((s) => actions(s).some((a) => a.startsWith('sqs:')));
    const on = (pred: (a: string) => boolean) =>
      statements
        .filter((s) => actions(s).some(pred))
        .flatMap((s) => [s.Resource].flat().map((r) => JSON.stringify(r).match(/"(Monitor[A-Za-z]+?)[0-9A-F]{8}"/)?.[1]))
        .sort();
    return { send: on((a) => a === 'sqs:SendMessage'), receive: on((a) => a === 'sqs:ReceiveMessage') };
  };
  const pollQueues = PLATFORMS.map((p) => `MonitorPollQueue${pascalCase(p)}`).sort();
  expect(sqsReach('MonitorsApi')).toEqual({ send: [], receive: [] });
  expect(sqsReach('MonitorsTick')).toEqual({ send: ['MonitorDeliveryQueue', ...pollQueues].sort(), receive: [] });
  expect(sqsReach('MonitorsPoll')).toEqual({ send: ['MonitorDeliveryQueue'], receive: pollQueues });
  expect(sqsReach('MonitorsDeliver')).toEqual({ send: ['MonitorDeliveryQueue'], receive: ['MonitorDeliveryQueue'] });
});

test('the MCP function (its monitor tools) may invoke the monitors API function, that one alone, and still neither PutItem nor DeleteItem', () => {
  const mcp = policiesOf('Mcp') as { Effect?: string; Action: string | string[]; Resource: unknown }[];
  const invoke = mcp.filter((s) => actions(s).includes('lambda:InvokeFunction'));
  // And the jobs API's function, for the MCP job tools (test/infra/jobs.ts): the jobs' nested stack's, by its output.
  const nested = nestedTemplate('JobsEngine').toJSON().Resources as Record<string, Resource>;
  const jobsApi = Object.keys(nested).find((id) => id.startsWith('JobsApi') && nested[id]!.Type === 'AWS::Lambda::Function')!;
  expect(invoke.map((s) => s.Resource)).toEqual([[nestedWiring('JobsEngine').output({ 'Fn::GetAtt': [jobsApi, 'Arn'] }), { 'Fn::GetAtt': [logicalId('MonitorsApi'), 'Arn'] }]]);
  const accountsArn = JSON.stringify({ 'Fn::GetAtt': [Object.keys(resources).find((id) => id.startsWith('AccountsTable') && resources[id]!.Type === 'AWS::DynamoDB::Table'), 'Arn'] });
  expect(mcp.filter((s) => (s.Effect ?? 'Allow') === 'Allow' && JSON.stringify(s.Resource).includes(accountsArn) && actions(s).some((a) => a === 'dynamodb:PutItem' || a === 'dynamodb:DeleteItem'))).toEqual([]);
  expect(resources[logicalId('Mcp')]!.Properties.Environment.Variables.MONITORS_FUNCTION).toEqual({ Ref: logicalId('MonitorsApi') });
});

test('the stack never lets a webhook reach a loopback address: no function has WEBHOOK_ALLOW_LOOPBACK (or MONITOR_MIN_INTERVAL_SECONDS)', () => {
  for (const [id, fn] of ofType('AWS::Lambda::Function')) {
    const vars = Object.keys(fn.Properties.Environment?.Variables ?? {});
    expect({ id, vars: vars.filter((v) => v === 'WEBHOOK_ALLOW_LOOPBACK' || v === 'MONITOR_MIN_INTERVAL_SECONDS') }).toEqual({ id, vars: [] });
  }
});

test('least privilege: only the poll worker invokes functions, and only the monitorable operations\'; no Scan anywhere; table access in team partitions', () => {
  const invokers = ['MonitorsApi', 'MonitorsTick', 'MonitorsPoll', 'MonitorsDeliver'].filter((f) => policiesOf(f).some((s) => actions(s).includes('lambda:InvokeFunction')));
  expect(invokers).toEqual(['MonitorsPoll']);
  const invoked = policiesOf('MonitorsPoll').filter((s) => actions(s).includes('lambda:InvokeFunction')).flatMap((s) => s.Resource as unknown[]);
  expect(invoked.map((r) => JSON.stringify(r)).filter((r) => r.includes(':*'))).toEqual([]);
  expect(invoked).toHaveLength(MONITORABLE_IDS.length);
  for (const f of ['MonitorsApi', 'MonitorsTick', 'MonitorsPoll', 'MonitorsDeliver']) {
    for (const s of policiesOf(f).filter((st) => actions(st).some((a) => a.startsWith('dynamodb:')))) {
      expect(actions(s)).not.toContain('dynamodb:Scan');
      expect(JSON.stringify(s.Condition)).toContain('dynamodb:LeadingKeys');
    }
  }
  // DeleteItem: only the API (a monitor deleted by its team), in team partitions; batches only read.
  const deleters = ['MonitorsApi', 'MonitorsTick', 'MonitorsPoll', 'MonitorsDeliver'].filter((f) => policiesOf(f).some((s) => actions(s).includes('dynamodb:DeleteItem')));
  expect(deleters).toEqual(['MonitorsApi']);
  expect(JSON.stringify(policiesOf('MonitorsApi').filter((s) => actions(s).includes('dynamodb:DeleteItem')).map((s) => s.Condition))).toBe(JSON.stringify([{ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['TEAM#*'] } }]));
  for (const f of ['MonitorsApi', 'MonitorsTick', 'MonitorsPoll', 'MonitorsDeliver']) expect(policiesOf(f).flatMap(actions).filter((a) => /Batch/.test(a) && a !== 'dynamodb:BatchGetItem')).toEqual([]);
  // The poll worker holds neither the key pepper nor the monitors' secret key: it never signs nor checks a key.
  expect(Object.keys(resources[logicalId('MonitorsPoll')]!.Properties.Environment.Variables).filter((v) => v.endsWith('SECRET_ARN'))).toEqual([]);
  expect(Object.keys(resources[logicalId('MonitorsDeliver')]!.Properties.Environment.Variables).filter((v) => v.endsWith('SECRET_ARN'))).toEqual([]);
  // The tick reads the due partitions (and the CREDITWATCH listing); for the account events' minute
  // checks (docs/webhooks.md) it reads the watched teams' balances and the status counters, and writes
  // only events-table items: watch items, missing events, the status watch item.
  const tickDb = policiesOf('MonitorsTick').filter((s) => actions(s).some((a) => a.startsWith('dynamodb:')));
  expect(tickDb.flatMap(actions).sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:GetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:PutItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:UpdateItem']);
  // Nothing on accounts but BatchGetItem of team items (balances).
  expect(tickDb.filter((s) => JSON.stringify(s.Resource).includes('AccountsTable')).flatMap(actions)).toEqual(['dynamodb:BatchGetItem']);
});

test('every monitors route is an API method without the key authorizer (the function checks the key or the session), in the edge\'s monitors group', () => {
  const methods = ofType('AWS::ApiGateway::Method').map(([, m]) => m.Properties);
  const monitorsFn = logicalId('MonitorsApi');
  const ours = methods.filter((m) => JSON.stringify(m.Integration?.Uri ?? '').includes(monitorsFn));
  // The monitors API's function serves the team webhook endpoints' routes too (docs/webhooks.md).
  expect(ours.map((m) => m.HttpMethod).sort()).toEqual([...MONITOR_ROUTES, ...WEBHOOK_ROUTES].map((r) => r.method).sort());
  for (const m of ours) expect({ auth: m.AuthorizationType, key: m.ApiKeyRequired ?? false }).toEqual({ auth: 'NONE', key: false });
  expect([...MONITOR_ROUTES, ...WEBHOOK_ROUTES].every((r) => groupOf(r)?.name === 'monitors')).toBe(true);
});

test('the signing secrets are sealed under a KMS key of the stack (envelope encryption): rotated, retained; the monitors API and the jobs API (a job\'s own webhook) may only GenerateDataKey, the delivery worker only Decrypt, no other role touches it; a key out of reach raises an alarm on the status topic', () => {
  const keys = ofType('AWS::KMS::Key').filter(([id]) => id.startsWith('MonitorKey'));
  expect(keys).toHaveLength(1);
  const [keyId, key] = keys[0]!;
  expect(key.Properties.EnableKeyRotation).toBe(true);
  expect((resources[keyId] as unknown as { DeletionPolicy: string }).DeletionPolicy).toBe('Retain');
  const keyArn = JSON.stringify({ 'Fn::GetAtt': [keyId, 'Arn'] });
  const kmsOnKey = (fnPrefix: string) => policiesOf(fnPrefix).filter((s) => JSON.stringify(s.Resource) === keyArn).flatMap(actions).sort();
  expect(kmsOnKey('MonitorsApi')).toEqual(['kms:GenerateDataKey']);
  // (The jobs API, in the jobs' nested stack, may GenerateDataKey on it too: test/infra/jobs.ts.)
  expect(kmsOnKey('MonitorsDeliver')).toEqual(['kms:Decrypt']);
  const sealers = ['MonitorsApi', 'MonitorsDeliver'];
  for (const [id] of ofType('AWS::Lambda::Function').filter(([fid]) => !sealers.some((f) => fid.startsWith(f)))) {
    const role = resources[id]!.Properties.Role?.['Fn::GetAtt']?.[0] as string | undefined;
    const touching = ofType('AWS::IAM::Policy').filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role) && JSON.stringify(p.Properties.PolicyDocument).includes(keyArn));
    expect({ id, touching: touching.length }).toEqual({ id, touching: 0 });
  }
  for (const f of sealers) expect(resources[logicalId(f)]!.Properties.Environment.Variables.MONITOR_KMS_KEY_ID).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
  const alarms = ofType('AWS::CloudWatch::Alarm').filter(([id]) => id.startsWith('MonitorKeyUnavailable'));
  expect(alarms).toHaveLength(1);
  const alarm = alarms[0]![1].Properties;
  expect({ metric: alarm.MetricName, namespace: alarm.Namespace, threshold: alarm.Threshold }).toEqual({ metric: 'monitorKeyUnavailable', namespace: 'SocialDataApi', threshold: 1 });
  expect(JSON.stringify(alarm.AlarmActions)).toContain('StatusAlarms');
});
