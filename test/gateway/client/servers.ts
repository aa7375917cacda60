import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Small local HTTP servers for the client tests: each records what it received. */
export interface Recorded {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}
export interface TestServer {
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

export async function startServer(handle: (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>): Promise<TestServer> {
  const requests: Recorded[] = [];
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers });
    void Promise.resolve(handle(req, res)).catch((err: unknown) => {
      res.writeHead(500);
      res.end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Forwards a request to `target` (path rewritten by `path`), answering what it answered. */
export async function forward(req: http.IncomingMessage, res: http.ServerResponse, target: string, path: string): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host') headers[k] = v;
  // The body too: the MCP endpoint is a POST.
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = chunks.length && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : undefined;
  const answer = await fetch(target + path, { method: req.method, headers, body, redirect: 'manual' });
  const out: Record<string, string> = {};
  answer.headers.forEach((value, name) => {
    if (name !== 'content-length' && name !== 'content-encoding' && name !== 'transfer-encoding') out[name] = value;
  });
  res.writeHead(answer.status, out);
  res.end(Buffer.from(await answer.arrayBuffer()));
}

/** API Gateway's shape of URL: the API under a stage path (`/prod/v1/...`); anything else is 404. */
export function stageProxy(target: string, stage = '/prod') {
  return startServer((req, res) => {
    const url = req.url ?? '/';
    if (!url.startsWith(`${stage}/`)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Missing Authentication Token' }));
      return;
    }
    return forward(req, res, target, url.slice(stage.length));
  });
}
