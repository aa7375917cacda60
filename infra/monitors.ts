import { Duration, RemovalPolicy } from 'aws-cdk-lib/core';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { BROADCAST_PK, BROADCAST_SUBSCRIBERS, CREDIT_WATCH, DELIVERY_DUE, MONITOR_DUE, OUTCOME_PREFIX, STATUS_WATCH_KEY, canaryKey, keyPk, memberPk, sessionPk, teamPk } from '../shared/db/tables';
import { MONITOR_ROUTES } from '../shared/api/monitor-routes';
import { WEBHOOK_ROUTES } from '../shared/api/webhook-routes';
import { POLLS_PER_PLATFORM, POLL_BATCH, isMonitorable } from '../shared/api/monitor-kinds';
import { OWNER_ATTRIBUTES } from '../shared/monitors/owner';
import type { Operation } from '../shared/operations';
import { KEY_PEPPER_VARIABLE, MONITOR_KMS_KEY_VARIABLE } from '../shared/runtime/secrets';
import { METRICS_NAMESPACE } from '../shared/runtime/metrics';
import { MONITOR_KEY_METRIC } from '../shared/webhooks/secret';
import { acknowledge } from './acknowledge';
import { allowCreditEvents, allowDueIndexQuery, allowTeamEventPuts, allowInvoke, allowItems, allowTeamIndexAttributes, withSecret } from './iam';
import { nodeFunction } from './node-function';
import type { DataResources } from './operations';
import { StackPart } from './part';
import { deadLetterQueue, platformQueues, queueUrls, workQueue } from './queues';

export interface MonitorsProps {
  api: apigateway.RestApi;
  data: DataResources;
  /** What every function of the service has. */
  environment: Record<string, string>;
  /** The metrics' service dimension (the key alarm's). */
  serviceName: string;
  /** The operations' functions: the poll worker invokes the monitorable ones. */
  operations: { op: Operation; fn: NodejsFunction }[];
}

/**
 * Poll worker invocations at once per platform (each runs POLL_BATCH polls side by side: so
 * POLLS_PER_PLATFORM polls in flight per platform) and delivery worker invocations at once.
 * 10,000 monitors at 5 min are 33 polls/s of ~1.5 s each, about 50 in flight over all platforms
 * (docs/monitors.md): 25 per platform leaves room for one platform holding half of them.
 */
export const POLL_CONCURRENCY = POLLS_PER_PLATFORM / POLL_BATCH;
export const DELIVERY_CONCURRENCY = 20;

export { pascalCase } from './queues';

/**
 * Monitors on AWS (docs/monitors.md): the /v1/monitors API, a one-minute tick (EventBridge rule)
 * that fans due monitors out to their platform's poll queue and due deliveries to the delivery
 * queue, and two SQS-driven workers: the poll worker reads every platform's queue through an event
 * source of its own, each with its maximum concurrency (a platform's slow upstream holds only its
 * own polls), the delivery worker the delivery queue. Every queue has a dead-letter queue. Least privilege:
 * the poll worker may invoke only the monitorable operations' functions; the four write only the
 * events table (team partitions), and hold no write at all on the accounts table: the API reads a
 * key, a session and its member by GetItem, the poll worker reads whether a monitor's key or member
 * is still there (a few attributes of the team's listing), the tick and the delivery worker never
 * touch it. A poll's charge is the operation's own function's business (it runs under its own role).
 */
export class Monitors extends StackPart {
  readonly pollQueues: { platform: string; q: sqs.Queue }[];
  readonly pollDlq: sqs.Queue;
  readonly deliveryQueue: sqs.Queue;
  readonly deliveryDlq: sqs.Queue;
  /** The KMS key of the signing secrets (envelope encryption). */
  readonly monitorKey: kms.Key;
  /** Raised when a function could not reach monitorKey (the status part's topic notifies it). */
  readonly keyAlarm: cloudwatch.Alarm;
  /** The /v1/monitors API's function (the MCP monitor tools invoke it). */
  readonly apiFn: NodejsFunction;
  readonly tickFn: NodejsFunction;
  readonly pollFn: NodejsFunction;
  readonly deliverFn: NodejsFunction;

  constructor(scope: Construct, id: string, props: MonitorsProps) {
    super(scope, id);
    const { accounts, events: eventsTable, dataKey } = props.data;
    const POLL_TIMEOUT = Duration.seconds(60);
    const DELIVERY_TIMEOUT = Duration.seconds(30);
    const monitorable = props.operations.filter(({ op }) => isMonitorable(op.id));
    this.pollDlq = deadLetterQueue(this, 'MonitorPollDlq');
    const platforms = [...new Set(monitorable.map(({ op }) => op.platform))];
    this.pollQueues = platformQueues(this, 'MonitorPollQueue', platforms, this.pollDlq, POLL_TIMEOUT);
    this.deliveryDlq = deadLetterQueue(this, 'MonitorDeliveryDlq');
    this.deliveryQueue = workQueue(this, 'MonitorDeliveryQueue', this.deliveryDlq, DELIVERY_TIMEOUT);
    const env = {
      ...props.environment,
      MONITOR_POLL_QUEUES: queueUrls(this.pollQueues),
      MONITOR_DELIVERY_QUEUE_URL: this.deliveryQueue.queueUrl,
      MONITOR_FUNCTIONS: JSON.stringify(Object.fromEntries(monitorable.map(({ op, fn }) => [op.id, fn.functionName]))),
    };
    const TEAM = teamPk('');
    // The KMS key the signing secrets are sealed under by envelope encryption (shared/webhooks/secret.ts):
    // the API makes a data key (GenerateDataKey) and seals; the delivery worker opens (Decrypt). KMS
    // rotates its material yearly and keeps the old material for what it encrypted; retained with the
    // stack (every stored secret depends on it).
    this.monitorKey = new kms.Key(this, 'MonitorKey', { description: "Seals the monitors' webhook signing secrets (envelope encryption: MONITOR_KMS_KEY_ID)", enableKeyRotation: true, removalPolicy: RemovalPolicy.RETAIN });
    const monitorKey = this.monitorKey;
    // A function that cannot reach it refuses to seal or sign and counts monitorKeyUnavailable (shared/webhooks/secret.ts): alarmed at the first.
    this.keyAlarm = new cloudwatch.Alarm(this, 'MonitorKeyUnavailable', {
      alarmDescription: 'Monitors: a function could not reach the KMS key of the signing secrets (nothing sealed, opened or signed): deliveries and creates fail',
      metric: new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: MONITOR_KEY_METRIC, dimensionsMap: { service: props.serviceName }, statistic: 'Sum', period: Duration.minutes(5) }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    const grantData = (fn: lambda.IFunction) => void dataKey?.grantDecrypt(fn);

    // The API: monitor and delivery items in the caller's team partition of the events table; on
    // accounts, reading the key (GetItem only: authorize's readOnly, no lastUsedAt), or the session and its member.
    const apiFn = nodeFunction(this, 'MonitorsApi', 'functions/monitors.ts', { description: 'The monitors API: /v1/monitors/* (API key or dashboard session)', memorySize: 512, timeout: Duration.seconds(15), environment: props.environment });
    allowItems(apiFn, accounts, ['dynamodb:GetItem'], [keyPk(''), sessionPk(''), memberPk('')]);
    allowItems(apiFn, eventsTable, ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'], [TEAM]);
    // The pepper: it checks API keys and sessions itself.
    withSecret(apiFn, KEY_PEPPER_VARIABLE, props.data.keyPepper);
    apiFn.addEnvironment(MONITOR_KMS_KEY_VARIABLE, monitorKey.keyArn);
    monitorKey.grant(apiFn, 'kms:GenerateDataKey');
    grantData(apiFn);
    const integration = new apigateway.LambdaIntegration(apiFn, { proxy: true, scopePermissionToMethod: false });
    // /v1/webhooks/*: the team webhook endpoints (shared/monitors/webhooks-api.ts), served by the same function from the events table.
    for (const route of [...MONITOR_ROUTES, ...WEBHOOK_ROUTES]) {
      const method = props.api.root.resourceForPath(route.path).addMethod(route.method, integration, { authorizationType: apigateway.AuthorizationType.NONE, apiKeyRequired: false });
      acknowledge(method, 'AwsSolutions-APIG4', "Authorised by the team's API key or the dashboard session, checked by the function for the caller's own team (as the account API).");
      acknowledge(method, 'AwsSolutions-COG4', 'API keys and dashboard sessions, not Cognito, are the credentials of this API.');
    }

    // The tick: reads the two due partitions, sends to the queues.
    const tickFn = nodeFunction(this, 'MonitorsTick', 'functions/monitors/tick.ts', { description: 'Monitors: every minute, due polls and deliveries to their queues', memorySize: 256, timeout: Duration.seconds(50), environment: env });
    allowDueIndexQuery(tickFn, eventsTable, [MONITOR_DUE, DELIVERY_DUE, CREDIT_WATCH]);
    // The account events' safety nets (shared/webhooks/credits.ts, status-watch.ts): the watched teams'
    // balances read (credits only), their watch items and missing events written in the events table;
    // the public status read from the cache table's counters and canary records, announced as broadcast events.
    allowItems(tickFn, accounts, ['dynamodb:BatchGetItem'], [TEAM]);
    // In team partitions only what a charge's announcement may do (the watch item's alert attributes, items of a team event's attributes).
    allowCreditEvents(tickFn, eventsTable);
    allowTeamEventPuts(tickFn, eventsTable, [BROADCAST_PK]);
    allowItems(tickFn, eventsTable, ['dynamodb:GetItem', 'dynamodb:PutItem'], [STATUS_WATCH_KEY.pk]);
    allowItems(tickFn, props.data.cache, ['dynamodb:GetItem', 'dynamodb:BatchGetItem'], [OUTCOME_PREFIX, canaryKey('')]);
    grantData(tickFn);
    for (const { q } of this.pollQueues) q.grantSendMessages(tickFn);
    this.deliveryQueue.grantSendMessages(tickFn);
    new events.Rule(this, 'MonitorsTickRule', { schedule: events.Schedule.rate(Duration.minutes(1)), targets: [new targets.LambdaFunction(tickFn)] });

    // The poll worker: reads and writes its monitor and deliveries; invokes only the monitorable operations' functions.
    const pollFn = nodeFunction(this, 'MonitorsPoll', 'functions/monitors/poll.ts', { description: 'Monitors: polls through the operation function, events queued', memorySize: 512, timeout: POLL_TIMEOUT, environment: env });
    allowItems(pollFn, eventsTable, ['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], [TEAM]);
    // Whether the monitor's key is still live or its member still in the team (shared/monitors/owner.ts): a few attributes of the team's listing.
    allowTeamIndexAttributes(pollFn, accounts, OWNER_ATTRIBUTES);
    grantData(pollFn);
    allowInvoke(pollFn, monitorable.map(({ fn }) => fn));
    this.deliveryQueue.grantSendMessages(pollFn);
    for (const { q } of this.pollQueues) pollFn.addEventSource(new SqsEventSource(q, { batchSize: POLL_BATCH, maxConcurrency: POLL_CONCURRENCY, reportBatchItemFailures: true }));

    // The delivery worker: its deliveries and monitors; sends retries back on its own queue.
    const deliverFn = nodeFunction(this, 'MonitorsDeliver', 'functions/monitors/deliver.ts', { description: 'Monitors: one signed webhook attempt per message', memorySize: 256, timeout: DELIVERY_TIMEOUT, environment: env });
    allowItems(deliverFn, eventsTable, ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'], [TEAM]);
    // A team event expanded into its endpoints' deliveries: the team's endpoints (Query of its
    // partition), a broadcast one's over every team's (the due index's WHSUB listing), the event item retired.
    allowItems(deliverFn, eventsTable, ['dynamodb:Query'], [TEAM]);
    allowItems(deliverFn, eventsTable, ['dynamodb:GetItem', 'dynamodb:UpdateItem'], [BROADCAST_PK]);
    allowDueIndexQuery(deliverFn, eventsTable, [BROADCAST_SUBSCRIBERS]);
    deliverFn.addEnvironment(MONITOR_KMS_KEY_VARIABLE, monitorKey.keyArn);
    monitorKey.grant(deliverFn, 'kms:Decrypt');
    grantData(deliverFn);
    this.deliveryQueue.grantSendMessages(deliverFn);
    deliverFn.addEventSource(new SqsEventSource(this.deliveryQueue, { batchSize: 10, maxConcurrency: DELIVERY_CONCURRENCY, reportBatchItemFailures: true }));

    this.apiFn = apiFn;
    this.tickFn = tickFn;
    this.pollFn = pollFn;
    this.deliverFn = deliverFn;
  }
}
