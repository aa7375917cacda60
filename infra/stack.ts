import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { DEFAULT_SCRAPE_DEADLINE_MS, RATE_LIMIT } from '../shared/runtime/config';
import { ACCOUNT_ROUTES, DASHBOARD_PATH } from '../shared/account/routes';
import { NOT_SIGNED_IN } from '../shared/account/context';
import { KEY_NAME_ATTRIBUTES } from '../shared/account/reads';
import { ACCOUNTS, CACHE, TEAM_INDEX, invitePk, keyPk, memberPk, sessionPk, teamPk, type TableDef } from '../shared/db/tables';
import { ERROR_STATUS, GATEWAY_MESSAGES, GATEWAY_REFUSAL_HEADERS, RETRY_AFTER_S, type ErrorCode } from '../shared/http/errors';
import { LLMS_PATH, MCP_METHODS, MCP_PATH } from '../shared/mcp/routes';
import { OPENAPI_ROUTE } from '../shared/public/openapi-document';
import { configuredBase } from '../shared/public/llms-txt';
import { handlerFile, routedOperations, type Operation } from '../shared/operations';
import { FIELDS_VARIABLE, SOURCE_URL_VARIABLE, parseSource } from '../shared/platforms/citygame/source';
import { KEY_PEPPER_VARIABLE } from '../shared/runtime/secrets';
import { ROUTE_GROUPS, groupOf, groupScope, methodShare, openPaths, routesNeeding, waf } from './edge';
import { addOperationalStatus } from './status';
import { addMonitors } from './monitors';

/**
 * The whole service in one stack: one Lambda per routed operation (from the operations table),
 * the REQUEST authorizer, the two DynamoDB tables and the REST API with its per-team usage plan.
 *
 * Context (cdk.json or `-c key=value`):
 *   scraperProxyParameter  name of an SSM SecureString parameter holding the scraper proxy URL: the
 *                          functions get only its name and read it at cold start (shared/runtime/secrets.ts),
 *                          so the URL never enters git, cdk.out or the Lambda configuration.
 *   scraperProxyUrl        the proxy URL itself, as plain text in the template. For a proxy without
 *                          credentials only (refused with them); scraperProxyParameter wins when both are given.
 *   stageRateLimit, stageBurstLimit  the stage's default throttle, which API Gateway applies to each key-authorised
 *                          method (all teams together), default 100 rps / 1200: at least the share of a method
 *                          of that route group (infra/edge.ts), else the synthesis fails.
 *   gatewayCache           false: no API Gateway cache; default: a 0.5 GB cache for the dashboard's
 *                          page and assets and the public documents (the same answer for every caller).
 *   publicUrl             the API's public address when it is not the stage's execute-api URL (a custom
 *                          domain and base path, https): the links of GET /llms.txt are written with it.
 *   dashboardOrigin       the origin browsers see the dashboard at (https://host), when it is not the
 *                          API's own host (a CDN or proxy in front that rewrites Host); the account API
 *                          checks the Origin of state-changing requests against it.
 *   shortvideoSignerUrl    SHORTVIDEO_SIGNER_URL of the shortvideo functions (an external signing
 *                          service); unset: the built-in X-Bogus signer.
 *   wafRateLimit           false: no WAFv2 web ACL in front of the stage (a deployer with their own);
 *                          default: a web ACL that blocks an address above wafRateLimitPer5Min.
 *   wafRateLimitPer5Min    requests per address per 5 minutes (WAF's window), default 2000.
 *   kmsKey                 true: one customer-managed KMS key (rotated, retained) encrypts both
 *                          tables and the secrets; default: AWS-owned keys.
 * CURSOR_SECRET (the HMAC key of the cursors the service issues) is generated once per deployment
 * in Secrets Manager; the functions get its ARN (CURSOR_SECRET_ARN) and read it at cold start, so its
 * value is never in git, cdk.out or the function configuration.
 */
const PROJECT_ROOT = path.resolve(__dirname, '..');

export const SERVICE_NAME = 'social-data-api';
/** Per team: the spec's limit (RATE_LIMIT), as a token bucket of 100 refilled at 100/60 per second. */
export const TEAM_RATE_LIMIT = RATE_LIMIT.requests / RATE_LIMIT.windowSeconds;
export const TEAM_BURST_LIMIT = RATE_LIMIT.requests;
/** A token comes back every 0.6 s at the team rate, so one second is always enough to retry. */
const THROTTLE_RETRY_AFTER_S = 1;
/** The handlers' own SERVICE_UNAVAILABLE Retry-After. */
const GATEWAY_5XX_RETRY_AFTER_S = RETRY_AFTER_S.SERVICE_UNAVAILABLE;

/** The deployed stage (the first path segment of the execute-api URL). */
const STAGE_NAME = 'prod';
/** API Gateway gives up on an integration at 29 s; the function must answer first. */
const FUNCTION_TIMEOUT = Duration.seconds(28);
/** The authorizer reads the key (and the balance; the key again when that batch shows no key item), with at most one transaction beside, then at most one UpdateItem; a stuck one should fail fast (503). */
const AUTHORIZER_TIMEOUT = Duration.seconds(10);
/**
 * Lambda's CPU share grows with memory. Parsing a whole HTML page with linkedom is CPU-bound
 * (and the DOM of a large page takes tens of MB), so those functions get 1024 MB; the JSON-API
 * scrapers spend their time waiting on the network and 512 MB gives them a fast enough cold start.
 */
const memoryFor = (op: Operation) => (op.parsesHtml ? 1024 : 512);

export class SocialDataApiStack extends Stack {
  readonly api: apigateway.RestApi;
  readonly usagePlan: apigateway.UsagePlan;
  readonly accounts: dynamodb.Table;
  readonly cache: dynamodb.Table;
  /** The customer-managed key of the tables and secrets (context kmsKey=true), else AWS-owned keys. */
  readonly dataKey?: kms.Key;
  /** The HMAC key API keys, session ids and invitation tokens are hashed with (KEY_PEPPER_SECRET_ARN; shared/auth/hashing.ts). */
  private keyPepper!: secretsmanager.Secret;
  /** API Gateway's cache for the answers that are the same for every caller (context gatewayCache, default on). */
  private readonly gatewayCache: boolean;
  /** Where the operations' secrets are (set by operationFunctions), for every function that runs an operation. */
  private operationSecrets?: { cursorSecretArn: string; proxyParameterArn?: string };

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    this.gatewayCache = booleanContext(this, 'gatewayCache', true);
    this.dataKey = this.customerKey();
    // Both tables from their one definition (shared/db/tables.ts), which the local set-up reads too.
    this.accounts = this.table('AccountsTable', ACCOUNTS);
    this.cache = this.table('CacheTable', CACHE);
    acknowledge(this.cache, 'AwsSolutions-DDB3', 'The cache holds only re-scrapable results (30-day TTL); the accounts table, which holds money, has point-in-time recovery.');
    const environment: Record<string, string> = {
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      ACCOUNTS_TABLE: this.accounts.tableName,
      CACHE_TABLE: this.cache.tableName,
      // Writers and the status page's reader must agree on it (shared/status/outcomes.ts).
      OUTCOME_SHARDS: String(numberContext(this, 'outcomeShards', 2)),
    };
    this.keyPepper = this.keyPepperSecret();
    const authorizerFn = this.authorizerFunction(environment);
    const operations = this.operationFunctions(environment);
    this.api = this.restApi();
    const authorizer = this.keyAuthorizer(authorizerFn);
    this.addOperationRoutes(operations.functions, authorizer);
    this.addOpenApi();
    const mcpFn = this.addAgentRoutes(authorizer, operations.everyOperation);
    // The account API issues the request history's cursors: sealed with the same secret.
    this.addDashboard({ ...environment, CURSOR_SECRET_ARN: operations.everyOperation.CURSOR_SECRET_ARN! });
    // Monitors with signed webhooks (infra/monitors.ts, docs/monitors.md).
    const monitors = addMonitors({ scope: this, api: this.api, accounts: this.accounts, environment, operations: operations.functions, nodeFunction: (fid, entry, props) => this.nodeFunction(fid, entry, props), allowItems: (fn, actions, prefixes) => this.allowItems(fn, actions, prefixes), withPepper: (fn) => this.withPepper(fn), generatedSecret: (sid, description, whyNotRotated) => this.generatedSecret(sid, description, 64, RemovalPolicy.RETAIN, whyNotRotated), grantData: (fn) => void this.dataKey?.grantDecrypt(fn), acknowledge });
    // The MCP monitor tools invoke the monitors API's function with the caller's key (functions/mcp.ts):
    // that function alone, never the monitor items' writes themselves for a function that scrapes.
    mcpFn.addEnvironment('MONITORS_FUNCTION', monitors.functions.apiFn.functionName);
    mcpFn.addToRolePolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [monitors.functions.apiFn.functionArn] }));
    // Before any step that walks the API's methods (per-method throttles): GET /v1/status, the canaries, the alarms and their topic, the CloudWatch dashboard (infra/status.ts).
    addOperationalStatus(this, {
      serviceName: SERVICE_NAME,
      api: this.api,
      accounts: this.accounts,
      cache: this.cache,
      baseEnvironment: environment,
      operationEnvironment: operations.everyOperation,
      operations: operations.functions,
      nodeFunction: (fid, entry, props) => this.nodeFunction(fid, entry, props),
      allow: (fn, table, ...actions) => this.allow(fn, table, ...actions),
      allowOperationSecrets: (fn) => this.allowOperationSecrets(fn),
      acknowledge,
    });
    this.usagePlan = this.api.addUsagePlan('TeamUsagePlan', {
      name: 'social-data-api-team',
      description: `One API key per team (created by the admin CLI); ${RATE_LIMIT.requests} requests per ${RATE_LIMIT.windowSeconds} s per team`,
      throttle: { rateLimit: TEAM_RATE_LIMIT, burstLimit: TEAM_BURST_LIMIT },
      apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
    });
    this.addGatewayResponses();
    this.edgeMethodSettings();
    this.addRateLimitAcl();
    this.addOutputs();
  }

  /** Context kmsKey=true: one key, rotated yearly, kept when the stack goes (the retained table needs it). */
  private customerKey(): kms.Key | undefined {
    if (!booleanContext(this, 'kmsKey', false)) return undefined;
    return new kms.Key(this, 'DataKey', {
      description: 'Encrypts the social-data-api tables and secrets',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /**
   * Every method's share of API Gateway, from its route group (infra/edge.ts): the open groups' methods
   * each get a throttle of their own, sized from the group's per-address limit (so one address at its
   * limit drains at most a quarter of a method's burst and a twentieth of its rate), and, where the
   * answer is the same for every caller, API Gateway's cache; the key-authorised methods share the
   * stage's default throttle (stageRateLimit/stageBurstLimit, applied to each method), which must be at
   * least their group's share. A method in no group, or whose authorizer contradicts its group, fails
   * the synthesis: the step walks the API's methods after every route exists.
   */
  private edgeMethodSettings() {
    const stage = this.api.deploymentStage.node.defaultChild as apigateway.CfnStage;
    const stageRate = numberContext(this, 'stageRateLimit', STAGE_RATE_LIMIT);
    const stageBurst = numberContext(this, 'stageBurstLimit', STAGE_BURST_LIMIT);
    const settings: apigateway.CfnStage.MethodSettingProperty[] = [];
    for (const m of this.api.methods) {
      const route = { method: m.httpMethod, path: m.resource.path };
      const group = groupOf(route);
      if (!group) throw new Error(`${route.method} ${route.path} belongs to no route group (infra/edge.ts ROUTE_GROUPS): every route needs a per-address limit and a per-method share`);
      const keyed = (m.node.defaultChild as apigateway.CfnMethod).authorizationType !== apigateway.AuthorizationType.NONE;
      if (keyed !== (group.credential(route) === 'key')) throw new Error(`${route.method} ${route.path}: group ${group.name} says it needs ${group.credential(route)}, but its method ${keyed ? 'has' : 'has no'} key authorizer`);
      const share = methodShare(group);
      if (keyed) {
        if (stageRate < share.rate || stageBurst < share.burst) {
          throw new Error(`stageRateLimit/stageBurstLimit (${stageRate}/${stageBurst}) are below the share of a key-authorised method (${share.rate}/${share.burst}): one address under its WAF limit could drain it`);
        }
        continue;
      }
      const ttl = this.gatewayCache ? group.cacheTtlSeconds?.(route) : undefined;
      settings.push({
        resourcePath: `/${route.path.replace(/\//g, '~1')}`,
        httpMethod: route.method,
        throttlingRateLimit: share.rate,
        throttlingBurstLimit: share.burst,
        ...(ttl ? { cachingEnabled: true, cacheTtlInSeconds: ttl, cacheDataEncrypted: true } : {}),
      });
    }
    const existing = (stage.methodSettings ?? []) as apigateway.CfnStage.MethodSettingProperty[];
    stage.methodSettings = [...existing, ...settings];
  }

  /**
   * A WAFv2 web ACL on the stage: it blocks an address sending more than wafRateLimitPer5Min requests
   * in WAF's 5-minute window (whatever the route), refuses a request without the credential its route
   * needs (401) before API Gateway counts it, and holds each address to its route group's limit
   * (infra/edge.ts). Context wafRateLimit=false leaves it out.
   */
  private addRateLimitAcl() {
    if (!booleanContext(this, 'wafRateLimit', true)) {
      acknowledge(this.api, 'AwsSolutions-APIG3', 'No WAF by choice of this deployment (context wafRateLimit=false): the deployer has a web ACL of their own; per-method throttles on the open routes and the per-team usage plan still apply.');
      return;
    }
    const limit = numberContext(this, 'wafRateLimitPer5Min', 2000);
    const visibility = (name: string) => ({ cloudWatchMetricsEnabled: true, metricName: name, sampledRequestsEnabled: true });
    const nosniff = { name: 'x-content-type-options', value: 'nosniff' };
    const rateLimited = { block: { customResponse: { responseCode: ERROR_STATUS.RATE_LIMITED, customResponseBodyKey: 'RateLimited', responseHeaders: [{ name: 'retry-after', value: '60' }, nosniff] } } };
    const refused = (body: string) => ({ block: { customResponse: { responseCode: ERROR_STATUS.UNAUTHORIZED, customResponseBodyKey: body, responseHeaders: [nosniff, ...Object.entries(GATEWAY_REFUSAL_HEADERS).map(([name, value]) => ({ name, value }))] } } });
    const rule = (name: string, priority: number, action: object, statement: object): wafv2.CfnWebACL.RuleProperty => ({ name, priority, action, statement, visibilityConfig: visibility(name) });
    const acl = new wafv2.CfnWebACL(this, 'ApiWebAcl', {
      scope: 'REGIONAL',
      description: `In front of the API: ${limit} requests per address per 5 minutes, a credential before the routes that need one, a per-address limit per route group`,
      defaultAction: { allow: {} },
      visibilityConfig: visibility('SocialDataApiAcl'),
      // The service's error envelope (WAF cannot add the request id).
      customResponseBodies: {
        RateLimited: { contentType: 'APPLICATION_JSON', content: JSON.stringify({ error: { code: 'RATE_LIMITED', message: GATEWAY_MESSAGES.RATE_LIMITED } }) },
        Unauthorized: { contentType: 'APPLICATION_JSON', content: JSON.stringify({ error: { code: 'UNAUTHORIZED', message: GATEWAY_MESSAGES.UNAUTHORIZED } }) },
        NotSignedIn: { contentType: 'APPLICATION_JSON', content: JSON.stringify({ error: { code: 'UNAUTHORIZED', message: NOT_SIGNED_IN } }) },
      },
      rules: [
        // Every route, whatever the group: the overall cap of one address.
        rule('RateLimitPerAddress', 0, rateLimited, { rateBasedStatement: { aggregateKeyType: 'IP', limit, evaluationWindowSec: 300 } }),
        // A request without a credential never reaches API Gateway, so it draws on no method's share:
        // no key to a key-authorised route (or to any path that is not an open route's), no session
        // (or key, for the three reads) to the account API.
        rule('KeyRequired', 1, refused('Unauthorized'), waf.and(waf.not(openPaths()), waf.not(waf.hasKey()))),
        rule('SessionRequired', 2, refused('NotSignedIn'), waf.and(waf.paths(routesNeeding('session')), waf.not(waf.hasSession()))),
        rule('SessionOrKeyRequired', 3, refused('NotSignedIn'), waf.and(waf.paths(routesNeeding('key-or-session')), waf.not(waf.hasSession()), waf.not(waf.hasKey()))),
        // Each group's per-address limit, well under each of its methods' share (infra/edge.ts).
        ...ROUTE_GROUPS.map((group, i) =>
          rule(`PerAddress-${group.name}`, 10 + i, rateLimited, {
            rateBasedStatement: { aggregateKeyType: 'IP', limit: group.perAddress.limit, evaluationWindowSec: group.perAddress.windowSeconds, scopeDownStatement: groupScope(group) },
          }),
        ),
      ],
    });
    const association = new wafv2.CfnWebACLAssociation(this, 'ApiWebAclAssociation', {
      resourceArn: this.api.deploymentStage.stageArn,
      webAclArn: acl.attrArn,
    });
    // The stage ARN is built from names, not a reference: wait for the stage to exist.
    association.node.addDependency(this.api.deploymentStage);
  }

  /**
   * The key pepper: generated once, kept when the stack goes (every stored key and session hash
   * depends on it: replacing it would refuse every key), never rotated on a schedule.
   */
  private keyPepperSecret(): secretsmanager.Secret {
    return this.generatedSecret('KeyPepper', 'HMAC key of the stored API-key and session hashes (KEY_PEPPER_SECRET_ARN)', 64, RemovalPolicy.RETAIN,
      'The pepper of the stored API-key and session hashes: a new one would refuse every key issued under the old one, so it is never rotated on a schedule (keys are revoked and re-issued instead).');
  }

  /** A random secret generated once per deployment (with the data key when there is one), and why it has no rotation schedule. */
  private generatedSecret(id: string, description: string, length: number, removalPolicy: RemovalPolicy, whyNotRotated: string): secretsmanager.Secret {
    const secret = new secretsmanager.Secret(this, id, {
      description,
      generateSecretString: { passwordLength: length, excludePunctuation: true },
      removalPolicy,
      ...(this.dataKey ? { encryptionKey: this.dataKey } : {}),
    });
    acknowledge(secret, 'AwsSolutions-SMG4', whyNotRotated);
    return secret;
  }

  /** A function that hashes keys, session ids or invitation tokens: the pepper's ARN in its environment, and reading that one secret. */
  private withPepper(fn: lambda.Function) {
    fn.addEnvironment(KEY_PEPPER_VARIABLE, this.keyPepper.secretArn);
    this.keyPepper.grantRead(fn);
  }

  /**
   * The REQUEST authorizer only reads: the key (GetItem) or, for a key it authorized before, the key
   * and its team's balance in one BatchGetItem (shared/auth/keys.ts, findKnownKey; GetItem again
   * when the batch shows no key item), in key and team partitions only (for a batch, IAM's
   * dynamodb:LeadingKeys holds every key it asks). Its one write is the key's `lastUsedAt`, at most
   * once a minute (touchKey): an UpdateItem on key items naming that attribute alone (IAM's
   * dynamodb:Attributes allow-list, AUTHORIZER_KEY_ATTRIBUTES). Nothing on the cache table, no write
   * in a team partition: it can change no balance, no ledger, no usage and no history.
   */
  private authorizerFunction(environment: Record<string, string>): NodejsFunction {
    const fn = this.nodeFunction('Authorizer', 'functions/authorizer.ts', {
      description: 'REQUEST authorizer: API key -> team usage-plan key',
      memorySize: 512,
      timeout: AUTHORIZER_TIMEOUT,
      environment,
    });
    this.allowItems(fn, ['dynamodb:GetItem', 'dynamodb:BatchGetItem'], [KEY_PREFIX, TEAM_PREFIX]);
    this.allowAttributeUpdates(fn, KEY_PREFIX, AUTHORIZER_KEY_ATTRIBUTES);
    this.withPepper(fn);
    return fn;
  }

  /**
   * One function per routed operation (the operation table), with the scrape's settings and secrets;
   * and `everyOperation`, the environment a function running every operation needs (the MCP one).
   */
  private operationFunctions(environment: Record<string, string>): { functions: { op: Operation; fn: NodejsFunction }[]; everyOperation: Record<string, string> } {
    const proxy = this.scraperProxy();
    const cursorSecret = this.generatedSecret('CursorSecret', 'HMAC key of the opaque cursors the API issues (CURSOR_SECRET)', 48, RemovalPolicy.DESTROY,
      'HMAC key of pagination cursors that live minutes: replacing it only turns outstanding cursors into 400s, so it is replaced by redeploying, not on a rotation schedule.');
    const signerUrl = this.node.tryGetContext('shortvideoSignerUrl') as string | undefined;
    const operationEnvironment: Record<string, string> = {
      ...environment,
      // The scrape (retries included) ends by then, which leaves 8 s to refund the credit and answer.
      SCRAPE_DEADLINE_MS: String(DEFAULT_SCRAPE_DEADLINE_MS),
      ...proxy.environment,
      // Where the secrets are, never their values: shared/runtime/secrets.ts reads them at cold start.
      CURSOR_SECRET_ARN: cursorSecret.secretArn,
    };
    this.operationSecrets = { cursorSecretArn: cursorSecret.secretArn, proxyParameterArn: proxy.parameterArn };
    const citygame = citygameEnvironment(this);
    const functions = routedOperations().map((op) => {
      const fn = this.nodeFunction(functionId(op), handlerFile(op), {
        description: `${op.number}. GET ${op.path}`,
        memorySize: memoryFor(op),
        timeout: FUNCTION_TIMEOUT,
        environment: {
          ...operationEnvironment,
          ...(signerUrl && op.platform === 'shortvideo' ? { SHORTVIDEO_SIGNER_URL: signerUrl } : {}),
          ...(op.platform === 'citygame' ? citygame : {}),
        },
      });
      this.allowOperation(fn);
      return { op, fn };
    });
    return { functions, everyOperation: { ...operationEnvironment, ...(signerUrl ? { SHORTVIDEO_SIGNER_URL: signerUrl } : {}), ...citygame } };
  }

  /** Reading the cursor secret at cold start (and decrypting it when a customer-managed key is on). */
  private allowCursorSecret(fn: lambda.IFunction) {
    const secrets = this.operationSecrets;
    if (!secrets) throw new Error('operationFunctions() creates the secrets before any function is allowed them');
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secrets.cursorSecretArn] }));
    this.dataKey?.grantDecrypt(fn);
  }

  /** The secrets a scraper reads at cold start: the cursor key and, when one is configured, the proxy URL. */
  private allowOperationSecrets(fn: lambda.IFunction) {
    this.allowCursorSecret(fn);
    const proxy = this.operationSecrets?.proxyParameterArn;
    if (proxy) fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['ssm:GetParameter'], resources: [proxy] }));
  }

  /** What running an operation takes: its secrets (read at cold start) and the tables. */
  private allowOperation(fn: lambda.IFunction) {
    const secrets = this.operationSecrets;
    if (!secrets) throw new Error('operationFunctions() creates the secrets before any function is allowed them');
    this.allowOperationSecrets(fn);
    // Every write of a request on the accounts table is an UpdateItem: reserve and refund, the usage
    // count, and the ledger record and history item, written whole by UpdateItem (shared/accounting/).
    // BatchGetItem: the ledger records of old reservation marks (shared/accounting/reservation.ts).
    // Only in team partitions (TEAM#…): a function that parses hostile pages can neither read nor
    // write a key, member, invitation, session or sign-in throttle item.
    this.allowItems(fn, ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'], [TEAM_PREFIX]);
    this.denyTeamItemRewrites(fn);
    // Cache reads and the settle transaction's put; the outcome counts (OUT# items, UpdateItem);
    // shared upstream credentials (CRED# items) are read, leased with a conditional UpdateItem and
    // written with PutItem.
    this.allow(fn, this.cache, 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem');
  }

  /**
   * What a function that updates team partitions but is not the account API may never do there,
   * whatever else its role is granted: PutItem or DeleteItem (a Put could replace a team item whole
   * with one that names none of the attributes denied below, a Delete remove it), nor an update
   * naming a team's name, usage-plan key or creation time (SET or REMOVE), or the byTeam index's
   * keys (an item slipped into another team's key or member listing).
   */
  private denyTeamItemRewrites(fn: lambda.IFunction) {
    fn.addToRolePolicy(new iam.PolicyStatement({ effect: iam.Effect.DENY, actions: [...SCRAPER_DENIED_ACCOUNT_ACTIONS], resources: [this.accounts.tableArn] }));
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        effect: iam.Effect.DENY,
        actions: ['dynamodb:UpdateItem'],
        resources: [this.accounts.tableArn],
        conditions: { 'ForAnyValue:StringEquals': { 'dynamodb:Attributes': [...TEAM_ATTRIBUTES_NO_SCRAPER_WRITES, TEAM_INDEX.partitionKey, TEAM_INDEX.sortKey] } },
      }),
    );
  }

  /** The REST API and its prod stage: stage throttle, access logs without keys, error-only execution logs. */
  private restApi(): apigateway.RestApi {
    const api = new apigateway.RestApi(this, 'Api', {
      restApiName: 'SocialDataApi',
      description: 'Public social-data extraction API',
      endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
      // The authorizer names the team's usage-plan key, so the usage plan throttles per team.
      apiKeySourceType: apigateway.ApiKeySourceType.AUTHORIZER,
      // The account-level role API Gateway needs to write access and execution logs.
      cloudWatchRole: true,
      deployOptions: {
        stageName: STAGE_NAME,
        throttlingRateLimit: numberContext(this, 'stageRateLimit', STAGE_RATE_LIMIT),
        throttlingBurstLimit: numberContext(this, 'stageBurstLimit', STAGE_BURST_LIMIT),
        // The cache serves the dashboard's assets and the public documents without a Lambda per
        // request (edgeMethodSettings turns it on for those methods alone); nothing else is cached.
        ...(this.gatewayCache ? { cacheClusterEnabled: true, cacheClusterSize: '0.5' } : {}),
        cachingEnabled: false,
        // One access-log line per request; never the key, the query string or a header.
        accessLogDestination: new apigateway.LogGroupLogDestination(
          new logs.LogGroup(this, 'ApiAccessLogs', { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
        ),
        accessLogFormat: apigateway.AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
        // Execution logs for errors only, without request or response bodies (dataTrace would log keys).
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
      },
    });
    acknowledge(api, 'AwsSolutions-APIG2', 'Parameters are validated by each function, which answers the spec\'s 422 with details; a gateway validator would answer 400 in another shape.');
    acknowledge(api, 'AwsSolutions-COG4', 'Key-authorised by design (the spec\'s API keys, via the REQUEST authorizer); there are no Cognito users.');
    acknowledge(
      api,
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      'AWS\'s own policy for the API Gateway account logging role, scoped to exactly what API Gateway logging needs.',
    );
    // RestApi adds an output with a generated name; ApiUrl (addOutputs) replaces it with a stable one.
    api.node.tryRemoveChild('Endpoint');
    return api;
  }

  private keyAuthorizer(authorizerFn: lambda.IFunction): apigateway.RequestAuthorizer {
    const authorizer = new apigateway.RequestAuthorizer(this, 'KeyAuthorizer', {
      handler: authorizerFn,
      // No identity source and no cache: with a source listed, API Gateway answers 401 itself when
      // that header is absent, and the key may come as x-api-key or as Authorization: Bearer.
      identitySources: [],
      resultsCacheTtl: Duration.seconds(0),
    });
    // CDK writes IdentitySource: "" for an empty list; leave the property out instead, which is
    // the documented form of "no identity source" when caching is off.
    (authorizer.node.defaultChild as apigateway.CfnAuthorizer).addPropertyDeletionOverride('IdentitySource');
    return authorizer;
  }

  /** GET <operation path> -> its function, behind the key authorizer and the usage plan. */
  private addOperationRoutes(operationFns: { op: Operation; fn: NodejsFunction }[], authorizer: apigateway.RequestAuthorizer) {
    for (const { op, fn } of operationFns) {
      this.api.root.resourceForPath(op.path).addMethod('GET', new apigateway.LambdaIntegration(fn, { proxy: true, allowTestInvoke: false }), {
        authorizer,
        authorizationType: apigateway.AuthorizationType.CUSTOM,
        apiKeyRequired: true,
      });
    }
  }

  /** The OpenAPI document, public like any API description (no key, no credits). */
  private addOpenApi() {
    this.publicDocument('OpenApi', 'functions/openapi.ts', OPENAPI_ROUTE, `GET ${OPENAPI_ROUTE}: the OpenAPI 3.1 document`, 'The public description of the API (OpenAPI): no data, no credits, like any published API document.');
  }

  /** GET `route` without a key, on a small function that reads no table: a description of the API. */
  private publicDocument(id: string, entry: string, route: string, description: string, whyPublic: string, environment: Record<string, string> = {}) {
    const fn = this.nodeFunction(id, entry, { description, memorySize: 256, timeout: Duration.seconds(5), environment: { NODE_OPTIONS: '--enable-source-maps', ...environment } });
    const method = this.api.root.resourceForPath(route).addMethod('GET', new apigateway.LambdaIntegration(fn, { proxy: true, allowTestInvoke: false }), {
      authorizationType: apigateway.AuthorizationType.NONE,
      apiKeyRequired: false,
    });
    acknowledge(method, 'AwsSolutions-APIG4', whyPublic);
  }

  /**
   * For agents: POST /mcp (the MCP server; GET and DELETE answer 405), behind the same authorizer
   * and usage plan as the operations, and GET /llms.txt, public like the OpenAPI document. The MCP
   * function runs every operation's handler in process (functions/mcp.ts), so it has what they
   * have: their environment, their memory (some parse HTML), their timeout and their table access,
   * plus Query on the accounts table's team partitions for the read-only account tools (latest
   * charges, daily usage, request history) and, through its byTeam index, on key ids and names only
   * (the history's key names): never a member, password hash or session the index also holds.
   */
  private addAgentRoutes(authorizer: apigateway.IAuthorizer, environment: Record<string, string>): NodejsFunction {
    const mcpFn = this.nodeFunction('Mcp', 'functions/mcp.ts', {
      description: `${MCP_METHODS.join('/')} ${MCP_PATH}: the MCP server (Streamable HTTP, stateless), a tool per operation`,
      memorySize: 1024,
      timeout: FUNCTION_TIMEOUT,
      environment,
    });
    this.allowOperation(mcpFn);
    this.allowItems(mcpFn, ['dynamodb:Query'], [TEAM_PREFIX]);
    // account-requests names each request's key: through the byTeam index, but only keyId and name
    // (never a member's e-mail or password hash, a session, or anything else the index holds).
    this.allowKeyNamesQuery(mcpFn);
    const mcpIntegration = new apigateway.LambdaIntegration(mcpFn, { proxy: true, allowTestInvoke: false });
    const mcp = this.api.root.resourceForPath(MCP_PATH);
    for (const method of MCP_METHODS) {
      mcp.addMethod(method, mcpIntegration, { authorizer, authorizationType: apigateway.AuthorizationType.CUSTOM, apiKeyRequired: true });
    }

    // Its links (the MCP URL agents send keys to among them) come from configuration, never from the request's Host.
    this.publicDocument('LlmsTxt', 'functions/llms.ts', LLMS_PATH, `GET ${LLMS_PATH}: the operations, their parameters and the MCP URL, for agents`, 'The public description of the API for agents (llms.txt): no data, no credits, like the OpenAPI document.', {
      PUBLIC_BASE_URL: this.publicUrl(),
    });
    return mcpFn;
  }

  /**
   * The API's public address: context publicUrl (a custom domain and its base path, https), else the
   * stage's own execute-api URL (built from the API's id, not from the stage, which depends on the
   * methods and so on the functions).
   */
  private publicUrl(): string {
    const given = this.node.tryGetContext('publicUrl') as unknown;
    if (given !== undefined && given !== '') {
      const base = typeof given === 'string' ? configuredBase(given) : '';
      if (!base.startsWith('https://')) throw new Error('context publicUrl must be an https URL without credentials, query or fragment (https://api.example.com or https://example.com/api)');
      return base;
    }
    return `https://${this.api.restApiId}.execute-api.${this.region}.${this.urlSuffix}/${STAGE_NAME}`;
  }

  private addOutputs() {
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL; operation paths start with /v1' });
    new CfnOutput(this, 'UsagePlanId', { value: this.usagePlan.usagePlanId, description: 'USAGE_PLAN_ID for the admin CLI' });
    new CfnOutput(this, 'AccountsTableName', { value: this.accounts.tableName, description: 'ACCOUNTS_TABLE' });
    new CfnOutput(this, 'CacheTableName', { value: this.cache.tableName, description: 'CACHE_TABLE' });
    new CfnOutput(this, 'KeyPepperSecretArn', { value: this.keyPepper.secretArn, description: 'KEY_PEPPER_SECRET_ARN for the admin CLI (keys it creates are hashed with the pepper)' });
  }

  /**
   * A table from its definition. Accounts hold money (teams, balances, the ledger): retained with
   * the stack and point-in-time recoverable. The cache can always be scraped again.
   */
  private table(id: string, def: TableDef): dynamodb.Table {
    const S = dynamodb.AttributeType.STRING;
    const table = new dynamodb.Table(this, id, {
      partitionKey: { name: def.partitionKey, type: S },
      ...(def.sortKey ? { sortKey: { name: def.sortKey, type: S } } : {}),
      ...(def.ttlAttribute ? { timeToLiveAttribute: def.ttlAttribute } : {}),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      ...(def.retain ? { pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true } } : {}),
      removalPolicy: def.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      // Money: a stray `cdk destroy` or console click cannot delete it.
      deletionProtection: def.retain,
      ...(this.dataKey ? { encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED, encryptionKey: this.dataKey } : {}),
    });
    for (const index of def.indexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: S },
        sortKey: { name: index.sortKey, type: S },
        projectionType: dynamodb.ProjectionType.ALL,
      });
    }
    return table;
  }

  /**
   * The account dashboard: its JSON API (one function for every /v1/account/* route) and the
   * single-page app (one function serving the page and its bundled assets). Neither route has the
   * API-key authorizer: the account API's credential is the session cookie, or for its three reads
   * (credits, usage, requests) an API key, both checked by the function; the pages are public like
   * any sign-in page.
   */
  private addDashboard(environment: Record<string, string>) {
    const dashboardOrigin = this.node.tryGetContext('dashboardOrigin') as string | undefined;
    const accountFn = this.nodeFunction('Account', 'functions/account.ts', {
      description: 'The dashboard account API: /v1/account/* (session cookie; API key for the reads)',
      // scrypt (32 MiB, CPU-bound) on sign-in and set-password: 1024 MB gives it most of a vCPU.
      memorySize: 1024,
      timeout: Duration.seconds(10),
      environment: { ...environment, ...(dashboardOrigin ? { DASHBOARD_ORIGIN: dashboardOrigin } : {}) },
    });
    // Members, invitations, sessions, sign-in throttles and keys are items; the ledger and the
    // usage counters are read with Query on the team's partition; keys and members are listed
    // through the byTeam index. No DeleteItem: sign-out marks the session ended.
    // Its own items only: it writes keys, members, invitations, sessions and sign-in throttles, and
    // reads those and the team partitions (team, ledger, usage); it never writes a team item, so it
    // cannot change a balance.
    this.allowItems(accountFn, ['dynamodb:GetItem', 'dynamodb:Query'], [TEAM_PREFIX, ...ACCOUNT_OWN_PREFIXES]);
    this.allowItems(accountFn, ['dynamodb:PutItem', 'dynamodb:UpdateItem'], ACCOUNT_OWN_PREFIXES);
    this.allowTeamIndexQuery(accountFn);
    this.withPepper(accountFn);
    this.allowCursorSecret(accountFn);

    const dashboardFn = this.nodeFunction(
      'Dashboard',
      'functions/dashboard.ts',
      { description: `GET ${DASHBOARD_PATH}: the dashboard single-page app`, memorySize: 256, timeout: Duration.seconds(5), environment: { NODE_OPTIONS: '--enable-source-maps' } },
      {
        // esbuild bundles the app (dashboard/build.ts) next to the function's own bundle.
        beforeBundling: () => [],
        beforeInstall: () => [],
        afterBundling: (inputDir: string, outputDir: string) => [`"${inputDir}/node_modules/.bin/tsx" "${inputDir}/dashboard/build.ts" "${outputDir}/dashboard"`],
      },
    );

    const open = { authorizationType: apigateway.AuthorizationType.NONE, apiKeyRequired: false };
    const accountIntegration = new apigateway.LambdaIntegration(accountFn, { proxy: true, allowTestInvoke: false });
    for (const route of ACCOUNT_ROUTES) {
      const method = this.api.root.resourceForPath(route.path).addMethod(route.method, accountIntegration, open);
      acknowledge(method, 'AwsSolutions-APIG4', "Authorised by the dashboard session (HttpOnly cookie) or, for the three account reads, an API key, checked by the function for the caller's own team; sign-in and set-password must be reachable without one.");
    }
    const dashboardIntegration = new apigateway.LambdaIntegration(dashboardFn, { proxy: true, allowTestInvoke: false });
    // Cached per asset: the proxy path is the cache key (without it every asset would share one entry).
    const assetIntegration = new apigateway.LambdaIntegration(dashboardFn, { proxy: true, allowTestInvoke: false, cacheKeyParameters: [DASHBOARD_CACHE_KEY] });
    const pages = this.api.root.resourceForPath(DASHBOARD_PATH);
    const pageMethods = [
      pages.addMethod('GET', dashboardIntegration, open),
      pages.addResource('{proxy+}').addMethod('GET', assetIntegration, { ...open, requestParameters: { [DASHBOARD_CACHE_KEY]: true } }),
    ];
    for (const m of pageMethods) acknowledge(m, 'AwsSolutions-APIG4', 'The static assets of the dashboard page: no data; every data call the page makes goes to the session-authorised account API.');
  }

  private nodeFunction(
    id: string,
    entry: string,
    props: Pick<lambda.FunctionProps, 'description' | 'memorySize' | 'timeout' | 'environment'>,
    commandHooks?: NonNullable<NonNullable<ConstructorParameters<typeof NodejsFunction>[2]>['bundling']>['commandHooks'],
  ): NodejsFunction {
    const entryPath = path.join(PROJECT_ROOT, entry);
    if (!existsSync(entryPath)) throw new Error(`${id}: handler file ${entry} is missing (a routed operation needs functions/<id>.ts)`);
    const logGroup = new logs.LogGroup(this, `${id}Logs`, {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Its own role, allowed to write to its own log group only (instead of the managed
    // AWSLambdaBasicExecutionRole, which allows every log group of the account).
    const role = new iam.Role(this, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      inlinePolicies: {
        logs: new iam.PolicyDocument({
          statements: [new iam.PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] })],
        }),
      },
    });
    const fn = new NodejsFunction(this, id, {
      ...props,
      role,
      entry: entryPath,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      logGroup,
      bundling: {
        minify: true,
        sourceMap: true,
        // File and line numbers in stack traces without shipping the sources a second time.
        sourcesContent: false,
        target: 'node22',
        format: OutputFormat.CJS,
        // Bundle the AWS SDK too: it imports faster than the runtime's copy.
        externalModules: [],
        ...(commandHooks ? { commandHooks } : {}),
      },
    });
    acknowledge(fn, 'AwsSolutions-L1', 'Pinned to nodejs22.x, the runtime the bundles target (node22) and are tested for; moving to a newer runtime is a deliberate upgrade.');
    return fn;
  }

  /**
   * Item actions on a table (the accounts table unless told), only in partitions whose key starts
   * with one of `prefixes` (IAM's dynamodb:LeadingKeys; in a transaction it holds for each action).
   */
  private allowItems(fn: lambda.IFunction, actions: string[], prefixes: readonly string[], table: dynamodb.ITable = this.accounts) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions,
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((p) => `${p}*`) } },
      }),
    );
  }

  /**
   * UpdateItem on the accounts table, only in partitions whose key starts with `prefix` and only
   * naming attributes that match `attributes` (IAM's ForAllValues:StringLike on dynamodb:Attributes:
   * the key's, the update expression's and the condition expression's names; `*` a wildcard), and
   * returning no values (it could otherwise read back attributes it may not name). ForAllValues
   * holds for a request without the key at all, so the key must be there (Null: false): fail closed.
   */
  private allowAttributeUpdates(fn: lambda.IFunction, prefix: string, attributes: readonly string[]) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [this.accounts.tableArn],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${prefix}*`], 'dynamodb:Attributes': [...attributes] },
          'Null': { 'dynamodb:Attributes': 'false' },
          'StringEqualsIfExists': { 'dynamodb:ReturnValues': ['NONE'] },
        },
      }),
    );
  }

  /** Query on the byTeam index, for a team's own partition only (its keys and members). */
  private allowTeamIndexQuery(fn: lambda.IFunction): void {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [`${this.accounts.tableArn}/index/${TEAM_INDEX.name}`],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${TEAM_PREFIX}*`] } },
      }),
    );
  }

  /**
   * Query on the byTeam index for a team's partition, reading only the attributes KEY_NAME_ATTRIBUTES
   * names (IAM's dynamodb:Attributes, with dynamodb:Select required to be SPECIFIC_ATTRIBUTES: a Query
   * without a projection, or of all the projected attributes, is refused).
   */
  private allowKeyNamesQuery(fn: lambda.IFunction): void {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [`${this.accounts.tableArn}/index/${TEAM_INDEX.name}`],
        conditions: {
          'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${TEAM_PREFIX}*`] },
          'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...KEY_NAME_ATTRIBUTES] },
          'StringEquals': { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
        },
      }),
    );
  }

  /** Actions on the table itself (not its indexes): never Scan or DeleteItem. */
  private allow(fn: lambda.IFunction, table: dynamodb.ITable, ...actions: string[]) {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions, resources: [table.tableArn] }));
  }

  /**
   * The scraper proxy. scraperProxyParameter names an SSM SecureString (or String) parameter: the
   * functions get its name and read it at cold start (shared/runtime/secrets.ts), so the URL and its
   * credentials are never in the template or the function configuration. scraperProxyUrl is a plain
   * URL in the configuration, for a proxy without credentials only (refused with them).
   */
  private scraperProxy(): { environment: Record<string, string>; parameterArn?: string } {
    const parameter = this.node.tryGetContext('scraperProxyParameter') as string | undefined;
    if (parameter) {
      const name = parameter.startsWith('/') ? parameter.slice(1) : parameter;
      return {
        environment: { SCRAPER_PROXY_PARAMETER: parameter },
        parameterArn: this.formatArn({ service: 'ssm', resource: 'parameter', resourceName: name }),
      };
    }
    const url = this.node.tryGetContext('scraperProxyUrl') as string | undefined;
    if (!url) return { environment: {} };
    if (/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(url)) {
      throw new Error('scraperProxyUrl carries credentials: put the URL in an SSM SecureString and name it with scraperProxyParameter');
    }
    return { environment: { SCRAPER_PROXY_URL: url } };
  }

  /**
   * API Gateway's own refusals in the service's error envelope. One status per response type,
   * so MISSING_AUTHENTICATION_TOKEN (what a REST API answers for a path or method it does not
   * have; no method here uses IAM auth, so a bad key never produces it) becomes 404.
   */
  private addGatewayResponses() {
    const R = apigateway.ResponseType;
    const reply = (id: string, type: apigateway.ResponseType, code: ErrorCode, message: string, retryAfter?: number) =>
      this.api.addGatewayResponse(id, {
        type,
        statusCode: String(ERROR_STATUS[code]),
        responseHeaders: {
          // A mapping expression (no quotes): API Gateway substitutes the request id.
          'x-request-id': 'context.requestId',
          'x-content-type-options': "'nosniff'",
          ...Object.fromEntries(Object.entries(GATEWAY_REFUSAL_HEADERS).map(([name, value]) => [name, `'${value}'`])),
          ...(retryAfter !== undefined ? { 'retry-after': `'${retryAfter}'` } : {}),
        },
        templates: { 'application/json': errorTemplate(code, message) },
      });

    const M = GATEWAY_MESSAGES;
    reply('Unauthorized', R.UNAUTHORIZED, 'UNAUTHORIZED', M.UNAUTHORIZED);
    reply('AccessDenied', R.ACCESS_DENIED, 'UNAUTHORIZED', M.UNAUTHORIZED);
    reply('InvalidApiKey', R.INVALID_API_KEY, 'UNAUTHORIZED', M.UNAUTHORIZED);
    reply('MissingAuthenticationToken', R.MISSING_AUTHENTICATION_TOKEN, 'NOT_FOUND', M.NOT_FOUND);
    reply('ResourceNotFound', R.RESOURCE_NOT_FOUND, 'NOT_FOUND', M.NOT_FOUND);
    reply('Throttled', R.THROTTLED, 'RATE_LIMITED', M.RATE_LIMITED, THROTTLE_RETRY_AFTER_S);
    reply('QuotaExceeded', R.QUOTA_EXCEEDED, 'RATE_LIMITED', M.RATE_LIMITED, THROTTLE_RETRY_AFTER_S);
    const unavailable = M.SERVICE_UNAVAILABLE;
    reply('AuthorizerFailure', R.AUTHORIZER_FAILURE, 'SERVICE_UNAVAILABLE', unavailable, GATEWAY_5XX_RETRY_AFTER_S);
    reply('AuthorizerConfigurationError', R.AUTHORIZER_CONFIGURATION_ERROR, 'SERVICE_UNAVAILABLE', unavailable, GATEWAY_5XX_RETRY_AFTER_S);
    // The handlers never answer 5xx other than 503 themselves: any other 5xx is the gateway's own
    // failure (integration error or timeout), which is our capacity problem.
    reply('Default5xx', R.DEFAULT_5XX, 'SERVICE_UNAVAILABLE', unavailable, GATEWAY_5XX_RETRY_AFTER_S);
    reply('Default4xx', R.DEFAULT_4XX, 'BAD_REQUEST', M.BAD_REQUEST);
  }
}

/**
 * A cdk-nag (AwsSolutions) finding accepted on purpose, with its reason (docs/security.md lists them all).
 * test/infra/nag.ts (run by test/infra/stack.test.ts) runs the pack; anything not fixed or acknowledged here fails it.
 */
function acknowledge(scope: Construct, rule: string, reason: string) {
  Validations.of(scope).acknowledge({ id: `AwsSolutions::${rule}`, reason });
}

/** The access-log line: who (team), what (route), how it ended, how long. No key, query or header. */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  time: '$context.requestTime',
  ip: '$context.identity.sourceIp',
  method: '$context.httpMethod',
  resource: '$context.resourcePath',
  status: '$context.status',
  bytes: '$context.responseLength',
  latencyMs: '$context.responseLatency',
  integrationLatencyMs: '$context.integrationLatency',
  teamId: '$context.authorizer.principalId',
  error: '$context.error.responseType',
};

/** The logical id of an operation's function: `microblog-a-user-posts` -> `MicroblogAUserPosts`. */
export const functionId = (op: Operation) =>
  op.id
    .split(/[^a-zA-Z0-9]+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

/** Gateway response templates are not VTL, but $context variables are substituted. */
export function errorTemplate(code: ErrorCode, message: string): string {
  return JSON.stringify({ error: { code, message, requestId: '$context.requestId' } });
}

/** Partition-key prefixes of the accounts table (shared/db/tables.ts) the IAM conditions name. */
const TEAM_PREFIX = teamPk('');
const KEY_PREFIX = keyPk('');
/** The items the account API writes: keys, members, invitations, sessions, sign-in throttles. */
const ACCOUNT_OWN_PREFIXES = [KEY_PREFIX, memberPk(''), invitePk(''), sessionPk(''), 'THROTTLE#'] as const;
/** Attributes of a team item no function that scrapes may write (it may change `credits` and reservation marks only). */
export const TEAM_ATTRIBUTES_NO_SCRAPER_WRITES = ['name', 'usageKey', 'usageKeyId', 'createdAt'] as const;
/** The accounts table's key attributes: every UpdateItem names them (IAM counts them in dynamodb:Attributes). */
const ACCOUNTS_KEY_ATTRIBUTES = [ACCOUNTS.partitionKey, ACCOUNTS.sortKey] as const;
/** All the authorizer may name in an UpdateItem of a key item: touchKey's `lastUsedAt` (shared/auth/keys.ts). */
export const AUTHORIZER_KEY_ATTRIBUTES = [...ACCOUNTS_KEY_ATTRIBUTES, 'lastUsedAt'] as const;
/** Denied outright on the accounts table to every function that scrapes (it writes by UpdateItem only). */
export const SCRAPER_DENIED_ACCOUNT_ACTIONS = ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'] as const;

/** The stage's default throttle, applied to each key-authorised method: at least their route group's share (infra/edge.ts). */
export const STAGE_RATE_LIMIT = 100;
export const STAGE_BURST_LIMIT = 1200;
/** The method request parameter the dashboard's assets are cached by. */
const DASHBOARD_CACHE_KEY = 'method.request.path.proxy';

/** A context flag: true/false as JSON or as the `-c key=value` string. */
function booleanContext(scope: Construct, key: string, fallback: boolean): boolean {
  const raw = scope.node.tryGetContext(key) as unknown;
  if (raw === undefined || raw === '') return fallback;
  return !(raw === false || String(raw).toLowerCase() === 'false');
}

/**
 * The citygame source the deployer names (context `citygameSourceUrl`, `citygameFields`), checked
 * here so that a synth with an unusable one (not https, fields that are not JSON) fails instead of
 * deploying a function that can only answer 503.
 */
function citygameEnvironment(scope: Construct): Record<string, string> {
  const url = scope.node.tryGetContext('citygameSourceUrl') as unknown;
  const rawFields = scope.node.tryGetContext('citygameFields') as unknown;
  // Given as JSON in cdk.json, or as a JSON string with -c citygameFields='{…}'.
  const fields = rawFields === undefined || typeof rawFields === 'string' ? rawFields : JSON.stringify(rawFields);
  if (url !== undefined && typeof url !== 'string') throw new Error('context citygameSourceUrl must be a string (an https URL)');
  let source: ReturnType<typeof parseSource>;
  try {
    source = parseSource(url, fields, { deployment: true });
  } catch (err) {
    throw new Error(`context citygameSourceUrl / citygameFields: ${(err as Error).message}`);
  }
  if (!source) return {};
  return { [SOURCE_URL_VARIABLE]: source.url, ...(fields?.trim() ? { [FIELDS_VARIABLE]: fields } : {}) };
}

function numberContext(scope: Construct, key: string, fallback: number): number {
  const raw = scope.node.tryGetContext(key) as unknown;
  const n = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}
