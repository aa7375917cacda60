import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/**
 * A local stand-in for every upstream site: routes answer from the project's fixtures, each request
 * is recorded (method, path, query, headers), and a delay can be added to measure latency. Tests
 * point UPSTREAM_<PLATFORM>_URL at it; nothing ever leaves the machine.
 */
export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
  delayMs?: number;
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

export const FIXTURES = path.join(__dirname, '..', 'fixtures');

export function fixture(rel: string): unknown {
  return JSON.parse(readFileSync(path.join(FIXTURES, rel), 'utf8'));
}

export function fixtureText(rel: string): string {
  return readFileSync(path.join(FIXTURES, rel), 'utf8');
}

export class FakeUpstream {
  readonly requests: RecordedRequest[] = [];
  private routes = new Map<string, Handler>();
  private server?: http.Server;
  /** Added to every reply (for latency measurements). */
  delayMs = 0;

  /** Answer `path` (exact, without query) with a reply or a handler. The last registration wins. */
  on(pathname: string, reply: FakeReply | Handler): this {
    this.routes.set(pathname, typeof reply === 'function' ? reply : () => reply);
    return this;
  }

  reset(): void {
    this.routes.clear();
    this.requests.length = 0;
    this.delayMs = 0;
  }

  requestsTo(pathname: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === pathname);
  }

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 1000;
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
    const handler = this.routes.get(u.pathname);
    const reply: FakeReply = handler ? await handler(recorded) : { status: 404, body: { error: 'no fake route', path: u.pathname } };
    const delay = (reply.delayMs ?? 0) + this.delayMs;
    // unref: a reply still being delayed when the tests end never holds the process open.
    if (delay > 0) await new Promise((r) => setTimeout(r, delay).unref());
    const isText = typeof reply.body === 'string';
    const body = reply.body === undefined ? '' : isText ? (reply.body as string) : JSON.stringify(reply.body);
    res.writeHead(reply.status ?? 200, {
      'content-type': isText ? 'text/html; charset=utf-8' : 'application/json; charset=utf-8',
      ...(reply.headers ?? {}),
    });
    res.end(body);
  }
}
