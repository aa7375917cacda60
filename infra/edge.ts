import { ACCOUNT_ROUTES, DASHBOARD_PATH, KEY_READABLE } from '../shared/account/routes';
import { SESSION_COOKIE } from '../shared/account/sessions';
import { LLMS_PATH, MCP_METHODS, MCP_PATH } from '../shared/mcp/routes';
import { MONITOR_ROUTES } from '../shared/monitors/routes';
import { routedOperations } from '../shared/operations';
import { OPENAPI_ROUTE } from '../shared/public/openapi-document';
import { STATUS_PATH } from '../shared/status/page';

/**
 * The edge in front of the functions, as data: every route belongs to one route group, and each group
 * has a per-address limit (a WAF rate-based rule scoped to the group's paths), a per-method share (an
 * API Gateway throttle of its own for each of its methods, sized from that limit) and, for the routes
 * that need one, the credential without which WAF refuses a request before it reaches API Gateway.
 * infra/stack.ts builds the web ACL, the method settings and the gateway cache from it; docs/security.md
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

const isKeyReadable = (path: string) => ACCOUNT_ROUTES.some((r) => r.path === path && (KEY_READABLE as readonly string[]).includes(r.name));
const OPEN_ACCOUNT = new Set<string>(['signIn', 'setPassword', 'signOut']);
const SIGN_IN: readonly (typeof ACCOUNT_ROUTES)[number][] = ACCOUNT_ROUTES.filter((r) => r.name === 'signIn' || r.name === 'setPassword');

/**
 * The six groups. Their per-address limits, from what a real caller sends:
 *  - key-authorised: a team may make 100 requests per 60 s (the usage plan); 300 leaves room for a
 *    few teams behind one address (an office, a reseller) and for retries the usage plan refuses.
 *  - sign-in: a person signs in a few times a day; the function's own throttle allows 50 attempts
 *    per address per 15 minutes (shared/account/throttle.ts).
 *  - account API and dashboard: opening the dashboard is index.html, app.js, app.css and 2 or 3
 *    account calls; fifty browsers behind one address opening it at once are 150 of each.
 *  - monitors: managed now and then (a form in the dashboard, a script creating a few hundred in
 *    a loop); the dashboard's Monitors page lists them and a monitor's deliveries. 120 per minute
 *    lets a script create 100 monitors (a team's most) in a minute, with room for the page.
 *  - public documents: read by people and agents now and then; the status page once per view.
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
    credential: (r) => (ACCOUNT_ROUTES.some((a) => a.path === r.path && a.method === r.method && OPEN_ACCOUNT.has(a.name)) ? 'none' : isKeyReadable(r.path) ? 'key-or-session' : 'session'),
  },
  {
    name: 'monitors',
    description: '/v1/monitors/* (API key or session)',
    routes: MONITOR_ROUTES.map(({ method, path }) => ({ method, path })),
    perAddress: { limit: 120, windowSeconds: 60 },
    credential: () => 'key-or-session',
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
export function pathPattern(routes: readonly Pick<Route, 'path'>[]): string {
  const segment = (seg: string) => (/^\{\w+\+\}$/.test(seg) ? '.+' : /^\{\w+\}$/.test(seg) ? '[^/]+' : seg.replace(/[.+^$()|[\]\\*?{}]/g, '\\$&'));
  const alternatives = [...new Set(routes.map((r) => r.path.split('/').map(segment).join('/')))];
  const pattern = `^(/[^/]+)*(${alternatives.join('|')})/?$`;
  // WAF's limit on a regular expression.
  if (pattern.length > 512) throw new Error(`the path pattern of ${routes.length} routes is ${pattern.length} characters; WAF takes 512`);
  return pattern;
}

/** The cookie that carries a dashboard session (WAF looks for `<name>=` in the Cookie header). */
export const SESSION_COOKIE_MARK = `${SESSION_COOKIE}=`;

/** WAF statements in CloudFormation's shape (CfnWebACL's properties), built from the groups. */
type Statement = Record<string, unknown>;
const NONE = [{ priority: 0, type: 'NONE' }];

export const waf = {
  paths: (routes: readonly Pick<Route, 'path'>[]): Statement => ({
    regexMatchStatement: { regexString: pathPattern(routes), fieldToMatch: { uriPath: {} }, textTransformations: [{ priority: 0, type: 'URL_DECODE' }] },
  }),
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
