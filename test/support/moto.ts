import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';

/**
 * moto_server (Python's moto, on this machine) on a free loopback port as S3 and STS for delivery to
 * a customer's bucket (shared/jobs/destination.ts), with a recording proxy in front of its STS: it
 * keeps every AssumeRole request's form fields, answers AccessDenied for the roles in `refusing`, as
 * AWS does when a role's trust policy refuses us (moto itself does not check trust policies), and
 * can hold the next AssumeRole of a role until released (a delivery under way).
 */
export interface Moto {
  /** S3 (and moto's own STS): JOBS_S3_ENDPOINT. */
  endpoint: string;
  /** The recording proxy: JOBS_STS_ENDPOINT. */
  stsEndpoint: string;
  /** The AssumeRole requests the proxy saw (form fields: RoleArn, ExternalId, RoleSessionName, DurationSeconds…). */
  assumed: Record<string, string>[];
  /** Role ARNs the proxy refuses (AccessDenied); delete one to "fix its trust policy". */
  refusing: Set<string>;
  /** Holds the next AssumeRole of `roleArn` until the returned function is called (later ones pass). */
  hold(roleArn: string): () => void;
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

export async function startMoto(): Promise<Moto> {
  const port = await freePort();
  const moto: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (await fetch(`${endpoint}/moto-api/`).then(() => true, () => false)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const assumed: Record<string, string>[] = [];
  const refusing = new Set<string>();
  const held = new Map<string, Promise<void>>();
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const form = Object.fromEntries(new URLSearchParams(body));
      if (form.Action === 'AssumeRole') assumed.push(form);
      const role = form.RoleArn ?? '';
      // One request is held, the next ones pass: a second delivery meanwhile is not stuck behind the first.
      const gate = held.get(role);
      held.delete(role);
      await gate;
      if (refusing.has(role)) {
        res.writeHead(403, { 'content-type': 'text/xml' });
        res.end(`<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User: arn:aws:sts::000000000000:assumed-role/worker is not authorized to perform: sts:AssumeRole on resource: ${role}</Message></Error><RequestId>x</RequestId></ErrorResponse>`);
        return;
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)) as [string, string][]);
      const up = await fetch(endpoint + (req.url ?? '/'), { method: req.method, headers, body });
      res.writeHead(up.status, { 'content-type': up.headers.get('content-type') ?? 'text/xml' });
      res.end(Buffer.from(await up.arrayBuffer()));
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return {
    endpoint,
    stsEndpoint: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`,
    assumed,
    refusing,
    hold(roleArn) {
      let release!: () => void;
      held.set(roleArn, new Promise<void>((r) => (release = r)));
      return () => {
        held.delete(roleArn);
        release();
      };
    },
    async stop() {
      moto.kill();
      await new Promise((r) => proxy.close(r));
    },
  };
}
