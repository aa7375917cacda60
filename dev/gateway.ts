import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { Unauthorized, authorizerHandler } from '../shared/auth/authorizer';
import { failure } from '../shared/http/envelope';
import type { ProxyHandler } from '../shared/http/entry';
import { RATE_LIMIT, config } from '../shared/runtime/config';
import { ApiError, GATEWAY_MESSAGES, GATEWAY_REFUSAL_HEADERS, atCapacity } from '../shared/http/errors';
import { logger } from '../shared/runtime/log';
import { routedOperations, type Operation } from '../shared/operations';
import { ACCOUNT_ROUTES, DASHBOARD_PATH } from '../shared/api/account-routes';
import { MONITOR_ROUTES } from '../shared/api/monitor-routes';
import { JOB_ROUTES } from '../shared/api/job-routes';
import { LOCAL_FILES_PATH, localPath, localUrlAllows } from '../shared/jobs/files';
import { WEBHOOK_ROUTES } from '../shared/api/webhook-routes';
import { type RouteDef, matchRoute } from '../shared/api/routes';
import { createMcpHandler } from '../shared/mcp/http';
import { LLMS_PATH, MCP_METHODS, MCP_PATH } from '../shared/api/agent-routes';
import { OPENAPI_ROUTE, openApiHandler } from '../shared/public/openapi-document';
import { llmsTxtHandler } from '../shared/public/llms-txt';
import { STATUS_PATH } from '../shared/status/page';
import { REFERENCE_PATH } from '../shared/public/reference-page';

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
  /** The REQUEST authorizer; default the one Lambda runs (the bench wraps it to time it). */
  authorizer?: typeof authorizerHandler;
}

export interface Gateway {
  url: string;
  server: http.Server;
  stop(): Promise<void>;
}

const STAGE = 'local';

export class TokenBuckets {
  private buckets = new Map<string, { tokens: number; at: number }>();
  constructor(private readonly burst: number, private readonly perSecond: number) {}

  /**
   * Takes a token, or says how long to wait for one. Either way, the figures of the IETF
   * RateLimit header fields: the bucket's size, whole tokens left, and seconds until it is full again.
   */
  take(key: string, now = Date.now()): ({ ok: true } | { ok: false; retryAfter: number }) & { limit: number; remaining: number; reset: number } {
    const b = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) / 1000) * this.perSecond);
    b.at = now;
    this.buckets.set(key, b);
    const ok = b.tokens >= 1;
    if (ok) b.tokens -= 1;
    const figures = { limit: this.burst, remaining: Math.floor(b.tokens), reset: Math.ceil((this.burst - b.tokens) / this.perSecond) };
    return ok ? { ok: true, ...figures } : { ok: false, retryAfter: Math.max(1, Math.ceil((1 - b.tokens) / this.perSecond)), ...figures };
  }
}

/**
 * The local gateway's own limiter knows its figures, so its operation answers carry them (the IETF
 * draft's RateLimit-Limit, -Remaining, -Reset). Deployed, the usage plan enforces the limit and API
 * Gateway does not tell the function the figures: no RateLimit header is sent there.
 */
const rateLimitHeaders = (t: { limit: number; remaining: number; reset: number }): Record<string, string> => ({
  'RateLimit-Limit': String(t.limit),
  'RateLimit-Remaining': String(t.remaining),
  'RateLimit-Reset': String(t.reset),
});

/** The gateway's own refusals of an operation request cost nothing, and say so as the function's answers do. */
const refused = (answer: APIGatewayProxyResult): APIGatewayProxyResult => ({ ...answer, headers: { ...answer.headers, ...GATEWAY_REFUSAL_HEADERS } });

const defaultLoader = async (op: Operation): Promise<Handler> => {
  const mod = (await import(`../functions/${op.id}`)) as { handler: Handler };
  return mod.handler;
};

type Answer = (req: http.IncomingMessage, url: URL, requestId: string) => Promise<APIGatewayProxyResult>;

/** API Gateway: an unknown path or method is MISSING_AUTHENTICATION_TOKEN, mapped to 404. */
const unknownRoute = (requestId: string) => failure(new ApiError('NOT_FOUND', GATEWAY_MESSAGES.NOT_FOUND), requestId);

export async function startGateway(opts: GatewayOptions = {}): Promise<Gateway> {
  // The public address links are written with (llms.txt): PUBLIC_BASE_URL, else this gateway's own
  // URL, known once it listens; never the request's Host.
  let ownUrl = '';
  const answer = router(opts, () => config.publicBaseUrl ?? ownUrl);
  const server = http.createServer((req, res) => {
    void answer(req)
      .then((result) => send(res, result))
      // An answer node refuses to write (a header name or value it rejects, a status out of range) is
      // the gateway failing for that request alone, as API Gateway's DEFAULT_5XX: never the server's end.
      .catch((err: unknown) => {
        const requestId = randomUUID();
        logger.error('local gateway could not write an answer', { requestId, error: String(err) });
        if (res.headersSent) return void res.destroy();
        for (const name of res.getHeaderNames()) res.removeHeader(name);
        try {
          send(res, failure(atCapacity(`local gateway could not write an answer: ${String(err)}`), requestId));
        } catch {
          res.destroy();
        }
      });
  });
  // A client (fetch keeps idle sockets 4 s) must never reuse a socket the server is closing at that
  // moment: on a busy machine the two timers cross and the request dies with ECONNRESET. The server
  // keeps idle sockets far longer than any client does, as a load balancer in front of a fleet would.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  const gateway = await listen(server, opts);
  ownUrl = gateway.url;
  return gateway;
}

/** As API Gateway does: `headers` and `multiValueHeaders` merged (a Set-Cookie line per value). */
function send(res: http.ServerResponse, result: APIGatewayProxyResult): void {
  const multi = Object.entries(result.multiValueHeaders ?? {}).map(([name, values]) => [name, values.map(String)]);
  res.writeHead(result.statusCode, { ...result.headers, ...Object.fromEntries(multi) } as http.OutgoingHttpHeaders);
  res.end(result.body);
}

/**
 * Every request to its route, as API Gateway routes them: the public OpenAPI document, the account
 * API and the dashboard (no API-key authorizer: the session cookie is their credential), then the
 * operations. A failure of the gateway itself is a 503, as API Gateway's DEFAULT_5XX.
 */
function router(opts: GatewayOptions, publicUrl: () => string): (req: http.IncomingMessage) => Promise<APIGatewayProxyResult> {
  const operation = operationRoutes(opts);
  const dashboard = dashboardRoute();
  const reference = referenceRoute();
  const llms = llmsTxtHandler(publicUrl);
  // The document's servers: this gateway (or PUBLIC_BASE_URL), as the stack sets it for the function.
  const openApi = import('../docs/openapi.json').then((doc) => openApiHandler(doc.default, publicUrl));
  return async (req) => {
    const requestId = randomUUID();
    try {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const get = req.method === 'GET';
      if (url.pathname === OPENAPI_ROUTE && get) return (await openApi)(plainEvent(req, url, requestId, OPENAPI_ROUTE, null, null));
      if (url.pathname === STATUS_PATH && get) return (await import('../functions/status')).handler(plainEvent(req, url, requestId, STATUS_PATH, null, null));
      if (url.pathname === LLMS_PATH && get) return llms(plainEvent(req, url, requestId, LLMS_PATH, null, null));
      if (url.pathname.startsWith('/v1/account/')) return await jsonApiRoute(ACCOUNT_ROUTES, () => import('../functions/account'), req, url, requestId);
      if (url.pathname === '/v1/monitors' || url.pathname.startsWith('/v1/monitors/')) return await jsonApiRoute(MONITOR_ROUTES, () => import('../functions/monitors'), req, url, requestId);
      if (url.pathname === '/v1/jobs' || url.pathname.startsWith('/v1/jobs/')) return await jsonApiRoute(JOB_ROUTES, () => import('../functions/jobs'), req, url, requestId);
      if (url.pathname.startsWith(LOCAL_FILES_PATH)) return await localFile(req, url);
      if (url.pathname === '/v1/webhooks' || url.pathname.startsWith('/v1/webhooks/')) return await jsonApiRoute(WEBHOOK_ROUTES, () => import('../functions/monitors'), req, url, requestId);
      if ((url.pathname === DASHBOARD_PATH || url.pathname.startsWith(`${DASHBOARD_PATH}/`)) && get) return await dashboard(req, url, requestId);
      if ((url.pathname === REFERENCE_PATH || url.pathname.startsWith(`${REFERENCE_PATH}/`)) && get) return await reference(req, url, requestId);
      return await operation(req, url, requestId);
    } catch (err) {
      logger.error('local gateway failure', { requestId, error: String(err) });
      return failure(atCapacity(`local gateway failure: ${String(err)}`), requestId);
    }
  };
}

/**
 * A JSON API (the account API, the monitors API): its route table, and the one function serving it
 * (shared/api/router.ts), which checks the caller itself (an API key or the dashboard session).
 */
async function jsonApiRoute(routes: readonly RouteDef[], fn: () => Promise<{ handler: ProxyHandler }>, req: http.IncomingMessage, url: URL, requestId: string): Promise<APIGatewayProxyResult> {
  const matched = matchRoute(routes, req.method ?? 'GET', url.pathname);
  if (!matched) return unknownRoute(requestId);
  const body = await readBody(req);
  const { handler } = await fn();
  return overPlainHttp(await handler(plainEvent(req, url, requestId, matched.route.path, matched.params, body)));
}

/**
 * The local stand-in for the results bucket's pre-signed URLs (shared/jobs/files.ts): GET reads a job
 * file, PUT writes an upload, each only with a signature of this process that has not expired (403
 * otherwise, as S3 answers). Bodies as S3 takes them: up to the upload limit.
 */
async function localFile(req: http.IncomingMessage, url: URL): Promise<APIGatewayProxyResult> {
  const key = decodeURIComponent(url.pathname.slice(LOCAL_FILES_PATH.length));
  const file = localPath(key);
  const method = req.method ?? 'GET';
  const denied = (status: number, message: string): APIGatewayProxyResult => ({ statusCode: status, headers: { 'content-type': 'text/plain' }, body: message });
  if (!file || (method !== 'GET' && method !== 'PUT')) return denied(404, 'NoSuchKey');
  if (!localUrlAllows(method, key, url.searchParams)) return denied(403, 'AccessDenied: signature invalid or expired');
  const { readFile, writeFile, mkdir } = await import('node:fs/promises');
  const { dirname } = await import('node:path');
  if (method === 'PUT') {
    const { MAX_UPLOAD_BYTES } = await import('../shared/api/job-routes');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_UPLOAD_BYTES) return denied(400, 'EntityTooLarge');
      chunks.push(chunk as Buffer);
    }
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, Buffer.concat(chunks));
    return { statusCode: 200, headers: {}, body: '' };
  }
  try {
    const body = await readFile(file, 'utf8');
    const name = (url.searchParams.get('filename') ?? '').replace(/[^\w.-]/g, '');
    const type = key.endsWith('.csv') ? 'text/csv; charset=utf-8' : key.endsWith('.jsonl') ? 'application/x-ndjson' : 'application/octet-stream';
    return { statusCode: 200, headers: { 'content-type': type, ...(name ? { 'content-disposition': `attachment; filename="${name}"` } : {}) }, body };
  } catch {
    return denied(404, 'NoSuchKey');
  }
}

/**
 * Served over plain http: a browser would drop a Secure cookie (except on localhost), so the local
 * gateway alone relaxes the session cookie's lines. API Gateway is https only and passes them unchanged.
 */
function overPlainHttp(res: APIGatewayProxyResult): APIGatewayProxyResult {
  const cookies = res.multiValueHeaders?.['set-cookie'];
  if (!cookies) return res;
  return { ...res, multiValueHeaders: { ...res.multiValueHeaders, 'set-cookie': cookies.map((c) => String(c).replace(/; Secure/g, '')) } };
}

/** The dashboard's page and assets (the app is built once, on the first request). */
function dashboardRoute(): Answer {
  let handler: Promise<Handler> | undefined;
  const load = () =>
    (handler ??= Promise.all([import('../shared/public/dashboard-assets'), import('../dashboard/build')]).then(([s, b]) => s.dashboardHandler(() => b.buildDashboard())));
  return async (req, url, requestId) => (await load())(plainEvent(req, url, requestId, url.pathname, null, null));
}

/** The API reference page (GET /docs) and its assets, built once, on the first request. */
function referenceRoute(): Answer {
  let handler: Promise<Handler> | undefined;
  const load = () =>
    (handler ??= Promise.all([import('../shared/public/reference-page'), import('../reference/build')]).then(([s, b]) => s.referenceHandler(() => b.buildReference())));
  return async (req, url, requestId) => (await load())(plainEvent(req, url, requestId, url.pathname, null, null));
}

/**
 * The operations of the table and the MCP endpoint: the authorizer, then the per-team throttle (the
 * usage plan's token bucket, keyed by the usage key the authorizer names), then the operation's
 * handler module, or the MCP handler, which runs each tool's operation through that same module.
 */
function operationRoutes(opts: GatewayOptions): Answer {
  const routes = new Map<string, Operation>(routedOperations().map((op) => [op.path, op]));
  const handlers = new Map<string, Promise<Handler>>();
  const load = opts.loadHandler ?? defaultLoader;
  const handlerOf = (op: Operation) => handlers.get(op.id) ?? handlers.set(op.id, load(op)).get(op.id)!;
  const perMinute = opts.ratePerMinute ?? (RATE_LIMIT.requests * 60) / RATE_LIMIT.windowSeconds;
  const buckets = new TokenBuckets(opts.burst ?? RATE_LIMIT.requests, perMinute / 60);
  // The monitor tools run the monitors API's handler in process, as the local gateway serves it.
  const mcp = createMcpHandler(
    async (op, event) => (await handlerOf(op))(event),
    async (event) => (await import('../functions/monitors')).handler(event),
    async (event) => (await import('../functions/jobs')).handler(event),
  );

  return async (req, url, requestId) => {
    const op = routes.get(url.pathname);
    const toMcp = url.pathname === MCP_PATH && (MCP_METHODS as readonly string[]).includes(req.method ?? '');
    if (!toMcp && (!op || req.method !== 'GET')) return unknownRoute(requestId);
    const route: Route = op ? { resource: op.path, method: 'GET' } : { resource: MCP_PATH, method: req.method ?? 'POST' };
    const request = proxyRequest(route, req, url);
    const auth = await authorize(route, request, requestId, opts.authorizer ?? authorizerHandler);
    if ('statusCode' in auth) return refused(auth);
    const turn = buckets.take(auth.usageIdentifierKey ?? auth.principalId);
    const limits = rateLimitHeaders(turn);
    if (!turn.ok) {
      const tooMany = refused(failure(new ApiError('RATE_LIMITED', GATEWAY_MESSAGES.RATE_LIMITED, { retryAfter: turn.retryAfter }), requestId));
      return { ...tooMany, headers: { ...tooMany.headers, ...limits } };
    }
    const event = operationEvent(route, request, req, url, requestId, auth, toMcp ? await readBody(req) : null);
    const answer = op ? await (await handlerOf(op))(event) : await mcp(event);
    return { ...answer, headers: { ...answer.headers, ...limits } };
  };
}

/** A method of a resource behind the authorizer. */
type Route = { resource: string; method: string };

/** What API Gateway puts in both the authorizer's REQUEST event and the function's proxy event. */
function proxyRequest(route: Route, req: http.IncomingMessage, url: URL) {
  const { single, multi } = headerMaps(req);
  const { single: query, multi: multiQuery } = queryMaps(url);
  return {
    resource: route.resource,
    path: url.pathname,
    httpMethod: route.method,
    headers: single,
    multiValueHeaders: multi,
    queryStringParameters: query,
    multiValueQueryStringParameters: multiQuery,
    pathParameters: null,
    stageVariables: null,
  };
}
type ProxyRequest = ReturnType<typeof proxyRequest>;
type AuthorizerResult = Awaited<ReturnType<typeof authorizerHandler>>;

/**
 * The REQUEST authorizer, as API Gateway calls it: its "Unauthorized" error is the 401 (API Gateway
 * itself tells that error apart by its message), any other failure a 503.
 */
async function authorize(route: Route, request: ProxyRequest, requestId: string, authorizer: typeof authorizerHandler): Promise<AuthorizerResult | APIGatewayProxyResult> {
  const event = {
    ...request,
    type: 'REQUEST',
    methodArn: `arn:aws:execute-api:local:000000000000:local/${STAGE}/${route.method}${route.resource}`,
    requestContext: { requestId, stage: STAGE },
  } as unknown as APIGatewayRequestAuthorizerEvent;
  try {
    return await authorizer(event);
  } catch (err) {
    if (err instanceof Unauthorized) return failure(new ApiError('UNAUTHORIZED', GATEWAY_MESSAGES.UNAUTHORIZED), requestId);
    return failure(atCapacity(`authorizer failed: ${(err as Error).name}`), requestId);
  }
}

/** The function's proxy event: the request, with the authorizer's context and principal. */
function operationEvent(route: Route, request: ProxyRequest, req: http.IncomingMessage, url: URL, requestId: string, auth: AuthorizerResult, body: string | null): APIGatewayProxyEvent {
  return {
    ...request,
    body,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      stage: STAGE,
      httpMethod: route.method,
      path: `/${STAGE}${url.pathname}`,
      resourcePath: route.resource,
      authorizer: { ...(auth.context ?? {}), principalId: auth.principalId },
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

async function listen(server: http.Server, opts: GatewayOptions): Promise<Gateway> {
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, host, resolve));
  const addr = server.address() as AddressInfo;
  return {
    url: `http://${host}:${addr.port}`,
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
