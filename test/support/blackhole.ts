import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';

/**
 * A local port whose connections never complete: a listening socket with a backlog of 1 that
 * never accepts, filled by connections of our own (Node reads a backlog of 0 as its default). Every further SYN is dropped by the kernel,
 * so a client sees a real connect timeout, on loopback, without any packet leaving the machine.
 * Node accepts whenever its event loop runs, so a child Node process listens, prints its port
 * and then blocks its own event loop for good: libuv never gets to call accept().
 */
export interface Blackhole {
  url: string;
  port: number;
  stop(): Promise<void>;
}

const SCRIPT = `
const net = require('node:net');
const srv = net.createServer();
srv.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => {
  require('node:fs').writeSync(1, srv.address().port + '\\n');
  // Never return to the event loop: the listening socket is never accepted from again.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
});`;

export async function startBlackhole(): Promise<Blackhole> {
  const child: ChildProcess = spawn(process.execPath, ['-e', SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (d) => resolve(Number(String(d).trim())));
  });
  // Fill the accept queue (backlog + 1 connections on Linux): from now on connects to the port hang.
  const fillers = [net.connect(port, '127.0.0.1'), net.connect(port, '127.0.0.1')];
  await Promise.all(
    fillers.map((filler) => new Promise<void>((resolve, reject) => {
      filler.once('connect', () => resolve());
      filler.once('error', reject);
    })),
  );
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async stop() {
      for (const filler of fillers) filler.destroy();
      child.stdin!.end();
      child.kill();
    },
  };
}
