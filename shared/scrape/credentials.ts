import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { config } from '../runtime/config';
import { db, isConditionalFailure } from '../db/client';
import { credentialKey } from '../db/tables';
import { unavailable } from '../http/errors';
import type { Log } from '../runtime/log';
import type { ScrapeContext } from './context';
import { keptWarm } from './warm';

/**
 * An upstream credential (a guest token, a bundle token, a cookie set) shared by every function
 * and container: kept in memory and in one DynamoDB item of the cache table, used until it is old
 * or refused, then obtained again **once**:
 *   - within a container, concurrent callers share one refresh (one promise);
 *   - across containers, the refresher first takes a short lease on the item with a conditional
 *     update that only succeeds while the stale version is still the current one; the others wait
 *     for the new version instead of obtaining their own.
 * When DynamoDB cannot be reached the container still works on its own credential (logged).
 *
 * Item: pk CRED#<name>, value (JSON), version, validUntil (ms), leaseUntil (ms), leaseOwner,
 * expiresAt (TTL, s: a day after validUntil, for clean-up only).
 */
export interface CredentialOptions<T> {
  /** Unique per platform and kind, the platform first: "microblog-b#guest-token". */
  name: string;
  /** How long a fresh credential is used before it is obtained again. */
  ttlMs: number;
  /** Obtain a fresh one from the upstream (counted in ctx like any upstream call). */
  obtain: (ctx: ScrapeContext, log: Log) => Promise<T>;
  /** The longest one obtain may take before another container may try (default 10 s). */
  leaseMs?: number;
}

interface Held<T> {
  value: T;
  version: number;
  validUntil: number;
}

const POLL_MS = 100;

export class SharedCredential<T> {
  private held?: Held<T>;
  private refreshing?: Promise<Held<T>>;
  /** Names this instance (one per container) as the lease holder. */
  private readonly owner = randomUUID();
  /** How many times this container obtained the credential from the upstream (for tests and logs). */
  obtained = 0;

  constructor(private readonly opts: CredentialOptions<T>) {
    // A cold container of the platform holds none (the shared item stays: another container's).
    keptWarm(opts.name.split('#')[0]!, () => this.forget());
  }

  /** The current credential: from memory, else the shared store, else obtained now. */
  async get(ctx: ScrapeContext, log: Log): Promise<T> {
    const now = Date.now();
    if (this.held && this.held.validUntil > now) return this.held.value;
    return (await this.refresh(ctx, log, this.held?.version ?? 0)).value;
  }

  /**
   * The upstream refused `stale` (or it is too old): a newer credential, obtained at most once for
   * that staleness however many callers report it.
   */
  async replace(ctx: ScrapeContext, log: Log, stale: T): Promise<T> {
    const version = this.held && sameValue(this.held.value, stale) ? this.held.version : undefined;
    if (version === undefined && this.held && this.held.validUntil > Date.now()) return this.held.value; // already replaced
    return (await this.refresh(ctx, log, version ?? this.held?.version ?? 0)).value;
  }

  /** Forget the credential this container holds (a new container; see warm.ts). */
  forget(): void {
    this.held = undefined;
    this.refreshing = undefined;
    this.obtained = 0;
  }

  private refresh(ctx: ScrapeContext, log: Log, staleVersion: number): Promise<Held<T>> {
    this.refreshing ??= this.refreshShared(ctx, log, staleVersion).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  private async refreshShared(ctx: ScrapeContext, log: Log, staleVersion: number): Promise<Held<T>> {
    const key = { pk: credentialKey(this.opts.name) };
    const leaseMs = this.opts.leaseMs ?? 10_000;
    try {
      for (;;) {
        const stored = await this.read(key);
        const now = Date.now();
        if (stored && stored.version > staleVersion && stored.validUntil > now) {
          return (this.held = stored);
        }
        // The stored credential is the stale one (or missing): take the lease to replace it.
        const currentVersion = stored?.version ?? 0;
        try {
          await db().send(
            new UpdateCommand({
              TableName: config.cacheTable,
              Key: key,
              UpdateExpression: 'SET leaseUntil = :until, leaseOwner = :me',
              ConditionExpression:
                '(attribute_not_exists(version) OR version = :v) AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now)',
              ExpressionAttributeValues: { ':until': now + leaseMs, ':me': this.owner, ':v': currentVersion, ':now': now },
            }),
          );
        } catch (err) {
          if (!isConditionalFailure(err)) throw err;
          // Another container holds the lease or has just replaced it: wait for its version.
          if (ctx.remaining() < POLL_MS * 2) throw unavailable(`${this.opts.name}: waited for another container's refresh until the deadline`);
          await new Promise((r) => setTimeout(r, POLL_MS));
          staleVersion = Math.max(staleVersion, currentVersion);
          continue;
        }
        let value: T;
        try {
          value = await this.obtainCounted(ctx, log);
        } catch (err) {
          // Let the next container try at once rather than after the lease runs out.
          await db()
            .send(new UpdateCommand({ TableName: config.cacheTable, Key: key, UpdateExpression: 'REMOVE leaseUntil, leaseOwner', ConditionExpression: 'leaseOwner = :me', ExpressionAttributeValues: { ':me': this.owner } }))
            .catch(() => undefined);
          throw err;
        }
        const held: Held<T> = { value, version: currentVersion + 1, validUntil: Date.now() + this.opts.ttlMs };
        await db()
          .send(
            new PutCommand({
              TableName: config.cacheTable,
              Item: { ...key, value: JSON.stringify(value), version: held.version, validUntil: held.validUntil, expiresAt: Math.floor(held.validUntil / 1000) + 86_400 },
            }),
          )
          .catch((err) => log.warn('could not share a refreshed credential', { credential: this.opts.name, error: (err as Error).name }));
        return (this.held = held);
      }
    } catch (err) {
      if ((err as { $metadata?: unknown }).$metadata === undefined) throw err;
      // The store is unreachable: this container carries on with a credential of its own.
      log.warn('credential store unavailable; obtaining a credential for this container only', { credential: this.opts.name, error: (err as Error).name });
      const value = await this.obtainCounted(ctx, log);
      return (this.held = { value, version: (this.held?.version ?? 0) + 1, validUntil: Date.now() + this.opts.ttlMs });
    }
  }

  private async obtainCounted(ctx: ScrapeContext, log: Log): Promise<T> {
    this.obtained += 1;
    log.info('obtaining an upstream credential', { credential: this.opts.name });
    return this.opts.obtain(ctx, log);
  }

  private async read(key: { pk: string }): Promise<Held<T> | undefined> {
    const res = await db().send(new GetCommand({ TableName: config.cacheTable, Key: key, ConsistentRead: true }));
    const item = res.Item;
    if (!item || typeof item.value !== 'string') return undefined;
    try {
      return { value: JSON.parse(item.value) as T, version: Number(item.version) || 0, validUntil: Number(item.validUntil) || 0 };
    } catch {
      return undefined;
    }
  }
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
