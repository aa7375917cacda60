import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';

/**
 * A local port whose connections never complete: a listening socket with a backlog of 0 that
 * never accepts (Node always accepts, so a tiny python3 process holds it), filled by one
 * connection of our own. Every further SYN is dropped by the kernel, so a client sees a real
 * connect timeout, on loopback, without any packet leaving the machine.
 */
export interface Blackhole {
  url: string;
  port: number;
  stop(): Promise<void>;
}

const SCRIPT = `
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(0)
print(s.getsockname()[1], flush=True)
sys.stdin.read()
`;

export async function startBlackhole(): Promise<Blackhole> {
  const child: ChildProcess = spawn('python3', ['-c', SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (d) => resolve(Number(String(d).trim())));
  });
  // Fill the accept queue: from now on connects to the port hang.
  const filler = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    filler.once('connect', () => resolve());
    filler.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async stop() {
      filler.destroy();
      child.stdin!.end();
      child.kill();
    },
  };
}
