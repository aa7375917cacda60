import { keptWarm } from './warm';

/**
 * Names a warm function has resolved to ids (a username to an account id, say). Ids never change,
 * so a known name saves the lookup round trip; a name can move to another account, so the caller
 * must check that what it read by id still carries the name, and `forget` it otherwise.
 * Bounded in size (oldest first out) and in age; forgotten by `startCold(platform)`.
 */
export class RememberedIds {
  private readonly ids = new Map<string, { id: string; at: number }>();
  /** Every instance of this process, so a test can start every platform from a cold container at once. */
  private static readonly all = new Set<RememberedIds>();
  constructor(platform: string, private readonly ttlMs = 6 * 3600_000, private readonly max = 5000) {
    RememberedIds.all.add(this);
    keptWarm(platform, () => this.clear());
  }

  /** Tests: forget every name of every platform (a cold container). */
  static clearAll(): void {
    for (const r of RememberedIds.all) r.clear();
  }

  get(name: string, now = Date.now()): string | undefined {
    const hit = this.ids.get(name);
    if (hit && now - hit.at < this.ttlMs) return hit.id;
    this.ids.delete(name);
    return undefined;
  }

  remember(name: string, id: string, now = Date.now()): void {
    this.ids.delete(name);
    this.ids.set(name, { id, at: now });
    if (this.ids.size > this.max) this.ids.delete(this.ids.keys().next().value as string);
  }

  forget(name: string): void {
    this.ids.delete(name);
  }

  clear(): void {
    this.ids.clear();
  }
}
