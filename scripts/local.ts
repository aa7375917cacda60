/**
 * `npm start`: the API on your machine, scraping the real sites. The local stack (dev/stack.ts):
 * Amazon DynamoDB Local (data kept in .local/), the tables, on first start a team with 1,000 credits
 * and a key (printed once, saved to .local/dev-api-key), and every routed operation through the
 * local gateway, with the dashboard at /dashboard and a sign-in link for the dev team's first member
 * (dev@example.com). `npm run demo` is the same API answered from recorded data, offline.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { localEnvironment } from '../dev/env';

const ROOT = path.resolve(__dirname, '..');
const LOCAL = path.join(ROOT, '.local');
const KEY_FILE = path.join(LOCAL, 'dev-api-key');
const TEAM_FILE = path.join(LOCAL, 'dev-team-id');
const ENDPOINT_FILE = path.join(LOCAL, 'dynamodb-endpoint');
const DEV_MEMBER = 'dev@example.com';
const DEV_CREDITS = 1000;

/**
 * How to reach the dashboard as the team's first member: a sign-in link when the member has a
 * password, else a one-time link to set it (`email` is invited when the team has no member yet).
 */
export async function dashboardLine(baseUrl: string, teamId: string, email: string): Promise<string> {
  const { invite, listMembers } = await import('../shared/auth/members');
  const { inviteLink } = await import('./admin');
  const dashboardUrl = `${baseUrl}/dashboard`;
  const member = (await listMembers(teamId))[0];
  if (member?.passwordSetAt) {
    return `Dashboard: ${dashboardUrl}/sign-in?email=${encodeURIComponent(member.email)}  (member ${member.email}; a new password link: npm run admin -- member invite --local --team ${teamId} --email ${member.email})`;
  }
  const who = member?.email ?? email;
  return `Dashboard: ${dashboardUrl}  Set the password of ${who} (link valid 24 h):\n\n    ${inviteLink(baseUrl, (await invite(teamId, who)).token)}\n`;
}

/** Stops the stack on Ctrl-C or SIGTERM, then exits. */
export function stopOnSignal(stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    void stop().then(() => process.exit(0));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** The dev team of .local/ (its id and key files), or a new one when either is missing or the team is gone. */
async function devTeam(): Promise<{ teamId: string; newKey?: string }> {
  const { getTeam } = await import('../shared/accounting/teams');
  const { teamWithKey } = await import('../dev/teams');
  const known = existsSync(TEAM_FILE) ? readFileSync(TEAM_FILE, 'utf8').trim() : '';
  if (known && existsSync(KEY_FILE) && (await getTeam(known))) return { teamId: known };
  const team = await teamWithKey('local-dev', DEV_CREDITS);
  writeFileSync(TEAM_FILE, team.teamId);
  writeFileSync(KEY_FILE, team.key + '\n', { mode: 0o600 });
  chmodSync(KEY_FILE, 0o600);
  return { teamId: team.teamId, newKey: team.key };
}

async function main() {
  localEnvironment('INFO');
  process.env.WEBHOOK_ALLOW_LOOPBACK ??= '1'; // monitors may deliver to http://127.0.0.1 locally (docs/monitors.md)
  mkdirSync(path.join(LOCAL, 'dynamodb'), { recursive: true });
  const { startLocalStack } = await import('../dev/stack');
  const { routedOperations } = await import('../shared/operations');

  const port = Number(process.env.PORT || 3000);
  const stack = await startLocalStack({
    dynamo: { port: Number(process.env.DYNAMODB_LOCAL_PORT || 8765), dbPath: path.join(LOCAL, 'dynamodb') },
    upstream: 'internet',
    gateway: { port, host: process.env.HOST || '127.0.0.1' },
  });
  const { startMonitorScheduler } = await import('../dev/monitors');
  const scheduler = startMonitorScheduler();
  stopOnSignal(async () => (scheduler.stop(), stack.stop()));
  writeFileSync(ENDPOINT_FILE, stack.endpoint);
  const { teamId, newKey } = await devTeam();

  const first = routedOperations()[0];
  const out = [
    '',
    `Social data API listening on ${stack.gateway.url}  (DynamoDB Local at ${stack.endpoint}, data in .local/)`,
    newKey
      ? `Created team ${teamId} with 1,000 credits. Its API key (shown once, also saved to .local/dev-api-key):\n\n    ${newKey}\n`
      : `Team ${teamId}; its API key is in .local/dev-api-key`,
    await dashboardLine(`http://localhost:${port}`, teamId, DEV_MEMBER),
    'Routes:',
    ...routedOperations().map((op) => `  GET ${op.path}`),
    '  /v1/account/*  (the dashboard API; see the README)',
    '  /v1/monitors   (monitors with signed webhooks; docs/monitors.md)',
    '  /v1/jobs       (bulk jobs run in this process, files under .local/jobs; docs/jobs.md)',
    `API reference:  ${stack.gateway.url}/docs  (every operation with its example; try one with your key)`,
    '',
    first ? `Try:  curl -s -H "x-api-key: $(cat .local/dev-api-key)" "${stack.gateway.url}${first.path}?handle=bsky.app"` : '',
    'Offline, with recorded answers instead of the real sites: npm run demo',
    '',
  ];
  process.stdout.write(out.join('\n') + '\n');
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`npm start failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
