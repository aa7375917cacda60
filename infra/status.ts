import { Duration } from 'aws-cdk-lib/core';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cwActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';
import { outcomeHourKey } from '../shared/db/tables';
import { ERROR_STATUS } from '../shared/http/errors';
import { routedOperations, type Operation } from '../shared/operations';
import { STATUS_PATH } from '../shared/status/page';
import { acknowledge } from './acknowledge';
import { allow, allowOperationSecrets, type OperationAccess } from './iam';
import { nodeFunction } from './node-function';
import { METRICS_NAMESPACE } from '../shared/runtime/metrics';
import { StackPart } from './part';
import type { StatusSettings } from './settings';

export { CANARY_INTERVAL_MINUTES } from './settings';

const ALARM_MIN_ANSWERS = 5;

export interface OperationalStatusProps {
  serviceName: string;
  api: apigateway.RestApi;
  accounts: dynamodb.ITable;
  cache: dynamodb.ITable;
  /** The environment an operation's function has (the canary runs every operation's scraper). */
  operationEnvironment: Record<string, string>;
  /** What running an operation's scrape reads at cold start (the cursor key, the proxy URL). */
  operationAccess: OperationAccess;
  baseEnvironment: Record<string, string>;
  operations: { op: Operation; fn: NodejsFunction }[];
  settings: StatusSettings;
  /** Alarms of other parts the topic notifies too (the monitors' key alarm). */
  alarms?: cloudwatch.Alarm[];
}

/**
 * Operational truth in the stack (issue 20): GET /v1/status (public), the scheduled canaries, the
 * alarms and their SNS topic, and the CloudWatch dashboard. Its settings (infra/settings.ts), from the context:
 *   canary                      false: no canary function, schedule or canary alarm (default on)
 *   canaryIntervalMinutes       how often the canaries run (default 10)
 *   canaryInputs                JSON {"<operation>": {…query}} over the defaults of shared/status/canary-inputs.ts
 *   canaryFailuresToAlarm       consecutive failed canary runs of one operation that raise its alarm (default 3)
 *   errorSharePercentToAlarm    share of EXTRACTION_FAILED + UPSTREAM_BLOCKED answers of one operation
 *                               over 15 minutes (with at least 5 answers) that raises its alarm (default 20)
 *   alarmEmail                  an e-mail address subscribed to the alarm topic
 */
export class OperationalStatus extends StackPart {
  readonly topic: sns.Topic;
  readonly dashboard: cloudwatch.Dashboard;
  readonly statusFn: NodejsFunction;

  constructor(scope: Construct, id: string, props: OperationalStatusProps) {
    super(scope, id);
    const { api, cache, settings } = props;
    // GET /v1/status: reads the counters and canary records of the cache table, cached 30 s.
    const statusFn = (this.statusFn = nodeFunction(this, 'Status', 'functions/status.ts', {
      description: `GET ${STATUS_PATH}: each operation's state, figures and last canary`,
      memorySize: 512,
      timeout: Duration.seconds(10),
      // With the source variables of the operations whose source is configuration (citygame): one the
      // deployment names none for is 'not configured'.
      environment: { ...props.baseEnvironment, ...sourceVariables(props.operationEnvironment), STATUS_MAX_AGE_S: '30' },
    }));
    allow(statusFn, cache, 'dynamodb:BatchGetItem', 'dynamodb:GetItem');
    // Its one write: a finished hour's outcome counts, summed once into that hour's item (shared/status/outcomes.ts).
    statusFn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:PutItem'],
        resources: [cache.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [outcomeHourKey('*', '*')] } },
      }),
    );
    const method = api.root.resourceForPath(STATUS_PATH).addMethod('GET', new apigateway.LambdaIntegration(statusFn, { proxy: true, allowTestInvoke: false }), {
      authorizationType: apigateway.AuthorizationType.NONE,
      apiKeyRequired: false,
    });
    acknowledge(method, 'AwsSolutions-APIG4', 'The public status page: per-operation figures of the whole service, no team data, no credits; throttled like the other unauthenticated routes.');

    const topic = (this.topic = new sns.Topic(this, 'StatusAlarms', { displayName: 'social-data-api status alarms', enforceSSL: true }));
    acknowledge(topic, 'AwsSolutions-SNS2', 'Alarm notifications carry no data of any team; CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed SNS key.');
    if (settings.alarmEmail) topic.addSubscription(new subscriptions.EmailSubscription(settings.alarmEmail));
    const notify = new cwActions.SnsAction(topic);
    for (const alarm of props.alarms ?? []) alarm.addAlarmAction(notify);

    const metric = (name: string, dimensions: Record<string, string>, statistic: string, period: Duration, label?: string) =>
      new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: name, dimensionsMap: { service: props.serviceName, ...dimensions }, statistic, period, ...(label ? { label } : {}) });

    const interval = settings.canaryIntervalMinutes;
    if (settings.canary) {
      const canaryFn = nodeFunction(this, 'Canary', 'functions/canary.ts', {
        description: `The canaries: every routed operation once with a known-good input, every ${interval} minutes`,
        // Some scrapers parse HTML; the runs go four at a time, each within the scrape deadline.
        memorySize: 1024,
        timeout: Duration.minutes(3),
        environment: { ...props.operationEnvironment, ...(settings.canaryInputs ? { CANARY_INPUTS: settings.canaryInputs } : {}) },
      });
      // The canary records (PutItem) and the scrapers' shared upstream credentials; no team, no ledger.
      allow(canaryFn, cache, 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem');
      allowOperationSecrets(canaryFn, props.operationAccess);
      new events.Rule(this, 'CanarySchedule', {
        description: `Runs the canaries every ${interval} minutes`,
        schedule: events.Schedule.rate(Duration.minutes(interval)),
        targets: [new targets.LambdaFunction(canaryFn, { retryAttempts: 0 })],
      });
    }

    const sharePercent = settings.errorSharePercentToAlarm;
    const widgets: cloudwatch.IWidget[][] = [];
    const errorCodes = Object.keys(ERROR_STATUS);
    const window = Duration.minutes(15);
    for (const { op } of props.operations) {
      const dims = { operation: op.id };
      const id = op.id.replace(/[^a-zA-Z0-9]/g, '');
      if (settings.canary) {
        const failuresToAlarm = settings.canaryFailuresToAlarm;
        new cloudwatch.Alarm(this, `CanaryFailing${id}`, {
          alarmDescription: `${op.id}: the canary failed ${failuresToAlarm} runs in a row`,
          metric: metric('canarySuccess', dims, 'Maximum', Duration.minutes(interval)),
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
          evaluationPeriods: failuresToAlarm,
          datapointsToAlarm: failuresToAlarm,
          treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        }).addAlarmAction(notify);
      }
      const share = new cloudwatch.MathExpression({
        expression: `IF(answers >= ${ALARM_MIN_ANSWERS}, 100 * (FILL(extraction, 0) + FILL(blocked, 0)) / answers, 0)`,
        usingMetrics: {
          answers: metric('answers', dims, 'Sum', window),
          extraction: metric('requests', { ...dims, outcome: 'EXTRACTION_FAILED' }, 'Sum', window),
          blocked: metric('requests', { ...dims, outcome: 'UPSTREAM_BLOCKED' }, 'Sum', window),
        },
        period: window,
        label: 'EXTRACTION_FAILED + UPSTREAM_BLOCKED, % of answers',
      });
      new cloudwatch.Alarm(this, `ErrorShare${id}`, {
        alarmDescription: `${op.id}: more than ${sharePercent}% of the answers of 15 minutes were EXTRACTION_FAILED or UPSTREAM_BLOCKED`,
        metric: share,
        threshold: sharePercent,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }).addAlarmAction(notify);

      // The dashboard's row for this operation.
      const minute = Duration.minutes(1);
      widgets.push([
        new cloudwatch.GraphWidget({ title: `${op.id}: requests`, left: [metric('answers', dims, 'Sum', minute, 'answers')], width: 6 }),
        new cloudwatch.GraphWidget({
          title: `${op.id}: answers by outcome`,
          left: ['live', 'cache_hit', ...errorCodes].map((outcome) => metric('requests', { ...dims, outcome }, 'Sum', minute, outcome)),
          stacked: true,
          width: 6,
        }),
        new cloudwatch.GraphWidget({ title: `${op.id}: p95 latency of live answers (ms)`, left: [metric('latency', { ...dims, outcome: 'live' }, 'p95', Duration.minutes(5), 'p95')], width: 6 }),
        new cloudwatch.GraphWidget({
          title: `${op.id}: canary`,
          left: [metric('canarySuccess', dims, 'Minimum', Duration.minutes(interval), 'success (1) / failure (0)')],
          right: [metric('canaryDrift', dims, 'Maximum', Duration.minutes(interval), 'drifted fields')],
          width: 6,
        }),
      ]);
    }

    const throttles = (table: dynamodb.ITable, name: string) =>
      new cloudwatch.MathExpression({
        expression: `${name}R + ${name}W`,
        usingMetrics: {
          [`${name}R`]: table.metric('ReadThrottleEvents', { statistic: 'Sum', period: Duration.minutes(1) }),
          [`${name}W`]: table.metric('WriteThrottleEvents', { statistic: 'Sum', period: Duration.minutes(1) }),
        },
        label: `${name} table`,
        period: Duration.minutes(1),
      });
    const dashboard = (this.dashboard = new cloudwatch.Dashboard(this, 'OperationsDashboard', { dashboardName: `${props.serviceName}-operations` }));
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Refunds that failed (a reserved credit left to the sweep of old reservations)',
        left: props.operations.map(({ op }) => metric('refundFailed', { operation: op.id }, 'Sum', Duration.minutes(5), op.id)),
        width: 8,
      }),
      new cloudwatch.GraphWidget({ title: 'DynamoDB throttled requests', left: [throttles(props.accounts, 'accounts'), throttles(cache, 'cache')], width: 8 }),
      new cloudwatch.GraphWidget({
        title: 'Answers not fully recorded (usage, history or status figures missing)',
        left: props.operations.map(({ op }) => metric('recordFailed', { operation: op.id }, 'Sum', Duration.minutes(5), op.id)),
        width: 8,
      }),
    );
    for (const row of widgets) dashboard.addWidgets(...row);
  }
}

/** The operations' source variables (Operation.sourceVariable) that the deployment sets. */
function sourceVariables(environment: Record<string, string>): Record<string, string> {
  const names = new Set(routedOperations().flatMap((op) => (op.sourceVariable ? [op.sourceVariable] : [])));
  return Object.fromEntries(Object.entries(environment).filter(([name]) => names.has(name)));
}
