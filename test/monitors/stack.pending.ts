import { Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { SocialDataApiStack } from '../../infra/stack';
import { DELIVERY_CONCURRENCY, POLL_CONCURRENCY } from '../../infra/monitors';
import { MONITOR_ROUTES } from '../../shared/monitors/api';
import { MONITORABLE_IDS } from '../../shared/monitors/kinds';
import { testApp } from '../support/synth';

/**
 * The monitors' part of the stack (infra/monitors.ts, context monitors=true): scheduler, queues with
 * DLQs, workers, least privilege, cdk-nag. NOT RUN (named .pending.ts, outside jest's testMatch):
 * these passed on the monitors branch, but since the security pass every API method must belong
 * to a route group of infra/edge.ts (per-address WAF limit, method share), and the monitors routes
 * have none yet, so the stack with monitors=true does not synthesize. Issue 32 stays open for it
 * (docs/monitors.md, "not done"); rename this file back to stack.test.ts when the group exists.
 */
type Resource = { Type: string; Properties: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
const app = testApp({ monitors: 'true' });
const stack = new SocialDataApiStack(app, 'SocialDataApi');
const template = Template.fromStack(stack);
const resources = template.toJSON().Resources as Record<string, Resource>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const logicalId = (prefix: string) => Object.keys(resources).find((id) => id.startsWith(prefix) && resources[id]!.Type === 'AWS::Lambda::Function')!;
const policiesOf = (fnPrefix: string) => {
  const role = resources[logicalId(fnPrefix)]!.Properties.Role['Fn::GetAtt'][0] as string;
  return ofType('AWS::IAM::Policy').filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role)).flatMap(([, p]) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown; Condition?: unknown }[]);
};
const actions = (s: { Action: string | string[] }) => (Array.isArray(s.Action) ? s.Action : [s.Action]);

test('two queues, each with its dead-letter queue, TLS only', () => {
  const queues = ofType('AWS::SQS::Queue').filter(([id]) => id.startsWith('Monitor'));
  expect(queues.map(([id]) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual(['MonitorDeliveryQueue', 'MonitorDeliveryQueueDlq', 'MonitorPollQueue', 'MonitorPollQueueDlq']);
  for (const [id, q] of queues.filter(([qid]) => !qid.includes('Dlq'))) expect({ id, redrive: q.Properties.RedrivePolicy?.maxReceiveCount }).toEqual({ id, redrive: 5 });
  const sslOnly = ofType('AWS::SQS::QueuePolicy').filter(([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes('aws:SecureTransport'));
  expect(sslOnly.length).toBeGreaterThanOrEqual(4);
});

test('a one-minute tick, and workers fed by the queues with bounded concurrency', () => {
  const rules = ofType('AWS::Events::Rule').filter(([id]) => id.startsWith('MonitorsTick'));
  expect(rules).toHaveLength(1);
  expect(rules[0]![1].Properties.ScheduleExpression).toBe('rate(1 minute)');
  const mappings = ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties.ScalingConfig?.MaximumConcurrency).sort((a, b) => a - b);
  expect(mappings).toEqual([POLL_CONCURRENCY, DELIVERY_CONCURRENCY].sort((a, b) => a - b));
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
  // The tick reads only the due partitions, and writes nothing to the table.
  const tickDb = policiesOf('MonitorsTick').filter((s) => actions(s).some((a) => a.startsWith('dynamodb:')));
  expect(tickDb.flatMap(actions)).toEqual(['dynamodb:Query']);
});

test('the MCP function (its monitor tools) may invoke the monitors API function, that one alone, and still neither PutItem nor DeleteItem', () => {
  const mcp = policiesOf('Mcp') as { Effect?: string; Action: string | string[]; Resource: unknown }[];
  const invoke = mcp.filter((s) => actions(s).includes('lambda:InvokeFunction'));
  expect(invoke.map((s) => s.Resource)).toEqual([{ 'Fn::GetAtt': [logicalId('MonitorsApi'), 'Arn'] }]);
  expect(mcp.filter((s) => (s.Effect ?? 'Allow') === 'Allow' && actions(s).some((a) => a === 'dynamodb:PutItem' || a === 'dynamodb:DeleteItem'))).toEqual([]);
  expect(resources[logicalId('Mcp')]!.Properties.Environment.Variables.MONITORS_FUNCTION).toEqual({ Ref: logicalId('MonitorsApi') });
});

test('without context monitors=true, none of it is deployed', () => {
  const plain = Template.fromStack(new SocialDataApiStack(testApp(), 'SocialDataApi')).toJSON().Resources as Record<string, Resource>;
  expect(Object.keys(plain).filter((id) => id.startsWith('Monitor'))).toEqual([]);
});

test('every monitors route is on the API', () => {
  const paths = ofType('AWS::ApiGateway::Method').length;
  expect(paths).toBeGreaterThan(MONITOR_ROUTES.length);
});

test.each([
  ['default context', {}],
  ['with a customer-managed KMS key', { kmsKey: 'true' }],
])('cdk-nag (AwsSolutions): no unacknowledged finding (%s)', (_name, context) => {
  const nagApp = testApp({ monitors: 'true', ...context });
  new SocialDataApiStack(nagApp, 'SocialDataApi');
  Validations.of(nagApp).addPlugins(new AwsSolutionsChecks(nagApp));
  let problem = '';
  try {
    nagApp.synth();
  } catch (err) {
    problem = String(err).split('\n').filter((l) => /ERROR|WARN|Monitor/.test(l)).slice(0, 20).join('\n') || String(err).slice(0, 1500);
  }
  expect(problem).toBe('');
});
