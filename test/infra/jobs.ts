import { JOB_WEBHOOK_ATTRIBUTES, TEAM_EVENT_ATTRIBUTES } from '../../infra/iam';
import { JOB_BATCH, JOB_CONCURRENCY } from '../../infra/jobs';
import { routedOperations } from '../../shared/operations';
import { stackTemplate } from '../support/synth';

/**
 * Registered by test/infra/stack.test.ts (one module registry for the stack's template tests).
 * The bulk jobs' part of the stack (infra/jobs.ts): the results bucket (encrypted, public access
 * blocked, TLS only, 7-day lifecycle), an input queue per platform with its dead-letter queue and
 * bounded concurrency, and least privilege: the worker reaches only its bucket prefix, the jobs
 * table's job and team partitions and the operations' functions, nothing of the accounts table.
 */
type Resource = { Type: string; Properties: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
const resources = stackTemplate().toJSON().Resources as Record<string, Resource>;
const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const idOf = (prefix: string, type: string) => Object.keys(resources).find((id) => id.startsWith(prefix) && resources[id]!.Type === type)!;
const fnId = (prefix: string) => idOf(prefix, 'AWS::Lambda::Function');
type Statement = { Effect?: string; Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, unknown>> };
const policiesOf = (fnPrefix: string): Statement[] => {
  const role = resources[fnId(fnPrefix)]!.Properties.Role['Fn::GetAtt'][0] as string;
  return ofType('AWS::IAM::Policy').filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role)).flatMap(([, p]) => p.Properties.PolicyDocument.Statement as Statement[]);
};
const actions = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const PLATFORMS = [...new Set(routedOperations().map((op) => op.platform))];
const bucketId = idOf('ResultsBucket', 'AWS::S3::Bucket');

test('the results bucket: encrypted, every public access blocked, TLS only, objects gone after 7 days', () => {
  const b = resources[bucketId]!.Properties;
  expect(b.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault.SSEAlgorithm).toBe('AES256');
  expect(b.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
  expect(b.LifecycleConfiguration.Rules).toEqual([expect.objectContaining({ Status: 'Enabled', ExpirationInDays: 7, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } })]);
  const policy = ofType('AWS::S3::BucketPolicy').find(([, p]) => JSON.stringify(p.Properties.Bucket) === JSON.stringify({ Ref: bucketId }))![1];
  expect(JSON.stringify(policy.Properties.PolicyDocument)).toContain('aws:SecureTransport');
});

test('with kmsKey, the bucket is encrypted under the customer-managed key', () => {
  const t = stackTemplate({ kmsKey: true }).toJSON().Resources as Record<string, Resource>;
  const [keyId] = Object.entries(t).find(([, r]) => r.Type === 'AWS::KMS::Key')!;
  const bucket = Object.values(t).find((r) => r.Type === 'AWS::S3::Bucket')!;
  expect(bucket.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault).toEqual({ SSEAlgorithm: 'aws:kms', KMSMasterKeyID: { 'Fn::GetAtt': [keyId, 'Arn'] } });
});

test('the input queue, redriven to the dead-letter queue after 5 receives, feeding the worker with bounded concurrency; every platform named to it', () => {
  const queues = ofType('AWS::SQS::Queue').filter(([id]) => id.startsWith('JobInput'));
  expect(queues.map(([id]) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual(['JobInputDlq', 'JobInputQueue']);
  const named = JSON.stringify(resources[fnId('JobsWorker')]!.Properties.Environment.Variables.JOB_QUEUES);
  for (const p of PLATFORMS) expect(named).toContain(`\\"${p}\\":\\"`);
  const dlq = idOf('JobInputDlq', 'AWS::SQS::Queue');
  for (const [id, q] of queues.filter(([qid]) => !qid.startsWith('JobInputDlq'))) expect({ id, redrive: q.Properties.RedrivePolicy }).toEqual({ id, redrive: { deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] }, maxReceiveCount: 5 } });
  const mappings = ofType('AWS::Lambda::EventSourceMapping').map(([, m]) => m.Properties).filter((m) => JSON.stringify(m.FunctionName) === JSON.stringify({ Ref: fnId('JobsWorker') }));
  expect(mappings).toHaveLength(1);
  for (const m of mappings) expect({ max: m.ScalingConfig?.MaximumConcurrency, batch: m.BatchSize, partial: m.FunctionResponseTypes }).toEqual({ max: JOB_CONCURRENCY, batch: JOB_BATCH, partial: ['ReportBatchItemFailures'] });
});

test('least privilege: the worker reaches only jobs/ of its bucket, the jobs table\'s job and team partitions and the operations\' functions; nothing of the accounts table', () => {
  const worker = policiesOf('JobsWorker').filter((s) => (s.Effect ?? 'Allow') === 'Allow');
  const s3 = worker.filter((s) => actions(s).some((a) => a.startsWith('s3:')));
  expect(s3.flatMap(actions).sort()).toEqual(['s3:GetObject', 's3:PutObject']);
  expect(s3.map((s) => s.Resource)).toEqual([{ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/jobs/*']] }]);
  const tables = worker.filter((s) => actions(s).some((a) => a.startsWith('dynamodb:')));
  const jobsTable = idOf('JobsTable', 'AWS::DynamoDB::Table');
  const eventsTable = idOf('EventsTable', 'AWS::DynamoDB::Table');
  // On the events table: only the job's team events (PutItem of an event's attributes in team partitions).
  const onEvents = tables.filter((s) => JSON.stringify(s.Resource) === JSON.stringify({ 'Fn::GetAtt': [eventsTable, 'Arn'] }));
  expect(onEvents.map((s) => [actions(s), s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys']])).toEqual([[['dynamodb:PutItem'], ['TEAM#*']]]);
  for (const s of tables.filter((t) => !onEvents.includes(t))) {
    expect(s.Resource).toEqual({ 'Fn::GetAtt': [jobsTable, 'Arn'] });
    expect(s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys']).toEqual(['TEAM#*', 'JOB#*']);
    expect(actions(s)).not.toContain('dynamodb:Scan');
    expect(actions(s)).not.toContain('dynamodb:DeleteItem');
  }
  const invoked = worker.filter((s) => actions(s).includes('lambda:InvokeFunction')).flatMap((s) => s.Resource as unknown[]);
  expect(invoked.map((r) => JSON.stringify(r)).sort()).toEqual(routedOperations().map((op) => JSON.stringify({ 'Fn::GetAtt': [fnId(op.id.split('-').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')), 'Arn'] })).sort());
  // The API: its uploads and jobs prefixes; the accounts table only to read keys, sessions and members (and touch a key's lastUsedAt).
  const api = policiesOf('JobsApi').filter((s) => (s.Effect ?? 'Allow') === 'Allow');
  expect(api.filter((s) => actions(s).some((a) => a.startsWith('s3:'))).map((s) => s.Resource)).toEqual([[{ 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/jobs/*']] }, { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/uploads/*']] }]]);
  const accounts = idOf('AccountsTable', 'AWS::DynamoDB::Table');
  const onAccounts = api.filter((s) => JSON.stringify(s.Resource).includes(accounts));
  expect(onAccounts.flatMap(actions).sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:UpdateItem']);
  expect(policiesOf('JobsWorker').some((s) => JSON.stringify(s.Resource).includes(accounts))).toBe(false);
  expect(policiesOf('JobsApi').some((s) => actions(s).includes('lambda:InvokeFunction'))).toBe(false);
});

test("the jobs API on the events table: a job's events and its own webhook's item put (each by its attributes alone), its deliveries read (Query in team partitions); no update, no delete", () => {
  const eventsTable = JSON.stringify({ 'Fn::GetAtt': [idOf('EventsTable', 'AWS::DynamoDB::Table'), 'Arn'] });
  const onEvents = policiesOf('JobsApi').filter((s) => (s.Effect ?? 'Allow') === 'Allow' && JSON.stringify(s.Resource) === eventsTable);
  expect(onEvents.map((s) => ({ actions: actions(s), leading: s.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'], attributes: s.Condition?.['ForAllValues:StringLike']?.['dynamodb:Attributes'] ?? null }))).toEqual([
    { actions: ['dynamodb:PutItem'], leading: ['TEAM#*'], attributes: [...TEAM_EVENT_ATTRIBUTES] },
    { actions: ['dynamodb:PutItem'], leading: ['TEAM#*'], attributes: [...JOB_WEBHOOK_ATTRIBUTES] },
    { actions: ['dynamodb:Query'], leading: ['TEAM#*'], attributes: null },
  ]);
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
  // No other function may assume roles.
  const assuming = ofType('AWS::IAM::Policy').filter(([, p]) => JSON.stringify(p.Properties.PolicyDocument).includes('sts:AssumeRole'));
  expect(assuming).toHaveLength(2);
  const roleOf = (fn: string) => resources[fnId(fn)]!.Properties.Role['Fn::GetAtt'][0];
  const principals = resources[fnId('JobsApi')]!.Properties.Environment.Variables.JOBS_DELIVERY_PRINCIPALS;
  expect(principals).toEqual({ 'Fn::Join': [',', [{ 'Fn::GetAtt': [roleOf('JobsWorker'), 'Arn'] }, { 'Fn::GetAtt': [roleOf('JobsApi'), 'Arn'] }]] });
});
