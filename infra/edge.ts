import { Lazy, RemovalPolicy, Stack } from 'aws-cdk-lib/core';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { NOT_SIGNED_IN } from '../shared/account/context';
import { ACCOUNT_ROUTES, DASHBOARD_PATH } from '../shared/api/account-routes';
import type { Caller, RouteDef as JsonRoute } from '../shared/api/routes';
import { ERROR_STATUS, GATEWAY_MESSAGES, GATEWAY_REFUSAL_HEADERS, RETRY_AFTER_S, type ErrorCode } from '../shared/http/errors';
import { SESSION_COOKIE } from '../shared/auth/sessions';
import { LLMS_PATH, MCP_METHODS, MCP_PATH } from '../shared/api/agent-routes';
import { MONITOR_ROUTES } from '../shared/api/monitor-routes';
import { JOB_ROUTES } from '../shared/api/job-routes';
import { WEBHOOK_ROUTES } from '../shared/api/webhook-routes';
import { routedOperations } from '../shared/operations';
import { OPENAPI_ROUTE } from '../shared/public/openapi-document';
import { RATE_LIMIT } from '../shared/runtime/config';
import { STATUS_PATH } from '../shared/status/page';
import { REFERENCE_PATH } from '../shared/public/reference-page';
import { acknowledge } from './acknowledge';
import { StackPart } from './part';

/**
 * The edge in front of the functions, as data: every route belongs to one route group, and each group
 * has a per-address limit (a WAF rate-based rule scoped to the group's paths), a per-method share (an
 * API Gateway throttle of its own for each of its methods, sized from that limit) and, for the routes
 * that need one, the credential without which WAF refuses a request before it reaches API Gateway.
 * The Edge construct below builds the web ACL, the method settings and the gateway cache from it; docs/security.md
 * ("The edge") shows its arithmetic, and test/infra/stack.test.ts holds the two to each other.
 *
 * The sizing rule: a method's burst is ADDRESSES_TO_DRAIN_BURST times its group's per-address limit,
 * and its rate ADDRESSES_TO_DRAIN_RATE times the per-address rate (limit / window). So one address at
 * its limit takes at most a quarter of any method's burst and a twentieth of its rate: no single
 * address under the WAF limit makes a method answer 429 to anyone else.
 */

/** A method of a route: `GET /v1/account/keys/{keyId}` (API Gateway's resource path, stage excluded). */
export interface Route {
  method: string;
  path: string;
}

/** What a route takes before WAF lets it through to API Gateway (the function still checks it). */
export type Credential = 'key' | 'session' | 'key-or-session' | 'none';

export interface RouteGroup {
  name: string;
  description: string;
  routes: Route[];
  /** Requests one address may send to the group's routes in one WAF window (WAF allows 60, 120, 300 or 600 s). */
  perAddress: { limit: number; windowSeconds: 60 | 120 | 300 | 600 };
  /** Seconds API Gateway's cache keeps an answer (routes whose answer depends on nothing a caller sends). */
  cacheTtlSeconds?: (route: Route) => number | undefined;
  /** What each of its routes needs. */
  credential: (route: Route) => Credential;
}

/** One address at its limit drains at most 1/4 of a method's burst and 1/20 of its rate. */
export const ADDRESSES_TO_DRAIN_BURST = 4;
export const ADDRESSES_TO_DRAIN_RATE = 20;

/** A group's per-method throttle, from its per-address limit (the sizing rule above). */
export function methodShare(group: Pick<RouteGroup, 'perAddress'>): { rate: number; burst: number } {
  const { limit, windowSeconds } = group.perAddress;
  return { rate: Math.ceil((ADDRESSES_TO_DRAIN_RATE * limit) / windowSeconds), burst: ADDRESSES_TO_DRAIN_BURST * limit };
}

/** How many addresses, each at its limit, it takes to exhaust a method with this throttle (at once, and sustained). */
export function addressesToExhaust(group: Pick<RouteGroup, 'perAddress'>, share: { rate: number; burst: number }): { burst: number; rate: number } {
  const { limit, windowSeconds } = group.perAddress;
  return { burst: Math.ceil(share.burst / limit), rate: Math.ceil((share.rate * windowSeconds) / limit) };
}

/** What the edge lets through to a JSON API's route: the credential its `caller` names (shared/api/routes.ts). */
const CREDENTIAL_OF: Record<Caller, Credential> = { public: 'none', session: 'session', key: 'key', either: 'key-or-session' };
/** The credential of a route of a JSON API's table, by method and path. */
const credentialIn = (table: readonly JsonRoute[]) => (r: Route): Credential => {
  const route = table.find((a) => a.path === r.path && a.method === r.method);
  if (!route) throw new Error(`${r.method} ${r.path} is not in its route table`);
  return CREDENTIAL_OF[route.caller];
};
const SIGN_IN: readonly (typeof ACCOUNT_ROUTES)[number][] = ACCOUNT_ROUTES.filter((r) => r.name === 'signIn' || r.name === 'setPassword');

/**
 * The seven groups. Their per-address limits, from what a real caller sends:
 *  - key-authorised: a team may make 100 requests per 60 s (the usage plan); 300 leaves room for a
 *    few teams behind one address (an office, a reseller) and for retries the usage plan refuses.
 *  - sign-in: a person signs in a few times a day; the function's own throttle allows 50 attempts
 *    per address per 15 minutes (shared/account/throttle.ts).
 *  - account API and dashboard: opening the dashboard is index.html, app.js, app.css and 2 or 3
 *    account calls; fifty browsers behind one address opening it at once are 150 of each.
 *  - monitors: managed now and then (a form in the dashboard, a script creating a few hundred in
 *    a loop); the dashboard's Monitors page lists them and a monitor's deliveries. 120 per minute
 *    lets a script create 100 monitors (a team's most) in a minute, with room for the page.
 *  - jobs: a job is submitted once and then watched (`jobs submit --wait` reads its state every few
 *    seconds; the dashboard's Jobs page every few seconds while one runs): 120 per minute.
 *  - public documents: read by people and agents now and then; the status page once per view.
 *  - the API reference: opening it is the page, its script and stylesheet (and the OpenAPI
 *    document, in the documents group); a class of fifty behind one address is 150.
 */
export const ROUTE_GROUPS: readonly RouteGroup[] = [
  {
    name: 'key-authorised',
    description: `the ${routedOperations().length} operations and ${MCP_PATH} (API key)`,
    routes: [...routedOperations().map((op) => ({ method: 'GET', path: op.path })), ...MCP_METHODS.map((method) => ({ method, path: MCP_PATH }))],
    perAddress: { limit: 300, windowSeconds: 60 },
    credential: () => 'key',
  },
  {
    name: 'sign-in',
    description: 'sign-in and set-password',
    routes: SIGN_IN.map(({ method, path }) => ({ method, path })),
    perAddress: { limit: 20, windowSeconds: 60 },
    credential: () => 'none',
  },
  {
    name: 'account',
    description: 'the rest of /v1/account/* (session, or API key for the three reads)',
    routes: ACCOUNT_ROUTES.filter((r) => !SIGN_IN.includes(r)).map(({ method, path }) => ({ method, path })),
    perAddress: { limit: 200, windowSeconds: 60 },
    credential: credentialIn(ACCOUNT_ROUTES),
  },
  {
    name: 'monitors',
    description: '/v1/monitors/* and /v1/webhooks/* (API key or session)',
    routes: [...MONITOR_ROUTES, ...WEBHOOK_ROUTES].map(({ method, path }) => ({ method, path })),
    perAddress: { limit: 120, windowSeconds: 60 },
    credential: credentialIn([...MONITOR_ROUTES, ...WEBHOOK_ROUTES]),
  },
  {
    name: 'jobs',
    description: '/v1/jobs/* (API key or session)',
    routes: JOB_ROUTES.map(({ method, path }) => ({ method, path })),
    perAddress: { limit: 120, windowSeconds: 60 },
    credential: credentialIn(JOB_ROUTES),
  },
  {
    name: 'dashboard',
    description: 'the dashboard page and its assets',
    routes: [
      { method: 'GET', path: DASHBOARD_PATH },
      { method: 'GET', path: `${DASHBOARD_PATH}/{proxy+}` },
    ],
    perAddress: { limit: 300, windowSeconds: 60 },
    // The same for every caller (the stage's prefix aside, which is the cache's own): kept 60 s, so a
    // deployment's new page and assets are served within a minute.
    cacheTtlSeconds: () => 60,
    credential: () => 'none',
  },
  {
    name: 'reference',
    description: 'the API reference page and its assets',
    routes: [
      { method: 'GET', path: REFERENCE_PATH },
      { method: 'GET', path: `${REFERENCE_PATH}/{proxy+}` },
    ],
    perAddress: { limit: 300, windowSeconds: 60 },
    // The same for every caller (the stage's prefix aside), as the dashboard's: kept 60 s.
    cacheTtlSeconds: () => 60,
    credential: () => 'none',
  },
  {
    name: 'documents',
    description: 'the OpenAPI document, /llms.txt and /v1/status',
    routes: [OPENAPI_ROUTE, LLMS_PATH, STATUS_PATH].map((path) => ({ method: 'GET', path })),
    perAddress: { limit: 120, windowSeconds: 60 },
    // The status document changes every few seconds (and its function keeps it 30 s): 10 s here.
    cacheTtlSeconds: (r) => (r.path === STATUS_PATH ? 10 : 300),
    credential: () => 'none',
  },
];

export const groupOf = (route: Route): RouteGroup | undefined => ROUTE_GROUPS.find((g) => g.routes.some((r) => r.method === route.method && r.path === route.path));

/**
 * A WAF regular expression (PCRE) matching the URI paths of `routes` whatever precedes them (the
 * stage, `/prod`, or a custom domain's base path), with or without a trailing slash: `{name}` is one
 * path segment, `{name+}` one or more.
 */
export function pathPatterns(routes: readonly Pick<Route, 'path'>[]): string[] {
  const segment = (seg: string) => (/^\{\w+\+\}$/.test(seg) ? '.+' : /^\{\w+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.+^$()|[\]\\*?{}]/g, '\\$&'));
  const all = [...new Set(routes.map((r) => r.path.split('/').map(segment).join('/')))];
  // A literal path another alternative already matches (`/v1/webhooks/settings` beside `/v1/webhooks/[^/]+`) adds nothing.
  const literal = (p: string) => !/[[\]+\\]/.test(p);
  const alternatives = all.filter((a) => !(literal(a) && all.some((b) => b !== a && new RegExp(`^${b}$`).test(a))));
  // WAF's limit on a regular expression is 512 characters: as many patterns as it takes, each within it.
  const wrap = (alts: string[]) => `^(/[^/]+)*(${alts.join('|')})/?$`;
  const patterns: string[] = [];
  let current: string[] = [];
  for (const alt of alternatives) {
    if (wrap([alt]).length > 512) throw new Error(`the path pattern of ${alt} is longer than WAF's 512 characters`);
    if (current.length && wrap([...current, alt]).length > 512) {
      patterns.push(wrap(current));
      current = [];
    }
    current.push(alt);
  }
  if (current.length) patterns.push(wrap(current));
  return patterns;
}

/** The one pattern of `routes` (pathPatterns), when they fit one. */
export function pathPattern(routes: readonly Pick<Route, 'path'>[]): string {
  const [pattern, ...more] = pathPatterns(routes);
  if (more.length) throw new Error(`the path pattern of ${routes.length} routes is longer than WAF's 512 characters`);
  return pattern!;
}

/** The cookie that carries a dashboard session (WAF looks for `<name>=` in the Cookie header). */
export const SESSION_COOKIE_MARK = `${SESSION_COOKIE}=`;

/** WAF statements in CloudFormation's shape (CfnWebACL's properties), built from the groups. */
type Statement = Record<string, unknown>;
const NONE = [{ priority: 0, type: 'NONE' }];

export const waf = {
  /** The routes' paths: one regular expression, or several in an OR when they do not fit WAF's 512 characters. */
  paths: (routes: readonly Pick<Route, 'path'>[]): Statement =>
    waf.or(...pathPatterns(routes).map((regexString) => ({ regexMatchStatement: { regexString, fieldToMatch: { uriPath: {} }, textTransformations: [{ priority: 0, type: 'URL_DECODE' }] } }))),
  /** An API key in either form the authorizer reads (it checks the key; this only sees that one is there). */
  hasKey: (): Statement => ({
    orStatement: {
      statements: [
        { sizeConstraintStatement: { fieldToMatch: { singleHeader: { Name: 'x-api-key' } }, comparisonOperator: 'GT', size: 0, textTransformations: NONE } },
        {
          byteMatchStatement: {
            fieldToMatch: { singleHeader: { Name: 'authorization' } },
            positionalConstraint: 'CONTAINS',
            searchString: 'bearer ',
            textTransformations: [
              { priority: 0, type: 'COMPRESS_WHITE_SPACE' },
              { priority: 1, type: 'LOWERCASE' },
            ],
          },
        },
      ],
    },
  }),
  hasSession: (): Statement => ({
    byteMatchStatement: { fieldToMatch: { singleHeader: { Name: 'cookie' } }, positionalConstraint: 'CONTAINS', searchString: SESSION_COOKIE_MARK, textTransformations: NONE },
  }),
  not: (statement: Statement): Statement => ({ notStatement: { statement } }),
  and: (...statements: Statement[]): Statement => ({ andStatement: { statements } }),
  or: (...statements: Statement[]): Statement => (statements.length === 1 ? statements[0]! : { orStatement: { statements } }),
};

/** Every route of the groups without the key authorizer (WAF asks no key of them). */
export const openGroups = () => ROUTE_GROUPS.filter((g) => g.routes.every((r) => g.credential(r) !== 'key'));

/** The paths of open routes: one regular expression per group (each within WAF's 512 characters). */
export const openPaths = (): Statement => waf.or(...openGroups().map((g) => waf.paths(g.routes)));

/** The routes of all groups that need `credential`; a path whose methods need different ones is refused (WAF sees paths, not methods). */
export function routesNeeding(credential: Credential): Route[] {
  const all = ROUTE_GROUPS.flatMap((g) => g.routes.map((r) => ({ route: r, credential: g.credential(r) })));
  for (const { route, credential: c } of all) {
    const other = all.find((x) => x.route.path === route.path && x.credential !== c);
    if (other) throw new Error(`${route.method} ${route.path} needs ${c} but ${other.route.method} ${other.route.path} needs ${other.credential}: WAF tells paths apart, not methods`);
  }
  return all.filter((x) => x.credential === credential).map((x) => x.route);
}

/** The statement a group's per-address rule counts: its paths (the key-authorised group: every path that is not an open route's, so an unknown path counts too). */
export const groupScope = (group: RouteGroup): Statement => (openGroups().includes(group) ? waf.paths(group.routes) : waf.not(openPaths()));

/**
 * The arithmetic of the groups as the table docs/security.md shows (test/infra/stack.test.ts holds
 * the page to it): per group, the per-address limit, each method's share, and how many addresses at
 * their limit it takes to exhaust one method's burst at once, and its rate over time.
 */
export function edgeTable(): string {
  const rows = ROUTE_GROUPS.map((g) => {
    const share = methodShare(g);
    const need = addressesToExhaust(g, share);
    const perSecond = g.perAddress.limit / g.perAddress.windowSeconds;
    const ttls = [...new Set(g.routes.map((r) => g.cacheTtlSeconds?.(r)).filter((t): t is number => t !== undefined))];
    const keyed = g.routes.every((r) => g.credential(r) === 'key');
    const method = `${share.rate} rps, burst ${share.burst}${keyed ? ' (at least: the stage default, applied to each)' : ''}`;
    return `| ${g.name} | ${g.description} | ${g.routes.length} | ${g.perAddress.limit} per ${g.perAddress.windowSeconds} s (${+perSecond.toFixed(2)}/s) | ${method} | ${need.burst} at once, ${need.rate} sustained | ${ttls.length ? `${ttls.join(' or ')} s` : 'no'} |`;
  });
  return [
    '| Route group | Routes | Methods | Per address (WAF) | Each method (API Gateway) | Addresses at their limit to exhaust one method | Cached |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** Per team: the spec's limit (RATE_LIMIT), as a token bucket of 100 refilled at 100/60 per second. */
export const TEAM_RATE_LIMIT = RATE_LIMIT.requests / RATE_LIMIT.windowSeconds;
export const TEAM_BURST_LIMIT = RATE_LIMIT.requests;
/** A token comes back every 0.6 s at the team rate, so one second is always enough to retry. */
const THROTTLE_RETRY_AFTER_S = 1;
/** The handlers' own SERVICE_UNAVAILABLE Retry-After. */
const GATEWAY_5XX_RETRY_AFTER_S = RETRY_AFTER_S.SERVICE_UNAVAILABLE;
/** The deployed stage (the first path segment of the execute-api URL). */
export const STAGE_NAME = 'prod';

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

/** Gateway response templates are not VTL, but $context variables are substituted. */
export function errorTemplate(code: ErrorCode, message: string): string {
  return JSON.stringify({ error: { code, message, requestId: '$context.requestId' } });
}

export interface EdgeProps {
  /** The stage's default throttle, applied to each key-authorised method (settings STAGE_RATE_LIMIT/STAGE_BURST_LIMIT). */
  stageRateLimit: number;
  stageBurstLimit: number;
  /** API Gateway's cache for the answers that are the same for every caller. */
  gatewayCache: boolean;
  /** The web ACL's overall limit per address per 5 minutes; undefined: no web ACL. */
  wafRateLimitPer5Min?: number;
  /** The API's public base URL when it is not the stage's execute-api URL (a custom domain). */
  publicUrl?: string;
}

/**
 * The edge as a construct: the REST API and its stage (throttle, access logs without keys, error-only
 * execution logs, the cache), the per-team usage plan, API Gateway's own refusals in the service's
 * error envelope, the WAFv2 web ACL, and each method's share (method settings, from the route
 * groups above). The other parts add their routes to `api`; the method settings are computed at
 * synthesis, over every method any part has added.
 */
export class Edge extends StackPart {
  readonly api: apigateway.RestApi;
  readonly usagePlan: apigateway.UsagePlan;
  /** The API's public address: the configured publicUrl, else the stage's execute-api URL. */
  readonly publicUrl: string;

  constructor(scope: Construct, id: string, private readonly props: EdgeProps) {
    super(scope, id);
    this.api = this.restApi();
    // Built from the API's id, not from the stage, which depends on the methods and so on the functions.
    const stack = Stack.of(this);
    this.publicUrl = props.publicUrl ?? `https://${this.api.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}/${STAGE_NAME}`;
    this.usagePlan = this.api.addUsagePlan('TeamUsagePlan', {
      name: 'social-data-api-team',
      description: `One API key per team (created by the admin CLI); ${RATE_LIMIT.requests} requests per ${RATE_LIMIT.windowSeconds} s per team`,
      throttle: { rateLimit: TEAM_RATE_LIMIT, burstLimit: TEAM_BURST_LIMIT },
      apiStages: [{ api: this.api, stage: this.api.deploymentStage }],
    });
    this.addGatewayResponses();
    const stage = this.api.deploymentStage.node.defaultChild as apigateway.CfnStage;
    const existing = (stage.methodSettings ?? []) as apigateway.CfnStage.MethodSettingProperty[];
    stage.methodSettings = Lazy.any({ produce: () => [...existing, ...this.methodSettings()] });
    this.addWebAcl();
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
        throttlingRateLimit: this.props.stageRateLimit,
        throttlingBurstLimit: this.props.stageBurstLimit,
        // The cache serves the dashboard's assets and the public documents without a Lambda per
        // request (methodSettings turns it on for those methods alone); nothing else is cached.
        ...(this.props.gatewayCache ? { cacheClusterEnabled: true, cacheClusterSize: '0.5' } : {}),
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
    // RestApi adds an output with a generated name; the stack's ApiUrl replaces it with a stable one.
    api.node.tryRemoveChild('Endpoint');
    return api;
  }

  /**
   * Every method's share of API Gateway, from its route group: the open groups' methods each get a
   * throttle of their own, sized from the group's per-address limit (so one address at its limit
   * drains at most a quarter of a method's burst and a twentieth of its rate), and, where the answer
   * is the same for every caller, API Gateway's cache; the key-authorised methods share the stage's
   * default throttle (applied to each method), which must be at least their group's share. A method
   * in no group, or whose authorizer contradicts its group, fails the synthesis.
   */
  private methodSettings(): apigateway.CfnStage.MethodSettingProperty[] {
    const { stageRateLimit: stageRate, stageBurstLimit: stageBurst } = this.props;
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
      const ttl = this.props.gatewayCache ? group.cacheTtlSeconds?.(route) : undefined;
      settings.push({
        resourcePath: `/${route.path.replace(/\//g, '~1')}`,
        httpMethod: route.method,
        throttlingRateLimit: share.rate,
        throttlingBurstLimit: share.burst,
        ...(ttl ? { cachingEnabled: true, cacheTtlInSeconds: ttl, cacheDataEncrypted: true } : {}),
      });
    }
    return settings;
  }

  /**
   * A WAFv2 web ACL on the stage: it blocks an address sending more than wafRateLimitPer5Min requests
   * in WAF's 5-minute window (whatever the route), refuses a request without the credential its route
   * needs (401) before API Gateway counts it, and holds each address to its route group's limit.
   * Without a limit (context wafRateLimit=false) there is none.
   */
  private addWebAcl() {
    const limit = this.props.wafRateLimitPer5Min;
    if (limit === undefined) {
      acknowledge(this.api, 'AwsSolutions-APIG3', 'No WAF by choice of this deployment (context wafRateLimit=false): the deployer has a web ACL of their own; per-method throttles on the open routes and the per-team usage plan still apply.');
      return;
    }
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
        // Each group's per-address limit, well under each of its methods' share.
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
