import { CfnOutput, Stack, type CfnElement, type StackProps } from 'aws-cdk-lib/core';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { Construct } from 'constructs';
import { Account } from './account';
import { Data } from './data';
import { PublicDocuments } from './documents';
import { Edge } from './edge';
import { allowInvoke } from './iam';
import { Jobs } from './jobs';
import { Monitors } from './monitors';
import { Operations } from './operations';
import { StackPart } from './part';
import { readSettings } from './settings';
import { OperationalStatus } from './status';

export { TEAM_BURST_LIMIT, TEAM_RATE_LIMIT, errorTemplate } from './edge';
export { AUTHORIZER_KEY_ATTRIBUTES, SCRAPER_DENIED_ACCOUNT_ACTIONS, TEAM_ATTRIBUTES_NO_SCRAPER_WRITES } from './iam';
export { functionId } from './operations';
export { STAGE_BURST_LIMIT, STAGE_RATE_LIMIT } from './settings';

export const SERVICE_NAME = 'social-data-api';

/**
 * The whole service in one stack, composed of its parts, each a construct of its own file that gets
 * the resources it needs as props (a part never calls back into another):
 *
 *   Data        the four DynamoDB tables, the customer-managed key (context kmsKey), the key pepper
 *   Edge        the REST API, its stage, the per-team usage plan, gateway responses, the web ACL, per-method throttles
 *   Operations  one function per routed operation (shared/operations.ts), the REQUEST authorizer, their routes
 *   Documents   the OpenAPI document, /llms.txt and the MCP server
 *   Account     the dashboard and its account API
 *   Monitors    the monitors API, its tick, queues and workers
 *   Jobs        the bulk jobs' routes, API function, results bucket and input queues; the worker a nested stack (docs/jobs.md)
 *   Status      GET /v1/status, the canaries, the alarms and the CloudWatch dashboard
 *
 * What a deployment chooses is read once from the context (infra/settings.ts); the functions are
 * built by infra/node-function.ts, their rights by infra/iam.ts. A new part (events, bulk jobs) is
 * one more file and one more line below. docs/deployment.md describes what the stack builds.
 */
export class SocialDataApiStack extends Stack {
  readonly api: apigateway.RestApi;
  readonly usagePlan: apigateway.UsagePlan;
  readonly accounts: dynamodb.Table;
  readonly cache: dynamodb.Table;
  /** The customer-managed key of the tables and secrets (context kmsKey=true), else AWS-owned keys. */
  readonly dataKey?: kms.Key;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const settings = readSettings(this);
    const data = new Data(this, 'Data', { kmsKey: settings.kmsKey });
    const environment: Record<string, string> = {
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      ACCOUNTS_TABLE: data.accounts.tableName,
      CACHE_TABLE: data.cache.tableName,
      EVENTS_TABLE: data.events.tableName,
      // Writers and the status page's reader must agree on it (shared/status/outcomes.ts).
      OUTCOME_SHARDS: String(settings.outcomeShards),
    };
    const edge = new Edge(this, 'Edge', settings);
    const { api } = edge;
    const operations = new Operations(this, 'Operations', { ...settings, api, data, environment });
    const documents = new PublicDocuments(this, 'Documents', {
      api,
      authorizer: operations.authorizer,
      operationEnvironment: operations.everyOperation,
      operationAccess: operations.access,
      publicUrl: edge.publicUrl,
    });
    const account = new Account(this, 'Account', { api, data, environment, cursors: operations.access, ...(settings.dashboardOrigin ? { dashboardOrigin: settings.dashboardOrigin } : {}) });
    const monitors = new Monitors(this, 'Monitors', { api, data, environment, serviceName: SERVICE_NAME, operations: operations.functions });
    const jobs = new Jobs(this, 'Jobs', { api, data, environment, operations: operations.functions, monitorKey: monitors.monitorKey });
    // The MCP monitor tools invoke the monitors API's function with the caller's key (functions/mcp.ts):
    // that function alone, never the monitor items' writes themselves for a function that scrapes.
    documents.mcp.addEnvironment('MONITORS_FUNCTION', monitors.apiFn.functionName);
    // The MCP job tools invoke the jobs API's function the same way.
    documents.mcp.addEnvironment('JOBS_FUNCTION', jobs.apiFn.functionName);
    // The Jobs page PUTs input files to, and reads errors from, the results bucket's pre-signed URLs: its CSP's connect-src names that origin.
    account.dashboardFn.addEnvironment('JOBS_BUCKET', jobs.bucket.bucketName);
    allowInvoke(documents.mcp, [monitors.apiFn, jobs.apiFn]);
    new OperationalStatus(this, 'Status', {
      serviceName: SERVICE_NAME,
      api,
      accounts: data.accounts,
      cache: data.cache,
      baseEnvironment: environment,
      operationEnvironment: operations.everyOperation,
      operationAccess: operations.access,
      operations: operations.functions,
      settings: settings.status,
      alarms: [monitors.keyAlarm],
    });

    new CfnOutput(this, 'ApiUrl', { value: api.url, description: 'Base URL; operation paths start with /v1' });
    new CfnOutput(this, 'UsagePlanId', { value: edge.usagePlan.usagePlanId, description: 'USAGE_PLAN_ID for the admin CLI' });
    new CfnOutput(this, 'AccountsTableName', { value: data.accounts.tableName, description: 'ACCOUNTS_TABLE' });
    new CfnOutput(this, 'CacheTableName', { value: data.cache.tableName, description: 'CACHE_TABLE' });
    new CfnOutput(this, 'JobsBucketName', { value: jobs.bucket.bucketName, description: 'The bulk jobs results bucket (objects kept 7 days)' });
    new CfnOutput(this, 'EventsTableName', { value: data.events.tableName, description: 'EVENTS_TABLE' });
    new CfnOutput(this, 'KeyPepperSecretArn', { value: data.keyPepper.secretArn, description: 'KEY_PEPPER_SECRET_ARN for the admin CLI (keys it creates are hashed with the pepper)' });

    this.api = api;
    this.usagePlan = edge.usagePlan;
    this.accounts = data.accounts;
    this.cache = data.cache;
    if (data.dataKey) this.dataKey = data.dataKey;
  }

  /**
   * The parts group code, not names (infra/part.ts): a resource's logical ID is CDK's own for the
   * path without the parts' ids, the one it would have directly under the stack.
   */
  protected override allocateLogicalId(element: CfnElement): string {
    const scopes = element.node.scopes.filter((scope) => !(scope instanceof StackPart));
    return super.allocateLogicalId({ node: { scopes }, stack: element.stack } as unknown as CfnElement);
  }
}
