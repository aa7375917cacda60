import type { UpstreamAnswer } from './answers';

/**
 * A cookie jar of one warm function for one platform: name -> value. Cookies the upstream sets
 * later replace earlier ones; expiry and paths are not modelled (every call of a platform goes to
 * the paths that set them, and a stale cookie is refreshed by the platform when refused).
 */
export class CookieJar {
  private readonly values = new Map<string, string>();

  /** Remember every cookie of the answer's Set-Cookie headers (a deletion removes it). */
  take(answer: Pick<UpstreamAnswer, 'headers'>): void {
    const raw = answer.headers['set-cookie'];
    for (const line of Array.isArray(raw) ? raw : raw ? [raw] : []) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || attrs.some((a) => /^\s*expires=.*1970/i.test(a));
      if (expired || value === '') this.values.delete(name);
      else this.values.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.values.get(name);
  }

  set(name: string, value: string): void {
    this.values.set(name, value);
  }

  delete(name: string): void {
    this.values.delete(name);
  }

  has(...names: string[]): boolean {
    return names.every((n) => this.values.has(n));
  }

  /** The Cookie header value, or undefined when the jar is empty. */
  header(): string | undefined {
    if (this.values.size === 0) return undefined;
    return [...this.values].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  clear(): void {
    this.values.clear();
  }
}
