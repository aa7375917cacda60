import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { DEFAULT_SCRAPE_DEADLINE_MS, RATE_LIMIT } from '../shared/config';
import { ACCOUNT_ROUTES, DASHBOARD_PATH } from '../shared/account/routes';
import { ACCOUNTS, CACHE, TEAM_INDEX, type TableDef } from '../shared/db/tables';
import { ERROR_STATUS, GATEWAY_MESSAGES, GATEWAY_REFUSAL_HEADERS, RETRY_AFTER_S, type ErrorCode } from '../shared/errors';
import { LLMS_PATH, MCP_METHODS, MCP_PATH } from '../shared/mcp/routes';
import { OPENAPI_ROUTE } from '../shared/openapi';
import { handlerFile, routedOperations, type Operation } from '../shared/operations';
import { addOperationalStatus } from './status';

/**
 * The whole service in one stack: one Lambda per routed operation (from the operations table),
 * the REQUEST authorizer, the two DynamoDB tables and the REST API with its per-team usage plan.
 *
 * Context (cdk.json or `-c key=value`):
 *   scraperProxyParameter  name of an SSM String parameter holding the scraper proxy URL. Resolved by
 *                          CloudFormation at deploy time, so the URL never enters git or cdk.out
 *                          (it is still visible in the Lambda configuration; SecureString cannot be
 *                          referenced from Lambda environment variables).
 *   scraperProxyUrl        the proxy URL itself, as plain text in the template. For a proxy without
 *                          credentials only; scraperProxyParameter wins when both are given.
 *   stageRateLimit, stageBurstLimit  whole-stage throttle (all teams together), default 100 rps / 200.
 *   dashboardOrigin       the origin browsers see the dashboard at (https://host), when it is not the
 *                          API's own host (a CDN or proxy in front that rewrites Host); the account API
 *                          checks the Origin of state-changing requests against it.
 *   shortvideoSignerUrl    SHORTVIDEO_SIGNER_URL of the shortvideo functions (an external signing
 *                          service); unset: the built-in X-Bogus signer.
 * CURSOR_SECRET (the HMAC key of the cursors the service issues) is generated once per deployment
 * in Secrets Manager and handed to the functions as a CloudFormation dynamic reference, so its value
 * is never in git or cdk.out.
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

/** API Gateway gives up on an integration at 29 s; the function must answer first. */
const FUNCTION_TIMEOUT = Duration.seconds(28);
/** The authorizer makes one GetItem and at most one UpdateItem; a stuck one should fail fast (503). */
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

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
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
      OUTCOME_SHARDS: String(numberContext(this, 'outcomeShards', 4)),
    };
    const authorizerFn = this.authorizerFunction(environment);
    const operations = this.operationFunctions(environment);
    this.api = this.restApi();
    const authorizer = this.keyAuthorizer(authorizerFn);
    this.addOperationRoutes(operations.functions, authorizer);
    this.addOpenApi();
    this.addAgentRoutes(authorizer, operations.everyOperation);
    this.addDashboard(environment);
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
      acknowledge,
    });
    this.usagePlan = this.api.addUsagePlan('TeamUsagePlan', {
      name: 'social-data-api-team',
      description: `One API key per team (created by the admin CLI); ${RATE_LIMIT.requests} requests per ${RATE_LIMIT.windowSeconds} s per team`,
      throttle: { rateLimit: TEAM_RATE_LIMIT, burstLimit: TEAM_BURST_LIMIT },
      apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
    });
    this.addGatewayResponses();
    this.addOutputs();
  }

  /** The REQUEST authorizer: reads the key and its team (GetItem), touches lastUsedAt (UpdateItem). */
  private authorizerFunction(environment: Record<string, string>): NodejsFunction {
    const fn = this.nodeFunction('Authorizer', 'functions/authorizer.ts', {
      description: 'REQUEST authorizer: API key -> team usage-plan key',
      memorySize: 512,
      timeout: AUTHORIZER_TIMEOUT,
      environment,
    });
    this.allow(fn, this.accounts, 'dynamodb:GetItem', 'dynamodb:UpdateItem');
    return fn;
  }

  /**
   * One function per routed operation (the operation table), with the scrape's settings and secrets;
   * and `everyOperation`, the environment a function running every operation needs (the MCP one).
   */
  private operationFunctions(environment: Record<string, string>): { functions: { op: Operation; fn: NodejsFunction }[]; everyOperation: Record<string, string> } {
    const proxyUrl = this.scraperProxyUrl();
    const cursorSecret = new secretsmanager.Secret(this, 'CursorSecret', {
      description: 'HMAC key of the opaque cursors the API issues (CURSOR_SECRET)',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    acknowledge(cursorSecret, 'AwsSolutions-SMG4', 'HMAC key of pagination cursors that live minutes: replacing it only turns outstanding cursors into 400s, so it is replaced by redeploying, not on a rotation schedule.');
    const signerUrl = this.node.tryGetContext('shortvideoSignerUrl') as string | undefined;
    const operationEnvironment: Record<string, string> = {
      ...environment,
      // The scrape (retries included) ends by then, which leaves 8 s to refund the credit and answer.
      SCRAPE_DEADLINE_MS: String(DEFAULT_SCRAPE_DEADLINE_MS),
      ...(proxyUrl ? { SCRAPER_PROXY_URL: proxyUrl } : {}),
      // Resolved by CloudFormation at deploy time ({{resolve:secretsmanager:…}}).
      CURSOR_SECRET: cursorSecret.secretValue.unsafeUnwrap(),
    };
    const functions = routedOperations().map((op) => {
      const fn = this.nodeFunction(functionId(op), handlerFile(op), {
        description: `${op.number}. GET ${op.path}`,
        memorySize: memoryFor(op),
        timeout: FUNCTION_TIMEOUT,
        environment: {
          ...operationEnvironment,
          ...(signerUrl && op.platform === 'shortvideo' ? { SHORTVIDEO_SIGNER_URL: signerUrl } : {}),
        },
      });
      this.allowOperationTables(fn);
      return { op, fn };
    });
    return { functions, everyOperation: { ...operationEnvironment, ...(signerUrl ? { SHORTVIDEO_SIGNER_URL: signerUrl } : {}) } };
  }

  /** What running an operation takes of the tables. */
  private allowOperationTables(fn: lambda.IFunction) {
    // Reserve/refund are UpdateItem; the settle transaction puts the ledger record, adds to the
    // day's usage count (UpdateItem) and puts the cache entry.
    this.allow(fn, this.accounts, 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem');
    // Cache reads and the settle transaction's put; shared upstream credentials (CRED# items) are
    // read, leased with a conditional UpdateItem and written with PutItem.
    this.allow(fn, this.cache, 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem');
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
        stageName: 'prod',
        throttlingRateLimit: numberContext(this, 'stageRateLimit', 100),
        throttlingBurstLimit: numberContext(this, 'stageBurstLimit', 200),
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
    acknowledge(api, 'AwsSolutions-APIG3', 'No WAF: per-team usage-plan throttling and the stage throttle bound traffic; a web ACL is a cost/ops decision per deployment.');
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
  private publicDocument(id: string, entry: string, route: string, description: string, whyPublic: string) {
    const fn = this.nodeFunction(id, entry, { description, memorySize: 256, timeout: Duration.seconds(5), environment: { NODE_OPTIONS: '--enable-source-maps' } });
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
   * plus Query on the accounts table for the read-only account tools (latest charges, daily usage).
   */
  private addAgentRoutes(authorizer: apigateway.IAuthorizer, environment: Record<string, string>) {
    const mcpFn = this.nodeFunction('Mcp', 'functions/mcp.ts', {
      description: `${MCP_METHODS.join('/')} ${MCP_PATH}: the MCP server (Streamable HTTP, stateless), a tool per operation`,
      memorySize: 1024,
      timeout: FUNCTION_TIMEOUT,
      environment,
    });
    this.allowOperationTables(mcpFn);
    this.allow(mcpFn, this.accounts, 'dynamodb:Query');
    const mcpIntegration = new apigateway.LambdaIntegration(mcpFn, { proxy: true, allowTestInvoke: false });
    const mcp = this.api.root.resourceForPath(MCP_PATH);
    for (const method of MCP_METHODS) {
      mcp.addMethod(method, mcpIntegration, { authorizer, authorizationType: apigateway.AuthorizationType.CUSTOM, apiKeyRequired: true });
    }

    this.publicDocument('LlmsTxt', 'functions/llms.ts', LLMS_PATH, `GET ${LLMS_PATH}: the operations, their parameters and the MCP URL, for agents`, 'The public description of the API for agents (llms.txt): no data, no credits, like the OpenAPI document.');
  }

  private addOutputs() {
    new CfnOutput(this, 'ApiUrl', { value: this.api.url, description: 'Base URL; operation paths start with /v1' });
    new CfnOutput(this, 'UsagePlanId', { value: this.usagePlan.usagePlanId, description: 'USAGE_PLAN_ID for the admin CLI' });
    new CfnOutput(this, 'AccountsTableName', { value: this.accounts.tableName, description: 'ACCOUNTS_TABLE' });
    new CfnOutput(this, 'CacheTableName', { value: this.cache.tableName, description: 'CACHE_TABLE' });
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
   * API-key authorizer: the account API's credential is the session cookie, checked by the function
   * (an API key is never accepted there), and the pages are public like any sign-in page.
   */
  private addDashboard(environment: Record<string, string>) {
    const dashboardOrigin = this.node.tryGetContext('dashboardOrigin') as string | undefined;
    const accountFn = this.nodeFunction('Account', 'functions/account.ts', {
      description: 'The dashboard account API: /v1/account/* (session cookie)',
      // scrypt (32 MiB, CPU-bound) on sign-in and set-password: 1024 MB gives it most of a vCPU.
      memorySize: 1024,
      timeout: Duration.seconds(10),
      environment: { ...environment, ...(dashboardOrigin ? { DASHBOARD_ORIGIN: dashboardOrigin } : {}) },
    });
    // Members, invitations, sessions, sign-in throttles and keys are items; the ledger and the
    // usage counters are read with Query on the team's partition; keys and members are listed
    // through the byTeam index. No DeleteItem: sign-out marks the session ended.
    this.allow(accountFn, this.accounts, 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query');
    accountFn.addToRolePolicy(new iam.PolicyStatement({ actions: ['dynamodb:Query'], resources: [`${this.accounts.tableArn}/index/${TEAM_INDEX.name}`] }));

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
      acknowledge(method, 'AwsSolutions-APIG4', "Authorised by the dashboard session (HttpOnly cookie, checked by the function for the member's own team); sign-in and set-password must be reachable without one.");
    }
    const dashboardIntegration = new apigateway.LambdaIntegration(dashboardFn, { proxy: true, allowTestInvoke: false });
    const pages = this.api.root.resourceForPath(DASHBOARD_PATH);
    const pageMethods = [pages.addMethod('GET', dashboardIntegration, open), pages.addResource('{proxy+}').addMethod('GET', dashboardIntegration, open)];
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

  /** Actions on the table itself (not its indexes): never Scan or DeleteItem; Query for the account API only. */
  private allow(fn: lambda.IFunction, table: dynamodb.ITable, ...actions: string[]) {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions, resources: [table.tableArn] }));
  }

  private scraperProxyUrl(): string | undefined {
    const parameter = this.node.tryGetContext('scraperProxyParameter') as string | undefined;
    if (parameter) return ssm.StringParameter.valueForStringParameter(this, parameter);
    const url = this.node.tryGetContext('scraperProxyUrl') as string | undefined;
    return url || undefined;
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
 * A cdk-nag (AwsSolutions) finding accepted on purpose, with its reason (README lists them all).
 * test/infra/nag.test.ts runs the pack; anything not fixed or acknowledged here fails it.
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

function numberContext(scope: Construct, key: string, fallback: number): number {
  const raw = scope.node.tryGetContext(key) as unknown;
  const n = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}
