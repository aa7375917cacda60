import { createKey } from '../../shared/auth/keys';
import { envName } from '../../shared/config';
import { createTeam } from '../../shared/credits';
import { ensureTables } from '../../dev/tables';
import { startGateway, type Gateway, type GatewayOptions } from '../../dev/gateway';
import { operations } from '../../shared/operations';
import { FakeUpstream } from './fake-upstream';
import { openApiMismatch } from './openapi-check';

/**
 * Everything an integration test needs: this file's tables in DynamoDB Local, a fake upstream
 * standing in for every platform, and the local gateway serving the real handlers.
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
  await ensureTables();
  const fake = new FakeUpstream();
  await fake.start();
  for (const op of operations) process.env[`UPSTREAM_${envName(op.platform)}_URL`] = fake.url;
  const gateway = await startGateway(gatewayOptions);

  return {
    fake,
    gateway,
    async team(credits = 100) {
      const team = await createTeam(`team-${Math.random().toString(36).slice(2, 8)}`, credits, { usageKey: `usage-${Math.random().toString(36).slice(2)}` });
      const { secret, record } = await createKey(team.teamId, 'test', team.usageKey);
      return { teamId: team.teamId, key: secret, keyId: record.keyId };
    },
    async call(path, query = {}, opts = {}) {
      const u = new URL(gateway.url + path);
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
    },
    async stop() {
      await gateway.stop();
      await fake.stop();
    },
  };
}

/**
 * The usual set-up of a gateway test file: one harness for the file and one team with `credits`,
 * handed to `use` once ready (`withGateway(100, (g) => void ({ h, key, teamId } = g))`), stopped after.
 */
export function withGateway(credits: number, use: (g: { h: Harness; key: string; teamId: string }) => void, options?: GatewayOptions): void {
  let h: Harness | undefined;
  beforeAll(async () => {
    h = await startHarness(options);
    const { key, teamId } = await h.team(credits);
    use({ h, key, teamId });
  });
  afterAll(async () => h?.stop());
}
