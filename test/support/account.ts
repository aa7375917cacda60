import { invite } from '../../shared/auth/members';
import { matchAccountRoute } from '../../shared/api/account-routes';
import type { Harness } from './harness';
import { openApiMismatch } from './openapi-check';

/**
 * A browser-like client of the account API through the local gateway: it keeps the session cookie
 * and sends this site's Origin on state-changing requests (as a browser does), unless told otherwise.
 */
export interface Answer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON
}

export class AccountClient {
  cookie: string | undefined;
  constructor(private readonly h: Harness) {}

  async request(method: string, path: string, body?: unknown, opts: { origin?: string | null; headers?: Record<string, string>; cookie?: string | null } = {}): Promise<Answer> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    const origin = opts.origin === undefined ? this.h.gateway.url : opts.origin;
    if (origin !== null && method !== 'GET') headers.origin = origin;
    const cookie = opts.cookie === undefined ? this.cookie : opts.cookie;
    if (cookie) headers.cookie = cookie;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(this.h.gateway.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      /* text */
    }
    const route = matchAccountRoute(method, path.split('?')[0]!);
    if (route) {
      const headersOut: Record<string, string> = {};
      res.headers.forEach((value, name) => (headersOut[name] = value));
      const mismatch = openApiMismatch(route.route.path, res.status, headersOut, parsed, method.toLowerCase());
      if (mismatch) throw new Error(`${method} ${mismatch}`);
    }
    const set = res.headers.get('set-cookie');
    if (set) {
      const [pair] = set.split(';');
      this.cookie = pair!.endsWith('=') ? undefined : pair;
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }

  get = (path: string, opts?: Parameters<AccountClient['request']>[3]) => this.request('GET', path, undefined, opts);
  post = (path: string, body?: unknown, opts?: Parameters<AccountClient['request']>[3]) => this.request('POST', path, body ?? {}, opts);
}

let n = 0;
/** A team with credits and a key (harness), and a signed-in member of it. */
export async function signedInMember(h: Harness, credits = 100) {
  const team = await h.team(credits);
  const email = `member-${Date.now().toString(36)}-${n++}@example.com`;
  const password = 'correct horse battery staple';
  const { token } = await invite(team.teamId, email);
  const client = new AccountClient(h);
  const set = await client.post('/v1/account/password', { token, password });
  if (set.status !== 200) throw new Error(`set password: ${set.status} ${JSON.stringify(set.body)}`);
  const signIn = await client.post('/v1/account/sign-in', { email, password });
  if (signIn.status !== 200) throw new Error(`sign-in: ${signIn.status} ${JSON.stringify(signIn.body)}`);
  return { ...team, email, password, token, client, signIn };
}
