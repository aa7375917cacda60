import { Duration } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { TEAM_INDEX, keyPk, memberPk, sessionPk, teamPk } from '../shared/db/tables';
import { MONITOR_ROUTES } from '../shared/monitors/routes';
import { POLLS_PER_PLATFORM, POLL_BATCH, isMonitorable } from '../shared/monitors/kinds';
import { DELIVERY_DUE, MONITOR_DUE } from '../shared/monitors/store';
import type { Operation } from '../shared/operations';
import { MONITOR_KEY_VARIABLE } from '../shared/runtime/secrets';

/**
 * Monitors on AWS (docs/monitors.md): the /v1/monitors API, a one-minute tick (EventBridge rule)
 * that fans due monitors out to their platform's poll queue and due deliveries to the delivery
 * queue, and two SQS-driven workers: the poll worker reads every platform's queue through an event
 * source of its own, each with its maximum concurrency (a platform's slow upstream holds only its
 * own polls), the delivery worker the delivery queue. Every queue has a dead-letter queue. Least privilege:
 * the poll worker may invoke only the monitorable operations' functions; every role touches only
 * team partitions (and the key, session and due-index partitions it needs).
 */
export interface MonitorDeps {
  scope: Construct;
  api: apigateway.RestApi;
  accounts: dynamodb.Table;
  environment: Record<string, string>;
  operations: { op: Operation; fn: NodejsFunction }[];
  nodeFunction: (id: string, entry: string, props: { description: string; memorySize: number; timeout: Duration; environment: Record<string, string> }) => NodejsFunction;
  allowItems: (fn: lambda.IFunction, actions: string[], prefixes: readonly string[]) => void;
  withPepper: (fn: lambda.Function) => void;
  /** A random secret generated once per deployment, retained (infra/stack.ts). */
  generatedSecret: (id: string, description: string, whyNotRotated: string) => secretsmanager.ISecret;
  /** The customer-managed key of the tables, when there is one (context kmsKey). */
  grantData: (fn: lambda.IFunction) => void;
  acknowledge: (scope: Construct, rule: string, reason: string) => void;
}

/**
 * Poll worker invocations at once per platform (each runs POLL_BATCH polls side by side: so
 * POLLS_PER_PLATFORM polls in flight per platform) and delivery worker invocations at once.
 * 10,000 monitors at 5 min are 33 polls/s of ~1.5 s each, about 50 in flight over all platforms
 * (docs/monitors.md): 25 per platform leaves room for one platform holding half of them.
 */
export const POLL_CONCURRENCY = POLLS_PER_PLATFORM / POLL_BATCH;
export const DELIVERY_CONCURRENCY = 20;

/** `microblog-a` -> `MicroblogA`: a platform's part of a construct id. */
export const pascalCase = (name: string) => name.replace(/(^|-)(\w)/g, (_m, _dash, c: string) => c.toUpperCase());

export function addMonitors(d: MonitorDeps) {
  const { scope, acknowledge } = d;
  const deadLetters = (id: string) => {
    const dlq = new sqs.Queue(scope, id, { enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED, retentionPeriod: Duration.days(14) });
    acknowledge(dlq, 'AwsSolutions-SQS3', 'This is a dead-letter queue itself.');
    return dlq;
  };
  // AWS's advice for an SQS event source: a visibility timeout of at least six times the function's timeout.
  const queue = (id: string, dlq: sqs.IQueue, workerTimeout: Duration) =>
    new sqs.Queue(scope, id, { enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED, visibilityTimeout: Duration.seconds(6 * workerTimeout.toSeconds()), deadLetterQueue: { queue: dlq, maxReceiveCount: 5 } });
  const POLL_TIMEOUT = Duration.seconds(60);
  const DELIVERY_TIMEOUT = Duration.seconds(30);
  const monitorable = d.operations.filter(({ op }) => isMonitorable(op.id));
  const pollDlq = deadLetters('MonitorPollDlq');
  const platforms = [...new Set(monitorable.map(({ op }) => op.platform))];
  const pollQueues = platforms.map((platform) => ({ platform, q: queue(`MonitorPollQueue${pascalCase(platform)}`, pollDlq, POLL_TIMEOUT) }));
  const deliveryDlq = deadLetters('MonitorDeliveryDlq');
  const deliveryQueue = queue('MonitorDeliveryQueue', deliveryDlq, DELIVERY_TIMEOUT);
  const env = {
    ...d.environment,
    MONITOR_POLL_QUEUES: JSON.stringify(Object.fromEntries(pollQueues.map(({ platform, q }) => [platform, q.queueUrl]))),
    MONITOR_DELIVERY_QUEUE_URL: deliveryQueue.queueUrl,
    MONITOR_FUNCTIONS: JSON.stringify(Object.fromEntries(monitorable.map(({ op, fn }) => [op.id, fn.functionName]))),
  };
  const dueIndexQuery = (fn: lambda.IFunction) =>
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [`${d.accounts.tableArn}/index/${TEAM_INDEX.name}`],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [MONITOR_DUE, DELIVERY_DUE] } },
      }),
    );
  const TEAM = teamPk('');
  // The key the signing secrets are stored encrypted under (shared/monitors/secret.ts): the API seals, the delivery worker opens.
  const monitorKey = d.generatedSecret('MonitorKey', `Key the monitors' webhook signing secrets are stored encrypted under (${MONITOR_KEY_VARIABLE})`,
    "A new key would make every stored signing secret unreadable (every monitor's deliveries would stop), so it is not rotated on a schedule; rotate a monitor's own secret instead (POST /v1/monitors/{id}/rotate-secret).");
  const withMonitorKey = (fn: lambda.Function) => {
    fn.addEnvironment(MONITOR_KEY_VARIABLE, monitorKey.secretArn);
    monitorKey.grantRead(fn);
  };

  // The API: monitor and delivery items in the caller's team partition; the key (as the authorizer reads it) or the session.
  const apiFn = d.nodeFunction('MonitorsApi', 'functions/monitors.ts', { description: 'The monitors API: /v1/monitors/* (API key or dashboard session)', memorySize: 512, timeout: Duration.seconds(15), environment: d.environment });
  // A key with its team's balance in one BatchGetItem (shared/auth/keys.ts): IAM's LeadingKeys holds every key a batch asks, so one statement names both.
  d.allowItems(apiFn, ['dynamodb:GetItem', 'dynamodb:BatchGetItem'], [keyPk(''), TEAM, sessionPk(''), memberPk('')]);
  d.allowItems(apiFn, ['dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'], [TEAM]);
  d.allowItems(apiFn, ['dynamodb:UpdateItem'], [keyPk(''), sessionPk('')]);
  // The pepper: it checks API keys and sessions itself.
  d.withPepper(apiFn);
  withMonitorKey(apiFn);
  d.grantData(apiFn);
  const integration = new apigateway.LambdaIntegration(apiFn, { proxy: true, allowTestInvoke: false });
  for (const route of MONITOR_ROUTES) {
    const method = d.api.root.resourceForPath(route.path).addMethod(route.method, integration, { authorizationType: apigateway.AuthorizationType.NONE, apiKeyRequired: false });
    acknowledge(method, 'AwsSolutions-APIG4', "Authorised by the team's API key or the dashboard session, checked by the function for the caller's own team (as the account API).");
    acknowledge(method, 'AwsSolutions-COG4', 'API keys and dashboard sessions, not Cognito, are the credentials of this API.');
  }

  // The tick: reads the two due partitions, sends to the queues.
  const tickFn = d.nodeFunction('MonitorsTick', 'functions/monitors/tick.ts', { description: 'Monitors: every minute, due polls and deliveries to their queues', memorySize: 256, timeout: Duration.seconds(50), environment: env });
  dueIndexQuery(tickFn);
  d.grantData(tickFn);
  for (const { q } of pollQueues) q.grantSendMessages(tickFn);
  deliveryQueue.grantSendMessages(tickFn);
  new events.Rule(scope, 'MonitorsTickRule', { schedule: events.Schedule.rate(Duration.minutes(1)), targets: [new targets.LambdaFunction(tickFn)] });

  // The poll worker: reads and writes its monitor and deliveries; invokes only the monitorable operations' functions.
  const pollFn = d.nodeFunction('MonitorsPoll', 'functions/monitors/poll.ts', { description: 'Monitors: polls through the operation function, events queued', memorySize: 512, timeout: POLL_TIMEOUT, environment: env });
  d.allowItems(pollFn, ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], [TEAM]);
  d.grantData(pollFn);
  // The unqualified functions only (grantInvoke would add every version, `:*`).
  pollFn.addToRolePolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: monitorable.map(({ fn }) => fn.functionArn) }));
  deliveryQueue.grantSendMessages(pollFn);
  for (const { q } of pollQueues) pollFn.addEventSource(new SqsEventSource(q, { batchSize: POLL_BATCH, maxConcurrency: POLL_CONCURRENCY, reportBatchItemFailures: true }));

  // The delivery worker: its deliveries and monitors; sends retries back on its own queue.
  const deliverFn = d.nodeFunction('MonitorsDeliver', 'functions/monitors/deliver.ts', { description: 'Monitors: one signed webhook attempt per message', memorySize: 256, timeout: DELIVERY_TIMEOUT, environment: env });
  d.allowItems(deliverFn, ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], [TEAM]);
  withMonitorKey(deliverFn);
  d.grantData(deliverFn);
  deliveryQueue.grantSendMessages(deliverFn);
  deliverFn.addEventSource(new SqsEventSource(deliveryQueue, { batchSize: 10, maxConcurrency: DELIVERY_CONCURRENCY, reportBatchItemFailures: true }));

  return { pollQueues, pollDlq, deliveryQueue, deliveryDlq: deliveryDlq, functions: { apiFn, tickFn, pollFn, deliverFn } };
}
