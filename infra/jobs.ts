import { Duration, Fn, NestedStack, RemovalPolicy, Stack } from 'aws-cdk-lib/core';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
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

/** What the jobs' nested stack is given by the root stack (each a parameter of its template). */
export type JobsEngineProps = Omit<JobsProps, 'api'>;

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
 * Bulk jobs on AWS (docs/jobs.md): the /v1/jobs routes here, on the root stack's REST API, and the
 * engine in a nested stack of its own (JobsEngine). The routes stay in the root stack, beside the
 * API: its one Deployment depends on them and hashes them into its logical ID (a changed route is
 * redeployed), which methods on an imported API in a nested stack (CDK's documented way) would not
 * get (docs/jobs.md, "CloudFormation").
 */
export class Jobs extends StackPart {
  readonly engine: JobsEngine;
  /** The jobs API's function (the MCP job tools invoke it). */
  readonly apiFn: NodejsFunction;
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: JobsProps) {
    super(scope, id);
    const { api, ...engineProps } = props;
    this.engine = new JobsEngine(this, 'JobsEngine', engineProps);
    this.apiFn = this.engine.apiFn;
    this.bucket = this.engine.bucket;
    // One invoke permission for the function's every route (scoped to this API, made beside the API), not one per method.
    const integration = new apigateway.LambdaIntegration(this.apiFn, { proxy: true, scopePermissionToMethod: false });
    for (const route of JOB_ROUTES) {
      const method = api.root.resourceForPath(route.path).addMethod(route.method, integration, { authorizationType: apigateway.AuthorizationType.NONE, apiKeyRequired: false });
      acknowledge(method, 'AwsSolutions-APIG4', "Authorised by the team's API key or the dashboard session, checked by the function for the caller's own team (as the account API).");
      acknowledge(method, 'AwsSolutions-COG4', 'API keys and dashboard sessions, not Cognito, are the credentials of this API.');
    }
  }
}

/**
 * The bulk jobs' engine, a nested stack (CloudFormation's 500 resources a stack: docs/jobs.md,
 * "CloudFormation"): the results bucket (encrypted, public access blocked, TLS only, every object gone
 * after 7 days), one SQS input queue per platform (a dead-letter queue for all) whose event source's
 * maximum concurrency bounds that platform's inputs in flight over every job, the input worker that
 * invokes the operations' own functions, and the jobs API's function. The jobs table stays in the
 * root stack (infra/data.ts). Least privilege: the API and the worker reach only the jobs table's team
 * and job partitions and their bucket prefixes (the API `uploads/` and `jobs/`, the worker `jobs/`
 * only) and send only to the input queues; the worker invokes only the operations' functions, receives
 * only from the input queues and holds nothing on the accounts table.
 */
export class JobsEngine extends NestedStack {
  readonly bucket: s3.Bucket;
  readonly queues: { platform: string; q: sqs.Queue }[];
  readonly dlq: sqs.Queue;
  readonly apiFn: NodejsFunction;
  readonly workerFn: NodejsFunction;

  constructor(scope: Construct, id: string, props: JobsEngineProps) {
    super(scope, id, { description: 'Social-data API: the bulk jobs engine (results bucket, input queues, worker, jobs API function)' });
    const { accounts, dataKey, jobs: table } = props.data;
    this.bucket = new s3.Bucket(this, 'ResultsBucket', {
      encryption: dataKey ? s3.BucketEncryption.KMS : s3.BucketEncryption.S3_MANAGED,
      ...(dataKey ? { encryptionKey: dataKey, bucketKeyEnabled: true } : {}),
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
    const platforms = [...new Set(props.operations.map(({ op }) => op.platform))];
    this.queues = platformQueues(this, 'JobInputQueue', platforms, this.dlq, JOB_WORKER_TIMEOUT);

    const env = {
      ...props.environment,
      JOBS_TABLE: table.tableName,
      JOBS_BUCKET: this.bucket.bucketName,
      JOB_QUEUES: queueUrls(this.queues),
      JOB_FUNCTIONS: JSON.stringify(Object.fromEntries(props.operations.map(({ op, fn }) => [op.id, fn.functionName]))),
    };
    const jobItems = [teamPk(''), jobPk('')];
    const JOB_ACTIONS = ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:BatchWriteItem', 'dynamodb:ConditionCheckItem'];
    const objects = (fn: lambda.IFunction, actions: string[], prefixes: string[]) =>
      fn.addToRolePolicy(new iam.PolicyStatement({ actions, resources: prefixes.map((p) => this.bucket.arnForObjects(`${p}*`)) }));
    const sendInputs = (fn: lambda.IFunction) => this.queues.forEach(({ q }) => q.grantSendMessages(fn));

    // The API: the caller's key or session (as the monitors API), the team's jobs, uploads and files.
    const apiFn = nodeFunction(this, 'JobsApi', 'functions/jobs.ts', { description: 'The bulk jobs API: /v1/jobs/* (API key or dashboard session)', memorySize: 1024, timeout: Duration.seconds(29), environment: env });
    allowItems(apiFn, accounts, ['dynamodb:GetItem', 'dynamodb:BatchGetItem'], [keyPk(''), teamPk(''), sessionPk(''), memberPk('')]);
    allowItems(apiFn, accounts, ['dynamodb:UpdateItem'], [keyPk(''), sessionPk('')]);
    allowItems(apiFn, table, JOB_ACTIONS, jobItems);
    // A cancel with nothing in flight ends the job in the API (its event, as the worker's).
    allowTeamEventPuts(apiFn, props.data.events);
    // A job's own webhook (docs/jobs.md): its item put beside the new job (its secret sealed under the
    // monitors' key: GenerateDataKey only, it never opens one), and its deliveries read for GET /v1/jobs/{id}.
    allowPutsOf(apiFn, props.data.events, JOB_WEBHOOK_ATTRIBUTES);
    allowItems(apiFn, props.data.events, ['dynamodb:Query'], [teamPk('')]);
    apiFn.addEnvironment(MONITOR_KMS_KEY_VARIABLE, props.monitorKey.keyArn);
    props.monitorKey.grant(apiFn, 'kms:GenerateDataKey');
    objects(apiFn, ['s3:GetObject', 's3:PutObject'], ['uploads/', 'jobs/']);
    withSecret(apiFn, KEY_PEPPER_VARIABLE, props.data.keyPepper);
    sendInputs(apiFn);
    // SSE-KMS objects and tables under the data key: exactly what S3 and DynamoDB ask of the caller.
    const useKey = (fn: lambda.IFunction) => dataKey && fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['kms:Decrypt', 'kms:GenerateDataKey'], resources: [dataKey.keyArn] }));
    useKey(apiFn);

    // The input worker: its jobs' items and files; the operations' functions; the next inputs to the queues.
    const workerFn = nodeFunction(this, 'JobsWorker', 'functions/jobs/worker.ts', { description: "Bulk jobs: one input's pages through the operation's function, its part file; the result files at the end", memorySize: 1024, timeout: JOB_WORKER_TIMEOUT, environment: env });
    allowItems(workerFn, table, JOB_ACTIONS, jobItems);
    // The job's events (job.succeeded, job.failed, job.paused) put in its state's transaction: team events only.
    allowTeamEventPuts(workerFn, props.data.events);
    objects(workerFn, ['s3:GetObject', 's3:PutObject'], ['jobs/']);
    allowInvoke(workerFn, props.operations.map(({ fn }) => fn));
    useKey(workerFn);
    sendInputs(workerFn);
    // Delivery to a customer's bucket (docs/jobs.md, "Your own bucket"), by whichever function ends the
    // job (the worker; the API for a cancel with nothing in flight): AssumeRole on a role of another
    // account only. AWS lets the caller's policy condition on the external ID and session name it sends
    // (sts:ExternalId, sts:RoleSessionName), not on what the target role's trust policy requires: that
    // check is the customer's trust policy (their sts:ExternalId condition). The narrowest statement that
    // works: any role ARN, only with one of our external IDs and a session named after a job, and an
    // explicit deny on every role of this account (a role here trusting the account would otherwise do).
    const account = Stack.of(this).account;
    const partition = Stack.of(this).partition;
    for (const fn of [workerFn, apiFn]) {
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
    // The principals a customer's role trusts (GET /v1/jobs/destination): the two roles that may end a job.
    apiFn.addEnvironment('JOBS_DELIVERY_PRINCIPALS', Fn.join(',', [workerFn.role!.roleArn, apiFn.role!.roleArn]));
    // Each platform's queue, its own event source: at most JOB_CONCURRENCY × JOB_BATCH inputs of that platform at once.
    for (const { q } of this.queues) workerFn.addEventSource(new SqsEventSource(q, { batchSize: JOB_BATCH, maxConcurrency: JOB_CONCURRENCY, reportBatchItemFailures: true }));
    // The wildcards of objects under a prefix, as cdk-nag names them (the bucket's logical id in each).
    const bucketLogicalId = Stack.of(this).resolve((this.bucket.node.defaultChild as s3.CfnBucket).logicalId) as string;
    const why = "Objects under the function's own prefix of the results bucket: one object per input and per result file, named at run time.";
    for (const [fn, prefixes] of [[apiFn, ['uploads/', 'jobs/']], [workerFn, ['jobs/']]] as const) {
      for (const p of prefixes) acknowledge(fn.role!, `AwsSolutions-IAM5[Resource::<${bucketLogicalId}.Arn>/${p}*]`, why);
    }
    this.apiFn = apiFn;
    this.workerFn = workerFn;
  }
}
