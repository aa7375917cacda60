import net from 'node:net';

/**
 * Records every outbound TCP connection this process opens (got's upstream requests, the AWS SDK,
 * the test's own fetch calls alike), by the host and port asked for, before any DNS lookup. A
 * test then proves that nothing left for a host it did not allow: the fake upstream, the gateway,
 * DynamoDB Local.
 */
export interface Outbound {
  host: string;
  port: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '::ffff:127.0.0.1']);

export class NetGuard {
  readonly outbound: Outbound[] = [];
  private original?: typeof net.Socket.prototype.connect;

  install(): this {
    if (this.original) return this;
    const original = net.Socket.prototype.connect;
    this.original = original;
    const outbound = this.outbound;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- connect has many overloads
    net.Socket.prototype.connect = function (this: net.Socket, ...args: any[]) {
      const first = args[0];
      if (first && typeof first === 'object' && !Array.isArray(first)) {
        if (first.port !== undefined) outbound.push({ host: String(first.host ?? 'localhost'), port: Number(first.port) });
      } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
        outbound.push({ host: typeof args[1] === 'string' ? args[1] : 'localhost', port: Number(first) });
      }
      return original.apply(this, args as Parameters<typeof original>);
    } as typeof original;
    return this;
  }

  uninstall(): void {
    if (this.original) net.Socket.prototype.connect = this.original;
    this.original = undefined;
  }

  clear(): void {
    this.outbound.length = 0;
  }

  /** Connections to anything but the loopback ports in `allowed`. */
  foreign(allowedPorts: Iterable<number>): Outbound[] {
    const ports = new Set(allowedPorts);
    return this.outbound.filter((o) => !LOOPBACK.has(o.host) || !ports.has(o.port));
  }
}

export const portOf = (url: string | undefined): number => (url ? Number(new URL(url).port) : NaN);
