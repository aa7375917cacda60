/** Registered by test/infra/stack.test.ts (one module registry for the stack's template tests). */
import { Validations, type IPolicyValidationPluginBeta1 } from 'aws-cdk-lib/core';
import type { IConstruct } from 'constructs';
import { SocialDataApiStack } from '../../infra/stack';
import { checkSynthesis, synthesisFailure, testApp } from '../support/synth';

// cdk-nag's type declarations import the whole of aws-cdk-lib's (every service's, 2,500 files), which
// doubled the type check's time; this file needs one constructor of it, typed here.
const { AwsSolutionsChecks } = require('cdk-nag') as { AwsSolutionsChecks: new (scope: IConstruct) => IPolicyValidationPluginBeta1 };

/**
 * The contexts checked: their synthesis (test/support/synth.ts, registered here before any test
 * synthesizes) runs the pack, and is the one whose templates the stack's other tests read (the
 * proxy secret's name and ARN are stack.test.ts's).
 */
const CHECKED: [string, Record<string, unknown>][] = [
  ['default context', {}],
  ['with a proxy secret (by name)', { scraperProxySecretArn: 'social-data/proxy-url' }],
  ['with a proxy secret (by ARN)', { scraperProxySecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:social-data/proxy-url-AbC123' }],
  ['with a plain proxy URL', { scraperProxyUrl: 'http://proxy.internal:3128' }],
  ['without the web ACL', { wafRateLimit: 'false' }],
  ['without the gateway cache', { gatewayCache: 'false' }],
  ['with a customer-managed KMS key', { kmsKey: 'true' }],
];
checkSynthesis(
  CHECKED.map(([, context]) => context),
  (app) => [new AwsSolutionsChecks(app)],
);

/**
 * AWS's own best-practice rules (cdk-nag v3, the AwsSolutions pack, as a CDK policy-validation
 * plugin) on the synthesized stack: every finding is fixed in the stack's parts (infra/*.ts) or acknowledged there
 * with a one-line reason (docs/security.md lists them). An unacknowledged error or warning fails synthesis.
 */
function findings(extraContext: Record<string, unknown> = {}): string[] {
  const err = synthesisFailure(extraContext);
  if (err === undefined) return [];
  const text = String(err);
  if (!/ERROR|WARN/.test(text)) throw err;
  // One finding per "ERROR|WARNING <rule text>" line, with the construct path below it.
  const lines = text.split('\n').map((l) => l.trim());
  const out: string[] = [];
  lines.forEach((l, i) => {
    if (/^(ERROR|WARNING) /.test(l)) out.push(`${l} @ ${lines[i + 1] ?? ''} (${(lines[i + 2] ?? '').replace(/^Acknowledge with /, '')})`);
  });
  return out.length ? out : [text.slice(0, 2000)];
}

test.each(CHECKED)('AwsSolutions: no unacknowledged finding (%s)', (_name, context) => {
  expect(findings(context)).toEqual([]);
});

test('the checks do run: a stack with a finding fails them', () => {
  const app = testApp({}, false);
  const stack = new SocialDataApiStack(app, 'SocialDataApi');
  // An unencrypted, unlogged queue is an AwsSolutions error nobody acknowledged.
  new (require('aws-cdk-lib/aws-sqs').Queue)(stack, 'Probe', { enforceSSL: false });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  expect(() => app.synth()).toThrow(/AwsSolutions-SQS/);
});

test("the checks run on the jobs' nested stack too: a finding there fails them", () => {
  const app = testApp({}, false);
  const stack = new SocialDataApiStack(app, 'SocialDataApi');
  const { NestedStack } = require('aws-cdk-lib/core') as typeof import('aws-cdk-lib/core');
  const nested = stack.node.findAll().find(NestedStack.isNestedStack)!;
  new (require('aws-cdk-lib/aws-sqs').Queue)(nested, 'Probe', { enforceSSL: false });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  expect(() => app.synth()).toThrow(/AwsSolutions-SQS[\s\S]*JobsEngine\/Probe/);
});

describe('what the fixes changed', () => {
  const { Template } = require('aws-cdk-lib/assertions') as typeof import('aws-cdk-lib/assertions');
  const app = testApp({}, false);
  const stack = new SocialDataApiStack(app, 'SocialDataApi');
  const template = Template.fromStack(stack).toJSON();
  const resources = Object.entries(template.Resources as Record<string, { Type: string; Properties: Record<string, any> }>); // eslint-disable-line @typescript-eslint/no-explicit-any
  const { NestedStack } = require('aws-cdk-lib/core') as typeof import('aws-cdk-lib/core');
  // The jobs' nested stack's template too (infra/jobs.ts).
  const nestedTemplates = stack.node.findAll().filter(NestedStack.isNestedStack).map((n) => Template.fromStack(n).toJSON());

  test('every function, of the root stack and of the nested one, has its own role with no managed policy, writing only to its own log group', () => {
    let count = 0;
    for (const t of [template, ...nestedTemplates]) {
      const fns = Object.values(t.Resources as Record<string, { Type: string; Properties: Record<string, any> }>).filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.LoggingConfig); // eslint-disable-line @typescript-eslint/no-explicit-any
      expect(fns.length).toBeGreaterThan(0);
      count += fns.length;
      for (const fn of fns) {
        const role = t.Resources[fn.Properties.Role['Fn::GetAtt'][0]];
        expect(role.Properties.ManagedPolicyArns).toBeUndefined();
        const statements = role.Properties.Policies.flatMap((p: { PolicyDocument: { Statement: unknown[] } }) => p.PolicyDocument.Statement);
        expect(statements).toEqual([{ Action: ['logs:CreateLogStream', 'logs:PutLogEvents'], Effect: 'Allow', Resource: { 'Fn::GetAtt': [fn.Properties.LoggingConfig.LogGroup.Ref, 'Arn'] } }]);
      }
    }
    expect(nestedTemplates).toHaveLength(1);
    expect(count).toBeGreaterThan(2);
  });

  test('the stage writes access logs without the key or the query, and execution logs for errors only, without bodies', () => {
    const [, stage] = resources.find(([, r]) => r.Type === 'AWS::ApiGateway::Stage')!;
    const format = stage.Properties.AccessLogSetting.Format as string;
    expect(JSON.parse(format)).toMatchObject({ requestId: '$context.requestId', status: '$context.status', teamId: '$context.authorizer.principalId' });
    expect(format).not.toMatch(/apiKey|querystring|header/i);
    expect(stage.Properties.MethodSettings[0]).toEqual(expect.objectContaining({ LoggingLevel: 'ERROR', DataTraceEnabled: false, HttpMethod: '*', ResourcePath: '/*' }));
    // The others are the per-method throttles of the unauthenticated routes, some with the gateway cache (stack.test.ts), nothing else.
    for (const s of stage.Properties.MethodSettings.slice(1)) {
      const keys = Object.keys(s).sort();
      expect([['HttpMethod', 'ResourcePath', 'ThrottlingBurstLimit', 'ThrottlingRateLimit'], ['CacheDataEncrypted', 'CacheTtlInSeconds', 'CachingEnabled', 'HttpMethod', 'ResourcePath', 'ThrottlingBurstLimit', 'ThrottlingRateLimit']]).toContainEqual(keys);
    }
  });
});
