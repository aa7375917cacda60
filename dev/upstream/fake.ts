import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/**
 * A local stand-in for every upstream site: routes answer from the project's recorded fixtures
 * (test/fixtures/<platform>/), each request is recorded (method, path, query, headers), and a delay
 * can be added to measure latency. The tests, the bench and `npm run demo` point
 * UPSTREAM_<PLATFORM>_URL at it (dev/stack.ts); nothing ever leaves the machine. replay.ts registers
 * the routes of every platform at once.
 */
export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  delayMs?: number;
  /**
   * A transport fault instead of a clean answer (the status and headers are sent first):
   *   reset: half the body, then the connection is reset (RST) mid-body;
   *   stall: half the body, then nothing more until the client gives up;
   *   truncate: only the first half of the body, sent as a complete answer (Content-Length matches).
   */
  kind?: 'reset' | 'stall' | 'truncate';
}

/** One TCP connection accepted by the fake (whatever was asked on it). */
export interface RecordedConnection {
  remoteAddress: string;
  remotePort: number;
  at: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: http.IncomingHttpHeaders;
  /** The request body as text ('' when there is none), e.g. a GraphQL query. */
  body: string;
}

type Handler = (req: RecordedRequest) => FakeReply | Promise<FakeReply>;

/** The recorded upstream answers, by platform (read where the platform tests keep them). */
export const FIXTURES = path.join(__dirname, '..', '..', 'test', 'fixtures');

export function fixture(rel: string): unknown {
  return JSON.parse(readFileSync(path.join(FIXTURES, rel), 'utf8'));
}

export function fixtureText(rel: string): string {
  return readFileSync(path.join(FIXTURES, rel), 'utf8');
}

export class FakeUpstream {
  readonly requests: RecordedRequest[] = [];
  /** Every TCP connection the fake accepted, in order (kept across reset(): cleared by forgetConnections()). */
  readonly connections: RecordedConnection[] = [];
  private routes = new Map<string, Handler>();
  /** Routes by pattern (an id in the path), newest first; an exact route wins over them. */
  private patterns: { pattern: RegExp; handler: Handler }[] = [];
  private fallbackHandler?: Handler;
  private server?: http.Server;
  /** Added to every reply (for latency measurements). */
  delayMs = 0;
  /** Consulted before the routes: a reply here replaces the route's answer (e.g. fail one request in three). */
  intercept?: (req: RecordedRequest) => FakeReply | undefined;
  /**
   * Applied to every reply a route (or `intercept`) gives, before it is sent: the drift-tolerance
   * suite (test/reliability/drift.test.ts) changes one value of a recorded answer with it.
   */
  rewrite?: (req: RecordedRequest, reply: FakeReply) => FakeReply;
  /** Headers added to every reply (a reply's own headers win). */
  headers: Record<string, string> = {};
  /** A further random delay in [0, jitterMs) per reply (realistic upstream latency in load runs). */
  jitterMs = 0;

  /**
   * Answer `path` (exact, without query; or a pattern, e.g. an id in the path) with a reply or a
   * handler. The last registration wins; an exact path wins over every pattern.
   */
  on(pathname: string | RegExp, reply: FakeReply | Handler): this {
    const handler: Handler = typeof reply === 'function' ? reply : () => reply;
    if (typeof pathname === 'string') this.routes.set(pathname, handler);
    else this.patterns = [{ pattern: pathname, handler }, ...this.patterns.filter((p) => String(p.pattern) !== String(pathname))];
    return this;
  }

  /** Answer every path that has no route of its own (default: a 404 JSON "no fake route"). */
  otherwise(reply: FakeReply | Handler | undefined): this {
    this.fallbackHandler = reply === undefined ? undefined : typeof reply === 'function' ? reply : () => reply;
    return this;
  }

  reset(): void {
    this.routes.clear();
    this.patterns = [];
    this.fallbackHandler = undefined;
    this.requests.length = 0;
    this.delayMs = 0;
    this.jitterMs = 0;
    this.headers = {};
    this.intercept = undefined;
    this.rewrite = undefined;
  }

  forgetConnections(): void {
    this.connections.length = 0;
  }

  requestsTo(pathname: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === pathname);
  }

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (socket) =>
      this.connections.push({ remoteAddress: socket.remoteAddress ?? '', remotePort: socket.remotePort ?? 0, at: Date.now() }),
    );
    // Idle connections stay open 5 s (Node's default), as a real web server's do. A Node client drops
    // an idle socket 1 s before the timeout the server announces (Keep-Alive: timeout=N), so at 1 s
    // it reused none: every upstream request of the tests and the bench opened a new connection.
    this.server.keepAliveTimeout = 5000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this.url;
  }

  get url(): string {
    const addr = this.server?.address() as AddressInfo | undefined;
    if (!addr) throw new Error('fake upstream not started');
    return `http://127.0.0.1:${addr.port}`;
  }

  async stop(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server = undefined;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const u = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: u.pathname,
      query: Object.fromEntries(u.searchParams),
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    this.requests.push(recorded);
    const handler = this.routes.get(u.pathname) ?? this.patterns.find((p) => p.pattern.test(u.pathname))?.handler ?? this.fallbackHandler;
    const given: FakeReply =
      this.intercept?.(recorded) ?? (handler ? await handler(recorded) : { status: 404, body: { error: 'no fake route', path: u.pathname } });
    const reply = this.rewrite ? this.rewrite(recorded, given) : given;
    const delay = (reply.delayMs ?? 0) + this.delayMs + (this.jitterMs > 0 ? Math.random() * this.jitterMs : 0);
    // unref: a reply still being delayed when the tests end never holds the process open.
    if (delay > 0) await new Promise((r) => setTimeout(r, delay).unref());
    const isText = typeof reply.body === 'string';
    const full = reply.body === undefined ? '' : isText ? (reply.body as string) : JSON.stringify(reply.body);
    const headers = {
      'content-type': isText ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8',
      ...this.headers,
      ...(reply.headers ?? {}),
    };
    const half = full.slice(0, Math.max(1, Math.floor(full.length / 2)));
    if (reply.kind === 'truncate') {
      res.writeHead(reply.status ?? 200, { ...headers, 'content-length': String(Buffer.byteLength(half)) });
      res.end(half);
      return;
    }
    if (reply.kind === 'reset' || reply.kind === 'stall') {
      // The full length is announced, so the client knows the body is incomplete.
      res.writeHead(reply.status ?? 200, { ...headers, 'content-length': String(Buffer.byteLength(full)) });
      res.write(half);
      if (reply.kind === 'reset') {
        const socket = req.socket;
        // Let the half body reach the client, then reset the connection (RST, not a clean FIN).
        setTimeout(() => (typeof socket.resetAndDestroy === 'function' ? socket.resetAndDestroy() : socket.destroy()), 20).unref();
      }
      // stall: nothing more is ever sent; stop() (or the client's timeout) closes the connection.
      return;
    }
    res.writeHead(reply.status ?? 200, headers);
    res.end(full);
  }
}
