import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authorizerHandler } from '../shared/auth/authorizer';
import { failure } from '../shared/envelope';
import { RATE_LIMIT } from '../shared/config';
import { ApiError, GATEWAY_MESSAGES, atCapacity } from '../shared/errors';
import { logger } from '../shared/log';
import { routedOperations, type Operation } from '../shared/operations';
import { DASHBOARD_PATH, matchAccountRoute } from '../shared/account/routes';

/**
 * The local stand-in for API Gateway: the same routes (from the operation table), the same
 * authorizer, the same per-team throttle (RATE_LIMIT: the usage plan's token bucket), the same
 * gateway messages, and REST proxy events handed to the same handler modules Lambda runs.
 */
export type Handler = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

export interface GatewayOptions {
  port?: number;
  host?: string;
  /** Bucket size and refill per minute; default RATE_LIMIT (the spec's 100 per 60 s). Raised for load runs. */
  ratePerMinute?: number;
  burst?: number;
  /** Resolve an operation's handler; default imports functions/<id>.ts. */
  loadHandler?: (op: Operation) => Promise<Handler>;
}

export interface Gateway {
  url: string;
  server: http.Server;
  stop(): Promise<void>;
}

const STAGE = 'local';
export const OPENAPI_PATH = '/v1/openapi.json';

export class TokenBuckets {
  private buckets = new Map<string, { tokens: number; at: number }>();
  constructor(private readonly burst: number, private readonly perSecond: number) {}

  /** Takes a token, or returns the seconds to wait for one. */
  take(key: string, now = Date.now()): { ok: true } | { ok: false; retryAfter: number } {
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.perSecond);
    b.at = now;
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfter: Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond)) };
  }
}

const defaultLoader = async (op: Operation): Promise<Handler> => {
  const mod = (await import(`../functions/${op.id}`)) as { handler: Handler };
  return mod.handler;
};

export async function startGateway(opts: GatewayOptions = {}): Promise<Gateway> {
  const routes = new Map<string, Operation>(routedOperations().map((op) => [op.path, op]));
  const handlers = new Map<string, Promise<Handler>>();
  const load = opts.loadHandler ?? defaultLoader;
  const perMinute = opts.ratePerMinute ?? (RATE_LIMIT.requests * 60) / RATE_LIMIT.windowSeconds;
  const buckets = new TokenBuckets(opts.burst ?? RATE_LIMIT.requests, perMinute / 60);

  const server = http.createServer((req, res) => {
    void serve(req).then((result) => {
      res.writeHead(result.statusCode, result.headers as http.OutgoingHttpHeaders);
      res.end(result.body);
    });
  });

  let dashboardHandler: Promise<Handler> | undefined;
  const dashboard = () =>
    (dashboardHandler ??= Promise.all([import('../shared/account/static'), import('../dashboard/build')]).then(([s, b]) => s.dashboardHandler(() => b.buildDashboard())));

  async function serveAccount(req: http.IncomingMessage, url: URL, requestId: string): Promise<APIGatewayProxyResult> {
    const matched = matchAccountRoute(req.method ?? 'GET', url.pathname);
    if (!matched) {
      // API Gateway: an unknown path or method is MISSING_AUTHENTICATION_TOKEN, mapped to 404.
      return failure(new ApiError('NOT_FOUND', GATEWAY_MESSAGES.NOT_FOUND), requestId);
    }
    const body = await readBody(req);
    const event = plainEvent(req, url, requestId, matched.route.path, matched.params, body);
    const { handler } = await import('../functions/account');
    const res = await handler(event);
    // Served over plain http: a browser would drop a Secure cookie (except on localhost), so the
    // local gateway alone relaxes it. API Gateway is https only and passes it unchanged.
    const cookie = res.headers?.['set-cookie'];
    if (typeof cookie === 'string') res.headers = { ...res.headers, 'set-cookie': cookie.replace(/; Secure/g, '') };
    return res;
  }

  async function serve(req: http.IncomingMessage): Promise<APIGatewayProxyResult> {
    const requestId = randomUUID();
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      // The OpenAPI document is public, as on API Gateway (no authorizer on that route).
      if (url.pathname === OPENAPI_PATH && req.method === 'GET') return (await import('../functions/openapi')).handler();
      // The dashboard and its account API: no API-key authorizer (the session cookie is the credential).
      if (url.pathname.startsWith('/v1/account/')) return await serveAccount(req, url, requestId);
      if ((url.pathname === DASHBOARD_PATH || url.pathname.startsWith(`${DASHBOARD_PATH}/`)) && req.method === 'GET') {
        return await (await dashboard())(plainEvent(req, url, requestId, url.pathname, null, null));
      }
      const op = routes.get(url.pathname);
      if (!op || req.method !== 'GET') {
        return failure(new ApiError('NOT_FOUND', GATEWAY_MESSAGES.NOT_FOUND), requestId);
      }
      const { single, multi } = headerMaps(req);
      const { single: query, multi: multiQuery } = queryMaps(url);

      // What API Gateway puts in both the authorizer's REQUEST event and the function's proxy event.
      const common = {
        resource: op.path,
        path: url.pathname,
        httpMethod: 'GET',
        headers: single,
        multiValueHeaders: multi,
        queryStringParameters: query,
        multiValueQueryStringParameters: multiQuery,
        pathParameters: null,
        stageVariables: null,
      };
      const authEvent = {
        ...common,
        type: 'REQUEST',
        methodArn: `arn:aws:execute-api:local:000000000000:local/${STAGE}/GET${op.path}`,
        requestContext: { requestId, stage: STAGE },
      } as unknown as APIGatewayRequestAuthorizerEvent;
      let auth;
      try {
        auth = await authorizerHandler(authEvent);
      } catch (err) {
        if ((err as Error).message === 'Unauthorized') {
          return failure(new ApiError('UNAUTHORIZED', GATEWAY_MESSAGES.UNAUTHORIZED), requestId);
        }
        return failure(atCapacity(`authorizer failed: ${(err as Error).name}`), requestId);
      }

      const turn = buckets.take(auth.usageIdentifierKey ?? auth.principalId);
      if (!turn.ok) {
        return failure(new ApiError('RATE_LIMITED', GATEWAY_MESSAGES.RATE_LIMITED, { retryAfter: turn.retryAfter }), requestId);
      }

      const event: APIGatewayProxyEvent = {
        ...common,
        body: null,
        isBase64Encoded: false,
        requestContext: {
          requestId,
          stage: STAGE,
          httpMethod: 'GET',
          path: `/${STAGE}${url.pathname}`,
          resourcePath: op.path,
          authorizer: { ...(auth.context ?? {}), principalId: auth.principalId },
          identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' },
        } as unknown as APIGatewayProxyEvent['requestContext'],
      };
      let handler = handlers.get(op.id);
      if (!handler) {
        handler = load(op);
        handlers.set(op.id, handler);
      }
      return await (await handler)(event);
    } catch (err) {
      logger.error('local gateway failure', { requestId, error: String(err) });
      return failure(atCapacity(`local gateway failure: ${String(err)}`), requestId);
    }
  }

  // Node closes an idle keep-alive connection after 5 s, and a client whose own timer runs late (a busy
  // machine) may send its next request on it just then: ECONNRESET. API Gateway keeps idle
  // connections far longer; so does the local one, and the client always closes first.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const addr = server.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${addr.port}`,
    server,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A REST proxy event for a route without authorizer, as API Gateway builds it (https added as X-Forwarded-Proto). */
function plainEvent(req: http.IncomingMessage, url: URL, requestId: string, resource: string, pathParameters: Record<string, string> | null, body: string | null): APIGatewayProxyEvent {
  const { single, multi } = headerMaps(req);
  if (!Object.keys(single).some((h) => h.toLowerCase() === 'x-forwarded-proto')) {
    single['X-Forwarded-Proto'] = 'http';
    multi['X-Forwarded-Proto'] = ['http'];
  }
  const { single: query, multi: multiQuery } = queryMaps(url);
  const method = req.method ?? 'GET';
  return {
    resource,
    path: url.pathname,
    httpMethod: method,
    headers: single,
    multiValueHeaders: multi,
    queryStringParameters: query,
    multiValueQueryStringParameters: multiQuery,
    pathParameters: pathParameters && Object.keys(pathParameters).length ? pathParameters : null,
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      stage: STAGE,
      httpMethod: method,
      // No stage in local URLs: the request's own path, as behind a custom domain.
      path: url.pathname,
      resourcePath: resource,
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

async function readBody(req: http.IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > 1024 * 1024) break; // API Gateway's own limit is 10 MB; the account API refuses far less
    chunks.push(chunk as Buffer);
  }
  return chunks.length ? Buffer.concat(chunks).toString('utf8') : null;
}

/**
 * Name -> value maps as API Gateway's JSON event has them: every name an own property, `__proto__`
 * and `constructor` included (plain `obj[name] = …` would touch Object.prototype's instead).
 */
function maps(pairs: Iterable<[string, string]>) {
  const single = new Map<string, string>();
  const multi = new Map<string, string[]>();
  for (const [name, value] of pairs) {
    single.set(name, value);
    multi.set(name, [...(multi.get(name) ?? []), value]);
  }
  return { single: Object.fromEntries(single) as Record<string, string>, multi: Object.fromEntries(multi) as Record<string, string[]> };
}

function headerMaps(req: http.IncomingMessage) {
  const raw = req.rawHeaders;
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i] as string, raw[i + 1] as string]);
  return maps(pairs);
}

/** API Gateway REST: null when there is no query; the last value wins in the single-value map. */
function queryMaps(url: URL) {
  if ([...url.searchParams.keys()].length === 0) return { single: null, multi: null };
  return maps(url.searchParams);
}
