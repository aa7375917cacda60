import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { FakeUpstream } from './fake';

/**
 * The replay upstream (dev/upstream/replay.ts) in a child process of its own, so that a measuring
 * run's process.cpuUsage() holds the gateway, the authorizer and the functions, not the fake
 * upstream's work. The bench starts it (scripts/bench.ts); the tests and `npm run load` keep the
 * in-process FakeUpstream, whose routes and recorded requests they inspect directly.
 *
 * The child runs dev/upstream/child-main.ts under the parent's own loader (tsx: fork inherits its
 * execArgv). Routes that need code are registered by name through `hooks` (a module exporting
 * `upstreamHooks`), since a function cannot cross the process boundary.
 */
export type UpstreamHooks = Record<string, (fake: FakeUpstream, ...args: any[]) => void>; // eslint-disable-line @typescript-eslint/no-explicit-any -- hook arguments are the caller's

export type ChildRequest = { id: number } & ({ type: 'count' } | { type: 'cpu' } | { type: 'delay'; ms: number; jitterMs?: number } | { type: 'hook'; name: string; args: unknown[] } | { type: 'stop' });
export type ChildReply = { id: number; value?: unknown; error?: string };
type Command = ChildRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

export interface UpstreamProcess {
  url: string;
  process: ChildProcess;
  /** Upstream requests answered so far (monotonic). */
  requests(): Promise<number>;
  /** Every answer delayed by `ms` plus a random [0, jitterMs) (realistic upstream latency). */
  setDelay(ms: number, jitterMs?: number): Promise<void>;
  /** Calls the hooks module's `upstreamHooks[name](fake, ...args)` in the child. */
  hook(name: string, ...args: unknown[]): Promise<void>;
  /** The child's own process.cpuUsage() (to say what was left out of the parent's). */
  cpuUsage(): Promise<NodeJS.CpuUsage>;
  stop(): Promise<void>;
}

export async function startUpstreamProcess(opts: { anyInput?: boolean; hooks?: string } = {}): Promise<UpstreamProcess> {
  const child = fork(path.join(__dirname, 'child-main.ts'), [opts.anyInput ? '1' : '0', ...(opts.hooks ? [opts.hooks] : [])], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // Silent logs, as the parent's measuring environment; whatever else the parent set.
    env: process.env,
  });
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  let next = 1;
  let exited = false;
  const url = await new Promise<string>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the upstream process exited (${code}) before it was ready`));
    child.once('exit', onExit);
    child.once('message', (m: ChildReply) => {
      child.off('exit', onExit);
      resolve(String(m.value));
    });
  });
  child.on('message', (m: ChildReply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.error !== undefined) p.reject(new Error(m.error));
    else p.resolve(m.value);
  });
  child.on('exit', () => {
    exited = true;
    for (const p of pending.values()) p.reject(new Error('the upstream process exited'));
    pending.clear();
  });
  const ask = <T>(command: Command): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (exited) return reject(new Error('the upstream process exited'));
      const id = next++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ ...command, id } as ChildRequest);
    });

  return {
    url,
    process: child,
    requests: () => ask<number>({ type: 'count' }),
    setDelay: (ms, jitterMs = 0) => ask<void>({ type: 'delay', ms, jitterMs }),
    hook: (name, ...args) => ask<void>({ type: 'hook', name, args }),
    cpuUsage: () => ask<NodeJS.CpuUsage>({ type: 'cpu' }),
    async stop() {
      if (exited) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await Promise.race([ask<void>({ type: 'stop' }).catch(() => undefined), new Promise((r) => setTimeout(r, 2000).unref())]);
      if (!exited) child.kill();
      await gone;
    },
  };
}
