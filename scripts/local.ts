/**
 * `npm start`: the API on your machine. Starts Amazon DynamoDB Local (data kept in .local/),
 * creates the tables, on first start a team with 1,000 credits and a key (printed once, saved to
 * .local/dev-api-key), and serves every routed operation through the local gateway, and the
 * dashboard at /dashboard with a sign-in link for the dev team's first member (dev@example.com).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const LOCAL = path.join(ROOT, '.local');
const KEY_FILE = path.join(LOCAL, 'dev-api-key');
const TEAM_FILE = path.join(LOCAL, 'dev-team-id');
const ENDPOINT_FILE = path.join(LOCAL, 'dynamodb-endpoint');

// The AWS SDK's multi-line notice about future Node versions helps no one here (see scripts/admin.ts).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const DEV_MEMBER = 'dev@example.com';

async function main() {
  mkdirSync(path.join(LOCAL, 'dynamodb'), { recursive: true });
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';
  process.env.AWS_REGION ??= 'us-east-1';

  const { startDynamoLocal } = await import('../dev/dynamo');
  const dynamoPort = Number(process.env.DYNAMODB_LOCAL_PORT || 8765);
  const dynamo = await startDynamoLocal({ port: dynamoPort, dbPath: path.join(LOCAL, 'dynamodb') });
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  writeFileSync(ENDPOINT_FILE, dynamo.endpoint);

  const { ensureTables } = await import('../dev/tables');
  const { getTeam } = await import('../shared/credits');
  const { createKey } = await import('../shared/auth/keys');
  const { provisionTeam } = await import('../dev/teams');
  const { startGateway } = await import('../dev/gateway');
  const { routedOperations } = await import('../shared/operations');
  await ensureTables();

  let teamId = existsSync(TEAM_FILE) ? readFileSync(TEAM_FILE, 'utf8').trim() : '';
  let printedKey: string | undefined;
  if (!teamId || !(await getTeam(teamId)) || !existsSync(KEY_FILE)) {
    const team = await provisionTeam('local-dev', 1000);
    const { secret } = await createKey(team.teamId, 'local-dev', team.usageKey);
    teamId = team.teamId;
    writeFileSync(TEAM_FILE, teamId);
    writeFileSync(KEY_FILE, secret + '\n', { mode: 0o600 });
    chmodSync(KEY_FILE, 0o600);
    printedKey = secret;
  }

  const port = Number(process.env.PORT || 3000);
  const gateway = await startGateway({ port, host: process.env.HOST || '127.0.0.1' });
  const dashboardUrl = `http://localhost:${port}/dashboard`;
  const { invite, listMembers } = await import('../shared/account/members');
  const { inviteLink } = await import('./admin');
  const member = (await listMembers(teamId))[0];
  const signIn = member?.passwordSetAt
    ? `Dashboard: ${dashboardUrl}/sign-in?email=${encodeURIComponent(member.email)}  (member ${member.email}; a new password link: npm run admin -- member invite --local --team ${teamId} --email ${member.email})`
    : `Dashboard: ${dashboardUrl}  Set the password of ${member?.email ?? DEV_MEMBER} (link valid 24 h):\n\n    ${inviteLink(`http://localhost:${port}`, (await invite(teamId, member?.email ?? DEV_MEMBER)).token)}\n`;
  const first = routedOperations()[0];
  const out = [
    '',
    `Social data API listening on ${gateway.url}  (DynamoDB Local at ${dynamo.endpoint}, data in .local/)`,
    printedKey
      ? `Created team ${teamId} with 1,000 credits. Its API key (shown once, also saved to .local/dev-api-key):\n\n    ${printedKey}\n`
      : `Team ${teamId}; its API key is in .local/dev-api-key`,
    signIn,
    'Routes:',
    ...routedOperations().map((op) => `  GET ${op.path}`),
    '  /v1/account/*  (the dashboard API; see the README)',
    '',
    first ? `Try:  curl -s -H "x-api-key: $(cat .local/dev-api-key)" "${gateway.url}${first.path}?handle=bsky.app"` : '',
    '',
  ];
  process.stdout.write(out.join('\n') + '\n');

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await gateway.stop();
    await dynamo.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err) => {
  process.stderr.write(`npm start failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
