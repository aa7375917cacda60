import { logger } from '../../shared/runtime/log';

/**
 * Every log line the process writes while capturing (Powertools writes JSON lines to stdout and
 * stderr), raised to DEBUG so nothing is filtered out. Lines are kept, not printed.
 */
export class LogCapture {
  readonly lines: string[] = [];
  private restore: (() => void)[] = [];

  start(level: 'DEBUG' | 'INFO' = 'DEBUG'): this {
    logger.setLogLevel(level);
    for (const stream of [process.stdout, process.stderr]) {
      const original = stream.write;
      const lines = this.lines;
      stream.write = function (chunk: unknown, ...rest: unknown[]) {
        lines.push(...String(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8')).split('\n').filter(Boolean));
        const cb = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
        cb?.();
        return true;
      } as typeof stream.write;
      this.restore.push(() => (stream.write = original));
    }
    return this;
  }

  stop(): void {
    for (const r of this.restore.splice(0)) r();
    logger.setLogLevel('SILENT');
  }

  clear(): void {
    this.lines.length = 0;
  }

  /** The JSON log records (lines that are not JSON are skipped). */
  records(): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const l of this.lines) {
      try {
        const r = JSON.parse(l);
        if (r && typeof r === 'object') out.push(r);
      } catch {
        /* not a log record */
      }
    }
    return out;
  }

  of(requestId: string): Record<string, unknown>[] {
    return this.records().filter((r) => r.requestId === requestId);
  }

  text(): string {
    return this.lines.join('\n');
  }
}
