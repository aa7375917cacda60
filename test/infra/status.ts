/** Registered by test/infra/stack.test.ts (one module registry for the stack's template tests). */
import { Match } from 'aws-cdk-lib/assertions';
import { routedOperations } from '../../shared/operations';
import { stackTemplate } from '../support/synth';

/** Items 2, 3 and 6 of issue 20 in the synthesized template: the status route, the canary schedule, the alarms, their topic, the dashboard. */
type Resource = { Type: string; Properties: Record<string, any> };

const template = stackTemplate({ alarmEmail: 'ops@example.com', canaryInputs: { 'livestream-clip': { url: 'https://example.test/c' } } });
const resources = template.toJSON().Resources as Record<string, Resource>;
const ofType = (type: string, t = resources) => Object.entries(t).filter(([, r]) => r.Type === type).map(([, r]) => r);
const routed = routedOperations();
const fnByDescription = (text: string) => ofType('AWS::Lambda::Function').filter((r) => String(r.Properties.Description).includes(text));

test('GET /v1/status: a public method on its own function, cached 30 s, reading the counters only', () => {
  const statusResource = Object.entries(resources).find(([, r]) => r.Type === 'AWS::ApiGateway::Resource' && r.Properties.PathPart === 'status')![0];
  template.hasResourceProperties('AWS::ApiGateway::Method', { HttpMethod: 'GET', AuthorizationType: 'NONE', ApiKeyRequired: false, ResourceId: { Ref: statusResource } });
  const [fn] = fnByDescription('GET /v1/status');
  expect(fn!.Properties.Environment.Variables).toMatchObject({ STATUS_MAX_AGE_S: '30', OUTCOME_SHARDS: '2' });
});

test('the canaries: a function run by an EventBridge schedule every 10 minutes, with the inputs from context', () => {
  const [fn] = fnByDescription('The canaries');
  expect(JSON.parse(fn!.Properties.Environment.Variables.CANARY_INPUTS)).toEqual({ 'livestream-clip': { url: 'https://example.test/c' } });
  expect(fn!.Properties.Environment.Variables.SCRAPE_DEADLINE_MS).toBeDefined();
  template.hasResourceProperties('AWS::Events::Rule', { ScheduleExpression: 'rate(10 minutes)', State: 'ENABLED', Targets: Match.arrayWith([Match.objectLike({ Arn: Match.anyValue() })]) });
});

test('alarms per operation: consecutive canary failures and the EXTRACTION_FAILED/UPSTREAM_BLOCKED share, to one SNS topic with the e-mail', () => {
  template.resourceCountIs('AWS::SNS::Topic', 1);
  template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
  const alarms = ofType('AWS::CloudWatch::Alarm');
  const canary = alarms.filter((a) => a.Properties.MetricName === 'canarySuccess');
  expect(canary).toHaveLength(routed.length);
  for (const a of canary) expect(a.Properties).toMatchObject({ EvaluationPeriods: 3, DatapointsToAlarm: 3, Threshold: 1, ComparisonOperator: 'LessThanThreshold' });
  const share = alarms.filter((a) => JSON.stringify(a.Properties.Metrics ?? []).includes('EXTRACTION_FAILED'));
  expect(share).toHaveLength(routed.length);
  for (const a of share) expect(JSON.stringify(a.Properties.Metrics)).toContain('UPSTREAM_BLOCKED');
  const topic = Object.entries(resources).find(([, r]) => r.Type === 'AWS::SNS::Topic')![0];
  for (const a of alarms) expect(a.Properties.AlarmActions).toEqual([{ Ref: topic }]);
  expect(canary.map((a) => a.Properties.Dimensions.find((d: { Name: string }) => d.Name === 'operation').Value).sort()).toEqual(routed.map((o) => o.id).sort());
});

test('context canary=false leaves out the canary function, its schedule and its alarms', () => {
  const off = stackTemplate({ canary: false }).toJSON().Resources as Record<string, Resource>;
  // The monitors' one-minute tick is the only schedule left.
  expect(ofType('AWS::Events::Rule', off).filter((r) => !JSON.stringify(r.Properties.Targets).includes('MonitorsTick'))).toHaveLength(0);
  expect(ofType('AWS::CloudWatch::Alarm', off).filter((a) => a.Properties.MetricName === 'canarySuccess')).toHaveLength(0);
  expect(ofType('AWS::Lambda::Function', off).filter((r) => String(r.Properties.Description).includes('The canaries'))).toHaveLength(0);
});

test('the CloudWatch dashboard: per operation requests, answers by code, p95 latency and canary; failed refunds; DynamoDB throttles', () => {
  const [dashboard] = ofType('AWS::CloudWatch::Dashboard');
  const body = JSON.stringify(dashboard!.Properties.DashboardBody);
  for (const op of routed) {
    for (const title of [`${op.id}: requests`, `${op.id}: answers by outcome`, `${op.id}: p95 latency`, `${op.id}: canary`]) expect(body).toContain(title);
  }
  for (const needle of ['refundFailed', 'ReadThrottleEvents', 'WriteThrottleEvents', 'EXTRACTION_FAILED', 'PLATFORM_UNAVAILABLE', '\\"p95\\"', 'canarySuccess']) expect(body).toContain(needle);
});

test('the gateway\'s own refusals say nothing was charged (x-credits-charged: 0)', () => {
  const responses = ofType('AWS::ApiGateway::GatewayResponse');
  expect(responses.length).toBeGreaterThan(5);
  for (const r of responses) expect(r.Properties.ResponseParameters['gatewayresponse.header.x-credits-charged']).toBe("'0'");
});
