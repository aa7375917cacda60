import type { Gateway, GatewayOptions } from '../../dev/gateway';
import { startLocalStack } from '../../dev/stack';
import { teamWithKey } from '../../dev/teams';
import type { FakeUpstream } from '../../dev/upstream/fake';
import { balance } from '../../shared/accounting/teams';
import { openApiMismatch } from './openapi-check';

/**
 * Everything an integration test needs: the local stack (dev/stack.ts) on the DynamoDB Local of the
 * run (DYNAMODB_ENDPOINT, with this file's tables: per-file-env.ts), a fake upstream standing in for
 * every platform (the test adds its routes, or the replay's), and the local gateway serving the real
 * handlers.
 */
export interface CallResult {
  status: number;
  headers: Record<string, string>;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- tests assert on arbitrary JSON
}

export interface Harness {
  fake: FakeUpstream;
  gateway: Gateway;
  team(credits?: number): Promise<{ teamId: string; key: string; keyId: string }>;
  /** Calls the gateway; the response must match docs/openapi.json (see openapi-check.ts) unless told not to check. */
  call(path: string, query?: Record<string, string | string[]>, opts?: { key?: string; headers?: Record<string, string>; skipOpenApiCheck?: boolean }): Promise<CallResult>;
  stop(): Promise<void>;
}

export async function startHarness(gatewayOptions: GatewayOptions = {}): Promise<Harness> {
  const stack = await startLocalStack({ upstream: 'fake', gateway: gatewayOptions });
  const { gateway } = stack;
  return {
    fake: stack.upstream!,
    gateway,
    team: (credits = 100) => teamWithKey(`team-${Math.random().toString(36).slice(2, 8)}`, credits, 'test'),
    call: (path, query = {}, opts = {}) => callGateway(gateway.url, path, query, opts),
    stop: () => stack.stop(),
  };
}

/** A GET through the gateway with the test's key; the answer's body parsed when it is JSON. */
export async function callGateway(base: string, path: string, query: Record<string, string | string[]>, opts: Parameters<Harness['call']>[2] = {}): Promise<CallResult> {
  const u = new URL(base + path);
  for (const [k, v] of Object.entries(query)) {
    for (const one of Array.isArray(v) ? v : [v]) u.searchParams.append(k, one);
  }
  const headers: Record<string, string> = { ...(opts.key ? { 'x-api-key': opts.key } : {}), ...(opts.headers ?? {}) };
  const res = await fetch(u, { headers });
  const textBody = await res.text();
  let body: unknown = textBody;
  try {
    body = JSON.parse(textBody);
  } catch {
    /* leave as text */
  }
  const headersOut: Record<string, string> = {};
  res.headers.forEach((value, name) => (headersOut[name] = value));
  const mismatch = opts.skipOpenApiCheck ? null : openApiMismatch(u.pathname, res.status, headersOut, body);
  if (mismatch) throw new Error(mismatch);
  return { status: res.status, headers: headersOut, body };
}

/**
 * An error answer that costs nothing: `path` with `query` and the file's key answers `status` with
 * `code` (and a message matching `message`), a 503 carries a Retry-After, and the team's balance is
 * unchanged.
 */
export type ExpectError = (path: string, query: Record<string, string>, status: number, code: string, message?: RegExp) => Promise<CallResult>;

export interface GatewayFile {
  h: Harness;
  key: string;
  teamId: string;
  expectError: ExpectError;
}

/**
 * The usual set-up of a gateway test file: one harness for the file and one team with `credits`,
 * handed to `use` once ready (`withGateway(100, (g) => void ({ h, key, teamId } = g))`), stopped after.
 */
/**
 * withGateway, with the fake upstream reset before each test and given the routes `routes` sets
 * (a platform's recorded replay, a cold start): the set-up every test of a replayed platform shares.
 */
export function withReplayGateway(credits: number, routes: (h: Harness) => void, use: (g: GatewayFile) => void): void {
  let harness: Harness | undefined;
  withGateway(credits, (g) => {
    harness = g.h;
    use(g);
  });
  beforeEach(() => {
    harness!.fake.reset();
    routes(harness!);
  });
}

export function withGateway(credits: number, use: (g: GatewayFile) => void, options?: GatewayOptions): void {
  let h: Harness | undefined;
  beforeAll(async () => {
    const harness = (h = await startHarness(options));
    const { key, teamId } = await harness.team(credits);
    const expectError: ExpectError = async (path, query, status, code, message) => {
      const before = await balance(teamId);
      const res = await harness.call(path, query, { key });
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
      if (message) expect(res.body.error.message).toMatch(message);
      if (status === 503) expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(await balance(teamId)).toBe(before);
      return res;
    };
    use({ h: harness, key, teamId, expectError });
  });
  afterAll(async () => h?.stop());
}
