import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a webhook receiver got: its headers and its body's text. */
export interface Received {
  headers: Record<string, string>;
  body: string;
}

/**
 * A local webhook receiver on 127.0.0.1 (tests set WEBHOOK_ALLOW_LOOPBACK): answers 200 to every
 * request and keeps what it got, in order. `url(path)` once started.
 */
export async function startReceiver(): Promise<{ hooks: Received[]; url(path: string): string; close(): Promise<void> }> {
  const hooks: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hooks.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { hooks, url: (path) => `http://127.0.0.1:${port}${path}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/**
 * Runs the due deliveries (the local scheduler's tick, dev/monitors.ts, on a clock that moves at
 * least a second a round, so each retry comes due) until the receiver holds more than `seen`.
 */
export async function deliverUntilReceived(what: string, hooks: Received[], seen = 0): Promise<void> {
  const [{ runDue }, { invokeInProcess }, { logger }, { until }] = await Promise.all([import('../../shared/monitors/scheduler'), import('../../dev/monitors'), import('../../shared/runtime/log'), import('./page')]);
  let clock = Date.now();
  await until(`${what} at the receiver`, async () => {
    await runDue((clock = Math.max(clock + 1000, Date.now())), logger, invokeInProcess);
    return hooks.length > seen;
  });
}
