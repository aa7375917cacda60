import { randomUUID } from 'node:crypto';
import { ensureTables } from '../../../dev/tables';
import { logger } from '../../../shared/runtime/log';
import { ScrapeContext } from '../../../shared/scrape/context';
import { SharedCredential } from '../../../shared/scrape/credentials';

/**
 * SharedCredential (shared/scrape/credentials.ts) against DynamoDB Local: an upstream credential
 * shared by every container, obtained again once when it is old or refused. Two instances with the
 * same name stand for two containers. Each test uses a credential name of its own.
 */
const ctx = () => ScrapeContext.withBudget(5000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An upstream that hands out numbered tokens, slowly enough for callers to overlap. */
function upstream(opts: { failFirst?: number; delayMs?: number } = {}) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    obtain: async () => {
      calls += 1;
      const n = calls;
      await sleep(opts.delayMs ?? 60);
      if (n <= (opts.failFirst ?? 0)) throw new Error(`upstream refused to issue token ${n}`);
      return `token-${n}`;
    },
  };
}

const credential = (name: string, obtain: () => Promise<string>, opts: { ttlMs?: number; leaseMs?: number } = {}) =>
  new SharedCredential<string>({ name, ttlMs: opts.ttlMs ?? 60_000, leaseMs: opts.leaseMs, obtain });

beforeAll(async () => {
  await ensureTables();
});

describe('SharedCredential', () => {
  test('20 concurrent gets on a cold credential obtain it exactly once', async () => {
    const up = upstream();
    const cred = credential(`unit#${randomUUID()}`, up.obtain);
    const values = await Promise.all(Array.from({ length: 20 }, () => cred.get(ctx(), logger)));
    expect(new Set(values)).toEqual(new Set(['token-1']));
    expect(up.calls).toBe(1);
    expect(cred.obtained).toBe(1);
    // Warm: from memory, no further obtain.
    expect(await cred.get(ctx(), logger)).toBe('token-1');
    expect(up.calls).toBe(1);
  });

  test('two containers (instances with the same name) obtain it exactly once between them', async () => {
    const up = upstream({ delayMs: 150 });
    const name = `unit#${randomUUID()}`;
    const a = credential(name, up.obtain);
    const b = credential(name, up.obtain);
    const values = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).get(ctx(), logger)));
    expect(new Set(values)).toEqual(new Set(['token-1']));
    expect(up.calls).toBe(1);
    expect(a.obtained + b.obtained).toBe(1);
    // A third container that starts later reads the shared one.
    const c = credential(name, up.obtain);
    expect(await c.get(ctx(), logger)).toBe('token-1');
    expect(up.calls).toBe(1);
  });

  test('replace(stale) from 20 concurrent callers obtains once; a late report of the same stale value obtains nothing', async () => {
    const up = upstream();
    const cred = credential(`unit#${randomUUID()}`, up.obtain);
    const stale = await cred.get(ctx(), logger);
    const values = await Promise.all(Array.from({ length: 20 }, () => cred.replace(ctx(), logger, stale)));
    expect(new Set(values)).toEqual(new Set(['token-2']));
    expect(up.calls).toBe(2);
    expect(await cred.replace(ctx(), logger, stale)).toBe('token-2');
    expect(up.calls).toBe(2);
  });

  test('a container whose credential another container replaced takes the new one instead of obtaining its own', async () => {
    const up = upstream();
    const name = `unit#${randomUUID()}`;
    const a = credential(name, up.obtain);
    const b = credential(name, up.obtain);
    const first = await a.get(ctx(), logger);
    expect(await b.get(ctx(), logger)).toBe(first);
    expect(await a.replace(ctx(), logger, first)).toBe('token-2');
    // b still holds token-1; refused upstream, it reports it and gets a's replacement.
    expect(await b.replace(ctx(), logger, first)).toBe('token-2');
    expect(up.calls).toBe(2);
  });

  test('after the TTL a new one is obtained (once, for two containers)', async () => {
    const up = upstream();
    const name = `unit#${randomUUID()}`;
    const a = credential(name, up.obtain, { ttlMs: 300 });
    const b = credential(name, up.obtain, { ttlMs: 300 });
    expect(await a.get(ctx(), logger)).toBe('token-1');
    expect(await b.get(ctx(), logger)).toBe('token-1');
    await sleep(350);
    const values = await Promise.all([a.get(ctx(), logger), b.get(ctx(), logger), a.get(ctx(), logger), b.get(ctx(), logger)]);
    expect(new Set(values)).toEqual(new Set(['token-2']));
    expect(up.calls).toBe(2);
  });

  test('a failing obtain releases the lease: the next caller tries at once, not after the lease', async () => {
    const up = upstream({ failFirst: 1 });
    const name = `unit#${randomUUID()}`;
    // A lease far longer than the test: only an explicit release lets the others in.
    const a = credential(name, up.obtain, { leaseMs: 60_000 });
    const b = credential(name, up.obtain, { leaseMs: 60_000 });
    await expect(a.get(ctx(), logger)).rejects.toThrow('upstream refused to issue token 1');
    const started = Date.now();
    expect(await b.get(ctx(), logger)).toBe('token-2');
    expect(Date.now() - started).toBeLessThan(2000);
    // And the container whose obtain failed tries again on its next call too.
    expect(await a.get(ctx(), logger)).toBe('token-2');
    expect(up.calls).toBe(2);
  });

  test('callers waiting on another container\'s failed obtain take over at once', async () => {
    const up = upstream({ failFirst: 1, delayMs: 200 });
    const name = `unit#${randomUUID()}`;
    const a = credential(name, up.obtain, { leaseMs: 60_000 });
    const b = credential(name, up.obtain, { leaseMs: 60_000 });
    const failing = a.get(ctx(), logger).catch((e: Error) => e.message);
    await sleep(50); // a holds the lease now
    const started = Date.now();
    const waiting = b.get(ctx(), logger);
    expect(await failing).toBe('upstream refused to issue token 1');
    expect(await waiting).toBe('token-2');
    expect(Date.now() - started).toBeLessThan(2000);
    expect(up.calls).toBe(2);
  });
});
