import { Duration } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { TEAM_INDEX, keyPk, sessionPk, teamPk } from '../shared/db/tables';
import { MONITOR_ROUTES } from '../shared/monitors/api';
import { isMonitorable } from '../shared/monitors/kinds';
import { DELIVERY_DUE, MONITOR_DUE } from '../shared/monitors/store';
import type { Operation } from '../shared/operations';

/**
 * Monitors on AWS (docs/monitors.md): the /v1/monitors API, a one-minute tick (EventBridge rule)
 * that fans due monitors out to the poll queue and due deliveries to the delivery queue, and two
 * SQS-driven workers with bounded concurrency. Each queue has a dead-letter queue. Least privilege:
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
  /** The customer-managed key of the tables, when there is one (context kmsKey). */
  grantData: (fn: lambda.IFunction) => void;
  acknowledge: (scope: Construct, rule: string, reason: string) => void;
}

/**
 * Polls at once across all platforms (10,000 monitors at 5 min: 33 polls/s of ~1.5 s each, about 50
 * busy at once: docs/monitors.md); deliveries at once. Bounded: the platforms, receivers and the
 * account's Lambda concurrency.
 */
export const POLL_CONCURRENCY = 60;
export const DELIVERY_CONCURRENCY = 20;

export function addMonitors(d: MonitorDeps) {
  const { scope, acknowledge } = d;
  const queue = (id: string, visibility: Duration) => {
    const dlq = new sqs.Queue(scope, `${id}Dlq`, { enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED, retentionPeriod: Duration.days(14) });
    acknowledge(dlq, 'AwsSolutions-SQS3', 'This is the dead-letter queue itself.');
    const q = new sqs.Queue(scope, id, { enforceSSL: true, encryption: sqs.QueueEncryption.SQS_MANAGED, visibilityTimeout: visibility, deadLetterQueue: { queue: dlq, maxReceiveCount: 5 } });
    return { q, dlq };
  };
  const polls = queue('MonitorPollQueue', Duration.seconds(180));
  const deliveries = queue('MonitorDeliveryQueue', Duration.seconds(90));
  const monitorable = d.operations.filter(({ op }) => isMonitorable(op.id));
  const env = {
    ...d.environment,
    MONITOR_POLL_QUEUE_URL: polls.q.queueUrl,
    MONITOR_DELIVERY_QUEUE_URL: deliveries.q.queueUrl,
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

  // The API: monitor and delivery items in the caller's team partition; the key (as the authorizer reads it) or the session.
  const apiFn = d.nodeFunction('MonitorsApi', 'functions/monitors.ts', { description: 'The monitors API: /v1/monitors/* (API key or dashboard session)', memorySize: 512, timeout: Duration.seconds(15), environment: d.environment });
  d.allowItems(apiFn, ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:DeleteItem'], [TEAM]);
  d.allowItems(apiFn, ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'], [keyPk(''), sessionPk('')]);
  d.withPepper(apiFn);
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
  polls.q.grantSendMessages(tickFn);
  deliveries.q.grantSendMessages(tickFn);
  new events.Rule(scope, 'MonitorsTickRule', { schedule: events.Schedule.rate(Duration.minutes(1)), targets: [new targets.LambdaFunction(tickFn)] });

  // The poll worker: reads and writes its monitor and deliveries; invokes only the monitorable operations' functions.
  const pollFn = d.nodeFunction('MonitorsPoll', 'functions/monitors/poll.ts', { description: 'Monitors: one poll through the operation function, events queued', memorySize: 512, timeout: Duration.seconds(60), environment: env });
  d.allowItems(pollFn, ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], [TEAM]);
  d.withPepper(pollFn);
  d.grantData(pollFn);
  // The unqualified functions only (grantInvoke would add every version, `:*`).
  pollFn.addToRolePolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: monitorable.map(({ fn }) => fn.functionArn) }));
  deliveries.q.grantSendMessages(pollFn);
  pollFn.addEventSource(new SqsEventSource(polls.q, { batchSize: 5, maxConcurrency: POLL_CONCURRENCY, reportBatchItemFailures: true }));

  // The delivery worker: its deliveries and monitors; sends retries back on its own queue.
  const deliverFn = d.nodeFunction('MonitorsDeliver', 'functions/monitors/deliver.ts', { description: 'Monitors: one signed webhook attempt per message', memorySize: 256, timeout: Duration.seconds(30), environment: env });
  d.allowItems(deliverFn, ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], [TEAM]);
  d.withPepper(deliverFn);
  d.grantData(deliverFn);
  deliveries.q.grantSendMessages(deliverFn);
  deliverFn.addEventSource(new SqsEventSource(deliveries.q, { batchSize: 10, maxConcurrency: DELIVERY_CONCURRENCY, reportBatchItemFailures: true }));

  return { pollQueue: polls.q, pollDlq: polls.dlq, deliveryQueue: deliveries.q, deliveryDlq: deliveries.dlq, functions: { apiFn, tickFn, pollFn, deliverFn } };
}
