import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { Session } from '../auth/sessions';
import { jsonObjectBody } from '../http/body';
import { type ProxyHandler, entryPoint } from '../http/entry';
import { jsonAnswer } from '../http/envelope';
import { ApiError } from '../http/errors';
import type { Log } from '../runtime/log';
import { loadSecrets } from '../runtime/secrets';
import { type Caller, type RouteDef, matchRoute } from './routes';
import { carriesKey, keyCaller, lowerHeaders, requireOwnOrigin, sessionCaller, sessionCookiePath } from './caller';

/**
 * The one router of every JSON API (the account API, the monitors API; the next ones are one more
 * route table): routes are data — method, path, name, who may call — and this module does for each
 * request what every route needs, once: match the route (behind any stage or base-path prefix),
 * lower-case the headers, check Origin on a state-changing request a browser may send, find the
 * caller (API key or dashboard session), read the JSON body, and answer `{data}` or the spec's error
 * envelope (shared/http/entry.ts). A handler gets a typed context and returns `{status?, data, cookies?}`.
 * Why not Powertools' event handler: docs/architecture.md, "One router for the JSON APIs".
 */

/** What every handler gets. */
export interface RouteContext {
  event: APIGatewayProxyEvent;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  query: Record<string, string>;
  params: Record<string, string>;
  /** The JSON object body of a state-changing request; {} otherwise. */
  body: Record<string, unknown>;
  requestId: string;
  log: Log;
  /** Set-Cookie lines of the answer, error answers included (EntryScope). */
  responseCookies: string[];
  /** The session cookie's path for this request (sessionCookiePath). */
  cookiePath: string;
}
/** A route called by a team: its key's or its session's. */
export interface TeamContext extends RouteContext {
  teamId: string;
  keyId?: string;
  session?: Session;
}
export type ContextFor<C extends Caller> = C extends 'public'
  ? RouteContext
  : C extends 'session'
    ? TeamContext & { session: Session }
    : C extends 'key'
      ? TeamContext & { keyId: string }
      : TeamContext;

export interface Reply {
  status?: number;
  data: unknown;
  /** Set-Cookie lines of this answer. */
  cookies?: string[];
}

export type { Caller, RouteDef };

/** One handler per route of `routes`, by name, each typed by its route's caller. */
export type Handlers<R extends readonly RouteDef[]> = { [Route in R[number] as Route['name']]: (ctx: ContextFor<Route['caller']>) => Promise<Reply> };

const STATE_CHANGING = new Set<string>(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface JsonApiOptions {
  /** The message of the 404 for a path or method no route has. */
  notFound: string;
  /** The largest JSON body a route accepts unless it says otherwise. */
  maxBodyBytes: number;
  /**
   * The API holds no write on the accounts table (the monitors API: infra/monitors.ts): a key is
   * checked by reads alone (shared/auth/authorizer.ts authorize's readOnly; its lastUsedAt is not touched).
   */
  readOnlyAccounts?: boolean;
}

/** The Lambda handler of a JSON API: `routes` dispatched to `handlers` through the steps above. */
export function jsonApi<const R extends readonly RouteDef[]>(name: string, routes: R, handlers: NoInfer<Handlers<R>>, options: JsonApiOptions): ProxyHandler {
  const byName = handlers as unknown as Record<string, (ctx: RouteContext) => Promise<Reply>>;
  return entryPoint(name, async (event, { requestId, log, responseCookies }) => {
    // The key pepper (KEY_PEPPER_SECRET_ARN: keys and session ids are hashed with it) and the like, once per cold start.
    await loadSecrets();
    // API Gateway always sends both: an event without them is our own failure (503), not the caller's 404.
    if (typeof event.path !== 'string' || typeof event.httpMethod !== 'string') throw new Error('malformed proxy event: no path or method');
    const matched = matchRoute(routes, event.httpMethod, event.path);
    if (!matched) throw new ApiError('NOT_FOUND', options.notFound);
    const { route, params } = matched;
    const headers = lowerHeaders(event.headers);
    const cookiePath = sessionCookiePath(event);
    const changes = STATE_CHANGING.has(event.httpMethod);
    const byKey = route.caller === 'key' || (route.caller === 'either' && carriesKey(headers));
    // A browser sends the session cookie to any site's form: a change it may make must come from our own pages.
    if (changes && !byKey) requireOwnOrigin(headers, log);
    const base: RouteContext = { event, headers, query: queryOf(event), params, body: {}, requestId, log, responseCookies, cookiePath };
    let ctx: RouteContext | TeamContext = base;
    if (byKey) ctx = { ...base, ...(await keyCaller(headers, { readOnly: options.readOnlyAccounts === true })) };
    else if (route.caller !== 'public') {
      const session = await sessionCaller(headers, base);
      ctx = { ...base, teamId: session.teamId, session };
    }
    if ('teamId' in ctx) log.appendKeys({ teamId: ctx.teamId, ...(ctx.keyId ? { keyId: ctx.keyId } : {}) });
    if (changes) ctx.body = jsonObjectBody(event, route.maxBodyBytes ?? options.maxBodyBytes);
    const reply = await byName[route.name]!(ctx);
    responseCookies.push(...(reply.cookies ?? []));
    return jsonAnswer(reply.status ?? 200, { data: reply.data }, requestId);
  });
}

function queryOf(event: APIGatewayProxyEvent): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.queryStringParameters ?? {})) if (typeof v === 'string') out[k] = v;
  return out;
}
