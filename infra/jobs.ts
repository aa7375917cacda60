import { Aws, Duration, Fn, NestedStack, Names, RemovalPolicy, Stack } from 'aws-cdk-lib/core';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { EXTERNAL_ID_PREFIX, JOB_FILES_DAYS, JOB_ROUTES, SESSION_PREFIX } from '../shared/api/job-routes';
import { jobPk, keyPk, memberPk, sessionPk, teamPk } from '../shared/db/tables';
import type { Operation } from '../shared/operations';
import { KEY_PEPPER_VARIABLE, MONITOR_KMS_KEY_VARIABLE } from '../shared/runtime/secrets';
import { acknowledge } from './acknowledge';
import { JOB_WEBHOOK_ATTRIBUTES, allowInvoke, allowItems, allowPutsOf, allowTeamEventPuts, withSecret } from './iam';
import { nodeFunction } from './node-function';
import type { DataResources } from './operations';
import { StackPart } from './part';
import { deadLetterQueue, platformQueues, queueUrls } from './queues';

export interface JobsProps {
  api: apigateway.RestApi;
  data: DataResources;
  /** What every function of the service has. */
  environment: Record<string, string>;
  /** The operations' functions: the input worker invokes them (each page through THE pipeline). */
  operations: { op: Operation; fn: NodejsFunction }[];
  /** The key webhook signing secrets are sealed under (infra/monitors.ts): a job's own webhook's secret too. */
  monitorKey: kms.IKey;
}

/**
 * What the jobs' nested stack is given by the root stack, each value a parameter of its template (the
 * root reads nothing back from it: its template has no outputs).
 */
export interface JobsEngineProps {
  data: Pick<DataResources, 'jobs' | 'events' | 'dataKey'>;
  /** The worker's whole environment: the jobs API's, but for JOBS_DELIVERY_PRINCIPALS. */
  environment: Record<string, string>;
  operations: { op: Operation; fn: NodejsFunction }[];
  bucket: s3.IBucket;
  /** The input queues, one per platform: the worker receives from each (an event source each) and sends the next inputs to them. */
  queues: readonly { platform: string; q: sqs.IQueue }[];
  /** The worker role's name, chosen by the root: the jobs API names the role's ARN (JOBS_DELIVERY_PRINCIPALS) without reading the nested stack. */
  workerRoleName: string;
}

/**
 * Per platform: input worker invocations at once, and inputs per invocation. JOB_CONCURRENCY ×
 * JOB_BATCH = 25 inputs of one platform in flight for all jobs together, each platform through its
 * own input queue and event source (a platform's slow upstream holds only its own 25), beside the
 * monitors' 25 polls of that platform (infra/monitors.ts): a platform's upstream sees at most 50 of
 * our requests at once, whatever the jobs' size (docs/jobs.md, "Bounds").
 */
export const JOB_CONCURRENCY = 5;
export const JOB_BATCH = 5;
/** One input: up to MAX_PAGES_PER_INPUT pages, each bounded by the operation function's 28 s. */
export const JOB_WORKER_TIMEOUT = Duration.minutes(5);

/**
 * Bulk jobs on AWS (docs/jobs.md). In the root stack: the /v1/jobs routes on its REST API, the jobs
 * API's function, the results bucket (encrypted, public access blocked, TLS only, every object gone
 * after 7 days) and one SQS input queue per platform (a dead-letter queue for all): everything a part
 * of the root uses (the MCP job tools invoke the API's function, the API presigns the bucket's URLs and
 * sends to the queues). In a nested stack of its own (JobsEngine): the input worker with its event
 * sources, which only consumes them. The root never reads a nested stack's output; the nested stack
 * only takes parameters (docs/jobs.md, "CloudFormation"). The routes stay beside the API: its one
 * Deployment depends on them and hashes them into its logical ID (a changed route is redeployed).
 * The jobs table stays with the other tables (infra/data.ts). Least privilege: the API and the worker
 * reach only the jobs table's team and job partitions and their bucket prefixes (the API `uploads/`
 * and `jobs/`, the worker `jobs/` only) and send only to the input queues; the worker invokes only the
 * operations' functions, receives only from the input queues and holds nothing on the accounts table.
 */
export class Jobs extends StackPart {
  readonly engine: JobsEngine;
  /** The jobs API's function (the MCP job tools invoke it). */
  readonly apiFn: NodejsFunction;
  readonly bucket: s3.Bucket;
  readonly queues: { platform: string; q: sqs.Queue }[];
  readonly dlq: sqs.Queue;

  constructor(scope: Construct, id: string, props: JobsProps) {
    super(scope, id);
    const { api, data, operations } = props;
    this.bucket = new s3.Bucket(this, 'ResultsBucket', {
      encryption: data.dataKey ? s3.BucketEncryption.KMS : s3.BucketEncryption.S3_MANAGED,
      ...(data.dataKey ? { encryptionKey: data.dataKey, bucketKeyEnabled: true } : {}),
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'kept-7-days', expiration: Duration.days(JOB_FILES_DAYS), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      // The dashboard uploads input files and downloads results with the pre-signed URLs (the signature is the credential).
      cors: [{ allowedMethods: [s3.HttpMethods.GET, s3.HttpMethods.PUT], allowedOrigins: ['*'], allowedHeaders: ['content-type'], maxAge: 3600 }],
      removalPolicy: RemovalPolicy.DESTROY,
    });
    acknowledge(this.bucket, 'AwsSolutions-S1', 'Objects live 7 days and are reached only through short-lived pre-signed URLs issued by the jobs API, which logs each; server access logs would be a second bucket for no gain.');

    // One input queue per platform, as the monitors' poll queues (infra/queues.ts): JOB_QUEUES names them (shared/jobs/aws.ts sends by platform).
    this.dlq = deadLetterQueue(this, 'JobInputDlq');
    const platforms = [...new Set(operations.map(({ op }) => op.platform))];
    this.queues = platformQueues(this, 'JobInputQueue', platforms, this.dlq, JOB_WORKER_TIMEOUT);

    const environment = {
      ...props.environment,
      JOBS_TABLE: data.jobs.tableName,
      JOBS_BUCKET: this.bucket.bucketName,
      JOB_QUEUES: queueUrls(this.queues),
      JOB_FUNCTIONS: JSON.stringify(Object.fromEntries(operations.map(({ op, fn }) => [op.id, fn.functionName]))),
    };
    // The API: the caller's key or session (as the monitors API), the team's jobs, uploads and files.
    const apiFn = nodeFunction(this, 'JobsApi', 'functions/jobs.ts', { description: 'The bulk jobs API: /v1/jobs/* (API key or dashboard session)', memorySize: 1024, timeout: Duration.seconds(29), environment });
    allowItems(apiFn, data.accounts, ['dynamodb:GetItem', 'dynamodb:BatchGetItem'], [keyPk(''), teamPk(''), sessionPk(''), memberPk('')]);
    allowItems(apiFn, data.accounts, ['dynamodb:UpdateItem'], [keyPk(''), sessionPk('')]);
    withSecret(apiFn, KEY_PEPPER_VARIABLE, data.keyPepper);
    // A cancel with nothing in flight ends the job in the API (its event and delivery, as the worker's).
    allowEndingJobs(apiFn, { data, bucket: this.bucket, queues: this.queues, prefixes: ['uploads/', 'jobs/'] });
    // A job's own webhook (docs/jobs.md): its item put beside the new job (its secret sealed under the
    // monitors' key: GenerateDataKey only, it never opens one), and its deliveries read for GET /v1/jobs/{id}.
    allowPutsOf(apiFn, data.events, JOB_WEBHOOK_ATTRIBUTES);
    allowItems(apiFn, data.events, ['dynamodb:Query'], [teamPk('')]);
    apiFn.addEnvironment(MONITOR_KMS_KEY_VARIABLE, props.monitorKey.keyArn);
    props.monitorKey.grant(apiFn, 'kms:GenerateDataKey');

    // The engine: the worker's role is named here (in this region, under this stack's name) so that the
    // API names it as a principal to trust without reading it back from the nested stack.
    const workerRoleName = `${Stack.of(this).stackName.slice(0, 30)}-${Aws.REGION}-jobs-worker`;
    this.engine = new JobsEngine(this, 'JobsEngine', { data, environment, operations, bucket: this.bucket, queues: this.queues, workerRoleName });
    const workerRoleArn = Stack.of(this).formatArn({ service: 'iam', region: '', resource: 'role', resourceName: workerRoleName });
    // The principals a customer's role trusts (GET /v1/jobs/destination): the two roles that may end a job.
    apiFn.addEnvironment('JOBS_DELIVERY_PRINCIPALS', Fn.join(',', [workerRoleArn, apiFn.role!.roleArn]));
    this.apiFn = apiFn;

    // One invoke permission for the function's every route (scoped to this API, made beside the API), not one per method.
    const integration = new apigateway.LambdaIntegration(apiFn, { proxy: true, scopePermissionToMethod: false });
    for (const route of JOB_ROUTES) {
      const method = api.root.resourceForPath(route.path).addMethod(route.method, integration, { authorizationType: apigateway.AuthorizationType.NONE, apiKeyRequired: false });
      acknowledge(method, 'AwsSolutions-APIG4', "Authorised by the team's API key or the dashboard session, checked by the function for the caller's own team (as the account API).");
      acknowledge(method, 'AwsSolutions-COG4', 'API keys and dashboard sessions, not Cognito, are the credentials of this API.');
    }
  }
}

/**
 * The bulk jobs' engine, a nested stack (CloudFormation's 500 resources a stack: docs/jobs.md,
 * "CloudFormation"): the input worker, its role, policy and log group, and one event source per
 * platform's input queue, whose maximum concurrency bounds that platform's inputs in flight over every
 * job. It consumes what the root stack gives it (JobsEngineProps, each a parameter) and gives nothing
 * back: no output.
 */
export class JobsEngine extends NestedStack {
  readonly workerFn: NodejsFunction;

  constructor(scope: Construct, id: string, props: JobsEngineProps) {
    super(scope, id, { description: 'Social-data API: the bulk jobs engine (the input worker and its event sources)' });
    // The input worker: its jobs' items and files; the operations' functions; the next inputs to the queues.
    const workerFn = nodeFunction(this, 'JobsWorker', 'functions/jobs/worker.ts', { description: "Bulk jobs: one input's pages through the operation's function, its part file; the result files at the end", memorySize: 1024, timeout: JOB_WORKER_TIMEOUT, environment: props.environment, roleName: props.workerRoleName });
    allowEndingJobs(workerFn, { ...props, prefixes: ['jobs/'] });
    allowInvoke(workerFn, props.operations.map(({ fn }) => fn));
    // Each platform's queue, its own event source: at most JOB_CONCURRENCY × JOB_BATCH inputs of that platform at once.
    for (const { q } of props.queues) workerFn.addEventSource(new SqsEventSource(q, { batchSize: JOB_BATCH, maxConcurrency: JOB_CONCURRENCY, reportBatchItemFailures: true }));
    this.workerFn = workerFn;
  }
}

/**
 * What both functions that may end a job (the worker; the API for a cancel with nothing in flight)
 * hold: the jobs table's team and job partitions, the job's team events, their own prefixes of the
 * results bucket, the data key (SSE-KMS objects and tables), sending to the input queues, and the
 * delivery to a customer's bucket (docs/jobs.md, "Your own bucket").
 */
function allowEndingJobs(fn: NodejsFunction, on: Pick<JobsEngineProps, 'data' | 'bucket' | 'queues'> & { prefixes: string[] }): void {
  const { data, bucket } = on;
  allowItems(fn, data.jobs, ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem', 'dynamodb:ConditionCheckItem'], [teamPk(''), jobPk('')]);
  // The job's events (job.succeeded, job.failed, job.paused) put in its state's transaction: team events only.
  allowTeamEventPuts(fn, data.events);
  // Result files are multipart uploads (shared/jobs/files.ts): one that fails is aborted, its parts removed at once.
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:AbortMultipartUpload', 's3:GetObject', 's3:PutObject'], resources: on.prefixes.map((p) => bucket.arnForObjects(`${p}*`)) }));
  // The wildcards of objects under a prefix, as cdk-nag names them: the bucket's logical id in its own
  // stack; in the nested one, the parameter CDK makes for the bucket's ARN ("referenceto" + the
  // bucket's unique id + "Arn": test/infra/nag.ts fails if that changes).
  const cfnBucket = bucket.node.defaultChild as s3.CfnBucket;
  const bucketArn = Stack.of(fn) === Stack.of(bucket) ? `${Stack.of(bucket).resolve(cfnBucket.logicalId) as string}.Arn` : `referenceto${Names.nodeUniqueId(cfnBucket.node)}Arn`;
  for (const p of on.prefixes) acknowledge(fn.role!, `AwsSolutions-IAM5[Resource::<${bucketArn}>/${p}*]`, "Objects under the function's own prefix of the results bucket: one object per input and per result file, named at run time.");
  if (data.dataKey) fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['kms:Decrypt', 'kms:GenerateDataKey'], resources: [data.dataKey.keyArn] }));
  for (const { q } of on.queues) q.grantSendMessages(fn);
  // AssumeRole on a role of another account only. AWS lets the caller's policy condition on the
  // external ID and session name it sends (sts:ExternalId, sts:RoleSessionName), not on what the target
  // role's trust policy requires: that check is the customer's trust policy (their sts:ExternalId
  // condition). The narrowest statement that works: any role ARN, only with one of our external IDs and
  // a session named after a job, and an explicit deny on every role of this account (a role here
  // trusting the account would otherwise do).
  const { account, partition } = Stack.of(fn);
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      sid: 'AssumeCustomerDestinationRole',
      actions: ['sts:AssumeRole'],
      resources: [`arn:${partition}:iam::*:role/*`],
      conditions: { StringLike: { 'sts:ExternalId': `${EXTERNAL_ID_PREFIX}*`, 'sts:RoleSessionName': `${SESSION_PREFIX}job_*` } },
    }),
  );
  fn.addToRolePolicy(new iam.PolicyStatement({ sid: 'NoRoleOfThisAccount', effect: iam.Effect.DENY, actions: ['sts:AssumeRole'], resources: [`arn:${partition}:iam::${account}:role/*`] }));
  acknowledge(fn.role!, 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:iam::*:role/*]', "A customer's own role in their account, named per job: only with one of the teams' external IDs and a job's session name; never a role of this account (explicit deny).");
}
