import { JOB_WEBHOOK_ATTRIBUTES, TEAM_EVENT_ATTRIBUTES } from '../../infra/iam';
import { JOB_BATCH, JOB_CONCURRENCY } from '../../infra/jobs';
import { pascalCase } from '../../infra/queues';
import { JOB_ROUTES } from '../../shared/api/job-routes';
import { routedOperations } from '../../shared/operations';
import { nestedTemplate, nestedWiring, stackTemplate } from '../support/synth';

/**
 * Registered by test/infra/stack.test.ts (one module registry for the stack's template tests).
 * The bulk jobs' part of the stack (infra/jobs.ts): the engine in a nested stack (`JobsEngine`, read
 * here by `Template.fromStack(nested)`: test/support/synth.ts), the /v1/jobs routes and the jobs table
 * in the root stack. The results bucket (encrypted, public access blocked, TLS only, 7-day lifecycle),
 * an input queue per platform with one dead-letter queue and an event source each with bounded
 * concurrency, and least privilege: the worker reaches only its bucket prefix, the jobs table's job
 * and team partitions, the operations' functions and its own queues, nothing of the accounts table.
 * The nested template's parameters are read as what the root passes for them (`inRoot`), so a
 * statement reads as it would in the root template.
 */
type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string | string[] }; // eslint-disable-line @typescript-eslint/no-explicit-any
const root = stackTemplate().toJSON().Resources as Record<string, Resource>;
const wiring = nestedWiring('JobsEngine');
const resources = wiring.inRoot(nestedTemplate('JobsEngine').toJSON().Resources as Record<string, Resource>);
const ofType = (type: string, within = resources) => Object.entries(within).filter(([, r]) => r.Type === type);
const idOf = (prefix: string, type: string, within = resources) => Object.keys(within).find((id) => id.startsWith(prefix) && within[id]!.Type === type)!;
const fnId = (prefix: string) => idOf(prefix, 'AWS::Lambda::Function');
type Statement = { Effect?: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>> };
const policiesOf = (fnPrefix: string): Statement[] => {
  const role = resources[fnId(fnPrefix)]!.Properties.Role['Fn::GetAtt'][0] as string;
  return ofType('AWS::IAM::Policy').filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role)).flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
};
const actions = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const PLATFORMS = [...new Set(routedOperations().map((op) => op.platform))];
const bucketId = idOf('ResultsBucket', 'AWS::S3::Bucket');
const queueIds = () => PLATFORMS.map((p) => idOf(`JobInputQueue${pascalCase(p)}`, 'AWS::SQS::Queue'));
const getAtt = (id: string, attr = 'Arn') => ({ 'Fn::GetAtt': [id, attr] });

test('one nested stack, the jobs engine: no table in it (the jobs table, holding the teams\' delivery external IDs, stays in the root stack)', () => {
  expect(ofType('AWS::CloudFormation::Stack', root).map(([id]) => id)).toEqual([wiring.resourceId]);
  expect(ofType('AWS::DynamoDB::Table')).toEqual([]);
  expect(idOf('JobsTable', 'AWS::DynamoDB::Table', root)).toBeDefined();
  // Everything it uses of the root stack comes in as a parameter, resolved here to the root's own resources.
  expect(Object.keys(wiring.parameters).length).toBeGreaterThan(0);
  for (const value of Object.values(wiring.parameters)) expect(JSON.stringify(value)).toMatch(/^\{"(Ref|Fn::GetAtt)":/);
});

test("the wiring cfn-check cannot see across templates: every output of the nested stack the root reads exists, every parameter of the nested template is passed and nothing else", () => {
  const nested = nestedTemplate('JobsEngine').toJSON() as { Parameters?: Record<string, unknown>; Outputs?: Record<string, unknown> };
  const read = [...JSON.stringify(root).matchAll(new RegExp(`\\{"Fn::GetAtt":\\["${wiring.resourceId}","Outputs\\.([A-Za-z0-9]+)"\\]\\}`, 'g'))].map((m) => m[1]!);
  expect(read.length).toBeGreaterThan(0);
  for (const name of read) expect(Object.keys(nested.Outputs ?? {})).toContain(name);
  expect(Object.keys(wiring.parameters).sort()).toEqual(Object.keys(nested.Parameters ?? {}).sort());
});

test('the results bucket: encrypted, every public access blocked, TLS only, objects gone after 7 days', () => {
  const b = resources[bucketId]!.Properties;
  expect(b.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
  expect(b.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
  expect(b.LifecycleConfiguration.Rules).toEqual([expect.objectContaining({ Status: 'Enabled', ExpirationInDays: 7, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } })]);
  const policy = ofType('AWS::S3::BucketPolicy').find(([, p]) => JSON.stringify(p.Properties.Bucket) === JSON.stringify({ Ref: bucketId }))![1];
  expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain('aws:SecureTransport');
});

test('with kmsKey, the bucket is encrypted under the customer-managed key of the root stack', () => {
  const context = { kmsKey: true };
  const t = stackTemplate(context).toJSON().Resources as Record<string, Resource>;
  const [keyId] = Object.entries(t).find(([id, r]) => r.Type === 'AWS::KMS::Key' && !id.startsWith('MonitorKey'))!;
  const nested = nestedWiring('JobsEngine', context).inRoot(nestedTemplate('JobsEngine', context).toJSON().Resources as Record<string, Resource>);
  const bucket = Object.values(nested).find((r) => r.Type === 'AWS::S3::Bucket')!;
  expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault).toEqual({ SSEAlgorithm: 'aws:kms', KMSMasterKeyID: getAtt(keyId) });
});

test('an input queue per platform, each redriven to the dead-letter queue after 5 receives and feeding the worker through an event source of its own with the per-platform bound; JOB_QUEUES names each platform its own queue', () => {
  const queues = ofType('AWS::SQS::Queue');
  expect(queues.map(([id]) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual(['JobInputDlq', ...PLATFORMS.map((p) => `JobInputQueue${pascalCase(p)}`)].sort());
  const dlq = idOf('JobInputDlq', 'AWS::SQS::Queue');
  for (const id of queueIds()) expect({ id, redrive: resources[id]!.Properties.RedrivePolicy }).toEqual({ id, redrive: { deadLetterTargetArn: getAtt(dlq), maxReceiveCount: 5 } });
  // The worker's timeout × 6 (AWS's advice for an SQS event source).
  for (const id of queueIds()) expect(resources[id]!.Properties.VisibilityTimeout).toBe(6 * resources[fnId('JobsWorker')]!.Properties.Timeout);
  for (const fn of ['JobsWorker', 'JobsApi']) {
    const named = resources[fnId(fn)]!.Properties.Environment.Variables.JOB_QUEUES;
    // {"platform":"<url of its queue>", …}: each platform, its own queue's Ref (an SQS queue's Ref is its URL).
    const parts = (named['Fn::Join'][1] as unknown[]).map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join('');
    for (const p of PLATFORMS) expect(parts).toContain(`"${p}":"${JSON.stringify({ Ref: idOf(`JobInputQueue${pascalCase(p)}`, 'AWS::SQS::Queue') })}"`);
  }
  const mappings = ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties);
  expect(mappings.every((m) => JSON.stringify(m.FunctionName) === JSON.stringify({ Ref: fnId('JobsWorker') }))).toBe(true);
  expect(mappings.map((m) => JSON.stringify(m.EventSourceArn)).sort()).toEqual(queueIds().map((id) => JSON.stringify(getAtt(id))).sort());
  for (const m of mappings) expect({ max: m.ScalingConfig?.MaximumConcurrency, batch: m.BatchSize, partial: m.FunctionResponseTypes }).toEqual({ max: JOB_CONCURRENCY, batch: JOB_BATCH, partial: ['ReportBatchItemFailures'] });
});

test('the worker may only send to and receive from the input queues (not the dead-letter queue), the API only send to them; no other function of either stack reaches them', () => {
  const inputs = queueIds().map((id) => JSON.stringify(getAtt(id))).sort();
  const sqsReach = (fn: string) => {
    const stmts = policiesOf(fn).filter((s) => actions(s).some((a) => a.startsWith('sqs:')));
    for (const s of stmts) expect({ fn, mixed: actions(s).filter((a) => !a.startsWith('sqs:')) }).toEqual({ fn, mixed: [] });
    const on = (pred: (a: string) => boolean) => [...new Set(stmts.filter((s) => actions(s).some(pred)).flatMap((s) => [s.Resource].flat().map((r) => JSON.stringify(r))))].sort();
    return { actions: [...new Set(stmts.flatMap(actions))].sort(), send: on((a) => a === 'sqs:SendMessage'), receive: on((a) => a === 'sqs:ReceiveMessage') };
  };
  expect(sqsReach('JobsWorker')).toEqual({ actions: ['sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage', 'sqs:SendMessage'], send: inputs, receive: inputs });
  expect(sqsReach('JobsApi')).toEqual({ actions: ['sqs:GetQueueAttributes', 'sqs:GetQueueUrl', 'sqs:SendMessage'], send: inputs, receive: [] });
  // Of the nested stack, the root's policies name only the jobs API function (the MCP job tools invoke it): no queue.
  const rootStatements = ofType('AWS::IAM::Policy', root).flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
  const intoNested = rootStatements.filter((s) => JSON.stringify(s.Resource).includes(wiring.resourceId));
  expect(intoNested.flatMap(actions)).toEqual(['lambda:InvokeFunction']);
  expect(JSON.stringify(intoNested[0]!.Resource)).toContain(JSON.stringify(wiring.output({ 'Fn::GetAtt': [fnId('JobsApi'), 'Arn'] })));
});

test('least privilege: the worker reaches only jobs/ of its bucket, the jobs table\'s job and team partitions and the operations\' functions; nothing of the accounts table', () => {
  const worker = policiesOf('JobsWorker').filter((s) => (s.Effect ?? 'Allow') === 'Allow');
  const s3 = worker.filter((s) => actions(s).some((a) => a.startsWith('s3:')));
  expect(s3.flatMap(actions).sort()).toEqual(['s3:GetObject', 's3:PutObject']);
  expect(s3.map((s) => s.Resource)).toEqual([{ 'Fn::Join': ['', [getAtt(bucketId), '/jobs/*']] }]);
  const tables = worker.filter((s) => actions(s).some((a) => a.startsWith('dynamodb:')));
  const jobsTable = idOf('JobsTable', 'AWS::DynamoDB::Table', root);
  const eventsTable = idOf('EventsTable', 'AWS::DynamoDB::Table', root);
  // On the events table: only the job's team events (PutItem of an event's attributes in team partitions).
  const onEvents = tables.filter((s) => JSON.stringify(s.Resource) === JSON.stringify(getAtt(eventsTable)));
  expect(onEvents.map((s) => [actions(s), s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys']])).toEqual([[['dynamodb:PutItem'], ['TEAM#*']]]);
  const rest = tables.filter((t) => !onEvents.includes(t));
  expect(rest.length).toBeGreaterThan(0);
  for (const s of rest) {
    expect(s.Resource).toEqual(getAtt(jobsTable));
    expect(s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys']).toEqual(['TEAM#*', 'JOB#*']);
    expect(actions(s)).not.toContain('dynamodb:Scan');
    expect(actions(s)).not.toContain('dynamodb:DeleteItem');
  }
  // The operations' own functions (the root stack's), each by its ARN: those and nothing else.
  const invoked = worker.filter((s) => actions(s).includes('lambda:InvokeFunction')).flatMap((s) => [s.Resource].flat());
  expect(invoked.map((r) => JSON.stringify(r)).sort()).toEqual(routedOperations().map((op) => JSON.stringify(getAtt(idOf(op.id.split('-').map((w) => w[0]!.toUpperCase() + w.slice(1)).join(''), 'AWS::Lambda::Function', root)))).sort());
  // Every resource the worker is allowed on: its bucket prefix, the jobs and events tables, the operations' functions, its queues.
  const allowedOn = new Set(worker.flatMap((s) => [s.Resource].flat().map((r) => JSON.stringify(r))));
  const expected = new Set([JSON.stringify({ 'Fn::Join': ['', [getAtt(bucketId), '/jobs/*']] }), JSON.stringify(getAtt(jobsTable)), JSON.stringify(getAtt(eventsTable)), ...invoked.map((r) => JSON.stringify(r)), ...queueIds().map((id) => JSON.stringify(getAtt(id)))]);
  expect([...allowedOn].filter((r) => !expected.has(r) && !r.includes(':iam::*:role/*'))).toEqual([]);
  // The API: its uploads and jobs prefixes; the accounts table only to read keys, sessions and members (and touch a key's lastUsedAt).
  const api = policiesOf('JobsApi').filter((s) => (s.Effect ?? 'Allow') === 'Allow');
  expect(api.filter((s) => actions(s).some((a) => a.startsWith('s3:'))).map((s) => s.Resource)).toEqual([[{ 'Fn::Join': ['', [getAtt(bucketId), '/jobs/*']] }, { 'Fn::Join': ['', [getAtt(bucketId), '/uploads/*']] }]]);
  const accounts = idOf('AccountsTable', 'AWS::DynamoDB::Table', root);
  const onAccounts = api.filter((s) => JSON.stringify(s.Resource).includes(accounts));
  expect(onAccounts.flatMap(actions).sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem']);
  expect(policiesOf('JobsWorker').some((s) => JSON.stringify(s.Resource).includes(accounts))).toBe(false);
  expect(policiesOf('JobsApi').some((s) => actions(s).includes('lambda:InvokeFunction'))).toBe(false);
});

test("the jobs API on the events table: a job's events and its own webhook's item put (each by its attributes alone), its deliveries read (Query in team partitions); no update, no delete", () => {
  const eventsTable = JSON.stringify(getAtt(idOf('EventsTable', 'AWS::DynamoDB::Table', root)));
  const onEvents = policiesOf('JobsApi').filter((s) => (s.Effect ?? 'Allow') === 'Allow' && JSON.stringify(s.Resource) === eventsTable);
  expect(onEvents.map((s) => ({ actions: actions(s), leading: s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'], attributes: s.Condition?.['ForAllValues:StringLike']?.['dynamodb:Attributes'] ?? null }))).toEqual([
    { actions: ['dynamodb:PutItem'], leading: ['TEAM#*'], attributes: [...TEAM_EVENT_ATTRIBUTES] },
    { actions: ['dynamodb:PutItem'], leading: ['TEAM#*'], attributes: [...JOB_WEBHOOK_ATTRIBUTES] },
    { actions: ['dynamodb:Query'], leading: ['TEAM#*'], attributes: null },
  ]);
  // The monitors' key (a root resource, passed in): GenerateDataKey only, to seal; never Decrypt.
  const key = JSON.stringify(getAtt(idOf('MonitorKey', 'AWS::KMS::Key', root)));
  expect(policiesOf('JobsApi').filter((s) => JSON.stringify(s.Resource) === key).flatMap(actions)).toEqual(['kms:GenerateDataKey']);
  expect(policiesOf('JobsWorker').some((s) => JSON.stringify(s.Resource) === key)).toBe(false);
  expect(resources[fnId('JobsApi')]!.Properties.Environment.Variables.MONITOR_KMS_KEY_ID).toEqual(JSON.parse(key));
});

test("delivery to a customer's bucket: the worker and the jobs API (the two that end jobs) may sts:AssumeRole on another account's role only with one of our external IDs and a job's session name, never a role of this account; the API names both roles as the principals to trust", () => {
  for (const fn of ['JobsWorker', 'JobsApi']) {
    const sts = policiesOf(fn).filter((s) => actions(s).some((a) => a.startsWith('sts:')));
    expect(sts.flatMap(actions)).toEqual(['sts:AssumeRole', 'sts:AssumeRole']);
    const allow = sts.find((s) => (s.Effect ?? 'Allow') === 'Allow')!;
    expect(JSON.stringify(allow.Resource)).toContain(':iam::*:role/*');
    expect(allow.Condition).toEqual({ StringLike: { 'sts:ExternalId': 'sda-*', 'sts:RoleSessionName': 'sda-job_*' } });
    const deny = sts.find((s) => s.Effect === 'Deny')!;
    expect(JSON.stringify(deny.Resource)).toContain('{"Ref":"AWS::AccountId"},":role/*"');
  }
  // No other function of either stack may assume roles.
  const assuming = [...ofType('AWS::IAM::Policy'), ...ofType('AWS::IAM::Policy', root)].filter(([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes('sts:AssumeRole'));
  expect(assuming).toHaveLength(2);
  const roleOf = (fn: string) => resources[fnId(fn)]!.Properties.Role['Fn::GetAtt'][0];
  const principals = resources[fnId('JobsApi')]!.Properties.Environment.Variables.JOBS_DELIVERY_PRINCIPALS;
  expect(principals).toEqual({ 'Fn::Join': [',', [getAtt(roleOf('JobsWorker')), getAtt(roleOf('JobsApi'))]] });
});

test('the /v1/jobs routes are methods of the root stack (so in its Deployment): each a proxy integration of the nested jobs API function, invoked under one permission scoped to this API', () => {
  const apiArn = wiring.output({ 'Fn::GetAtt': [fnId('JobsApi'), 'Arn'] });
  const methods = ofType('AWS::ApiGateway::Method', root).filter(([, m]) => JSON.stringify(m.Properties.Integration?.Uri ?? '').includes(JSON.stringify(apiArn)));
  expect(methods.map(([, m]) => m.Properties.HttpMethod).sort()).toEqual(JOB_ROUTES.map((r) => r.method).sort());
  for (const [, m] of methods) expect(m.Properties.Integration.Type).toBe('AWS_PROXY');
  // The Deployment waits for them (CDK orders it after its own stack's methods; a nested stack's it would not).
  const [, deployment] = ofType('AWS::ApiGateway::Deployment', root)[0]!;
  for (const [id] of methods) expect([deployment.DependsOn].flat()).toContain(id);
  const permissions = ofType('AWS::Lambda::Permission', root).filter(([, p]) => JSON.stringify(p.Properties.FunctionName) === JSON.stringify(apiArn));
  expect(permissions).toHaveLength(1);
  expect(permissions[0]![1].Properties.Principal).toBe('apigateway.amazonaws.com');
  expect(JSON.stringify(permissions[0]![1].Properties.SourceArn)).toContain(':execute-api:');
  expect(ofType('AWS::Lambda::Permission')).toEqual([]);
});
