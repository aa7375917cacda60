import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { startHarness, type Harness } from '../support/harness';
import { LogCapture } from '../support/logs';
import { liveOps } from './table';

/**
 * Secrets never reach a log line. Every routed operation runs (success, its error variations, an
 * upstream outage, a refused proxy, a dead proxy) with an API key, a caller's cookies and
 * Authorization, an upstream that sets cookies, and SCRAPER_PROXY_URL naming a local CONNECT proxy
 * with a user and password; every log line is collected at DEBUG and searched for each secret.
 */
const token = (n = 12) => randomBytes(n).toString('hex');
const PROXY_USER = `pxuser${token(4)}`;
const PROXY_PASS = `pxpass${token(8)}`;
const CALLER_COOKIE = `callercookie${token()}`;
const UPSTREAM_COOKIE = `upstreamcookie${token()}`;

interface Proxy {
  url: string;
  port: number;
  tunnels: number;
  refused: number;
  server: http.Server;
}

/** A CONNECT proxy that wants Basic user:pass and only tunnels to `allowedPort` on loopback. */
async function startProxy(allowedPort: () => number): Promise<Proxy> {
  const expected = `Basic ${Buffer.from(`${PROXY_USER}:${PROXY_PASS}`).toString('base64')}`;
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  const proxy: Proxy = { url: '', port: 0, tunnels: 0, refused: 0, server };
  server.on('connect', (req, client: net.Socket, head) => {
    const [host, port] = (req.url ?? '').split(':');
    if (req.headers['proxy-authorization'] !== expected) {
      proxy.refused += 1;
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\n\r\n');
      return;
    }
    if (host !== '127.0.0.1' || Number(port) !== allowedPort()) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    proxy.tunnels += 1;
    const upstream = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.port = (server.address() as AddressInfo).port;
  proxy.url = `http://127.0.0.1:${proxy.port}`;
  return proxy;
}

const OPS = liveOps();
let h: Harness;
let proxy: Proxy;
let apiKey: string;
const logs = new LogCapture();

beforeAll(async () => {
  h = await startHarness({ ratePerMinute: 1e6, burst: 1e6 });
  ({ key: apiKey } = await h.team(1000));
  proxy = await startProxy(() => Number(new URL(h.fake.url).port));
  logs.start('DEBUG');
});
afterAll(async () => {
  logs.stop();
  delete process.env.SCRAPER_PROXY_URL;
  proxy.server.closeAllConnections();
  await new Promise<void>((r) => proxy.server.close(() => r()));
  await h.stop();
});

const withProxy = (user: string, pass: string, port = proxy.port) => `http://${user}:${pass}@127.0.0.1:${port}`;

test('no secret appears in any log line, whatever the outcome', async () => {
  const statuses: number[] = [];
  const callerHeaders = (form: 'x-api-key' | 'bearer') => ({
    ...(form === 'x-api-key' ? { 'x-api-key': apiKey } : { authorization: `Bearer ${apiKey}` }),
    cookie: `session=${CALLER_COOKIE}; theme=dark`,
  });

  for (const live of OPS) {
    const { op, scenario } = live;
    const runs: { name: string; routes: () => void; query: Record<string, string>; proxyUrl: string }[] = [
      { name: 'success', routes: () => scenario.routes(h.fake), query: scenario.query, proxyUrl: withProxy(PROXY_USER, PROXY_PASS) },
      { name: 'success again (cache)', routes: () => scenario.routes(h.fake), query: { ...scenario.query, cache_max_age: '1d' }, proxyUrl: withProxy(PROXY_USER, PROXY_PASS) },
      ...(['notFound', 'badCursor', 'unavailable'] as const)
        .filter((k) => scenario[k])
        .map((k) => ({
          name: k,
          routes: () => {
            scenario.routes(h.fake);
            scenario[k]!.routes?.(h.fake);
          },
          query: scenario[k]!.query ?? scenario.query,
          proxyUrl: withProxy(PROXY_USER, PROXY_PASS),
        })),
      { name: 'proxy refuses the credentials', routes: () => scenario.routes(h.fake), query: scenario.query, proxyUrl: withProxy(PROXY_USER, `${PROXY_PASS}x`) },
      { name: 'proxy down', routes: () => scenario.routes(h.fake), query: scenario.query, proxyUrl: withProxy(PROXY_USER, PROXY_PASS, 9) },
    ];
    for (const run of runs) {
      for (const form of ['x-api-key', 'bearer'] as const) {
        h.fake.reset();
        run.routes();
        // Every upstream answer sets a cookie of its own (a platform's session or bot-check cookie).
        h.fake.headers = { 'set-cookie': `sid=${UPSTREAM_COOKIE}; Path=/; HttpOnly` };
        process.env.SCRAPER_PROXY_URL = run.proxyUrl;
        const res = await h.call(op.path, run.query, { headers: callerHeaders(form) });
        statuses.push(res.status);
      }
    }
  }
  delete process.env.SCRAPER_PROXY_URL;

  // The runs really went through the proxy, and were refused by it where meant.
  expect(proxy.tunnels).toBeGreaterThan(0);
  expect(proxy.refused).toBeGreaterThan(0);
  expect(statuses).toContain(200);
  expect(statuses).toContain(503);
  expect(logs.lines.length).toBeGreaterThan(OPS.length * 10);

  const text = logs.text();
  // The failures were logged with their causes (so there was something to leak).
  expect(text).toMatch(/Bad response: 407/);
  expect(text).toMatch(/ECONNREFUSED/);
  const secrets: Record<string, string> = {
    'API key': apiKey,
    'proxy user': PROXY_USER,
    'proxy password': PROXY_PASS,
    'proxy Basic credentials': Buffer.from(`${PROXY_USER}:${PROXY_PASS}`).toString('base64'),
    "caller's cookie": CALLER_COOKIE,
    "upstream's cookie": UPSTREAM_COOKIE,
  };
  const found = Object.entries(secrets).filter(([, s]) => text.includes(s) || text.includes(encodeURIComponent(s)));
  expect(found.map(([name]) => name)).toEqual([]);
});
