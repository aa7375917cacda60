/**
 * Admin CLI: `npm run admin -- <command> [--flag value]`.
 *
 *   team create --name NAME [--credits N]      new team (in AWS also its usage-plan key; needs USAGE_PLAN_ID)
 *   team show --team ID                        balance and keys
 *   team credits --team ID --add N             add credits (recorded as a grant)
 *   key create --team ID --name NAME           new key; the secret is printed once and never stored
 *   key list --team ID                         name, created (and by whom), last used, revoked (never the secret)
 *   key revoke --team ID --key KEYID           takes effect on the next request
 *   usage --team ID [--days 7] [--recent 20]   recent ledger records and daily counts
 *   member invite --team ID --email E [--role owner|member] [--base URL]
 *                                              dashboard member (created if new) and a one-time link to set
 *                                              the password, valid 24 h; inviting again issues a new link and
 *                                              revokes the older ones. A new member is an owner when the team
 *                                              has none yet, else a member, unless --role says
 *   member role --team ID --email E --role owner|member
 *                                              the member's role (owners remove members and manage any key)
 *   member list --team ID                      the team's dashboard members and their roles
 *   member remove --team ID --email E [--transfer-keys-to EMAIL]
 *                                              removes the member: their sessions end at once, their links stop
 *                                              working, the keys they hold are revoked (or go to another member)
 *   member sessions --team ID --email E        the member's live sessions
 *   member end-sessions --team ID --email E [--session SID]
 *                                              ends one session of the member, or (without --session) all of them
 *
 * --base (or DASHBOARD_BASE_URL) is where the service is served: the stack's ApiUrl output (with
 * its /prod stage); with --local it defaults to http://localhost:3000, where `npm start` serves.
 *
 * Target: with --local (or DYNAMODB_ENDPOINT set) the DynamoDB Local that `npm start` runs;
 * otherwise real DynamoDB with the usual AWS credentials, ACCOUNTS_TABLE and AWS_REGION, and
 * KEY_PEPPER_SECRET_ARN (the stack's KeyPepperSecretArn output): new keys are hashed with that pepper,
 * as the authorizer looks them up.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

// The AWS SDK prints a multi-line notice about future Node versions on every run; the README's
// supported Node is fine today, and an operator can do nothing about it. Its own switch, read when
// a client is created (every SDK import below is dynamic, so this runs first).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

type Flags = Record<string, string | true>;

function parse(argv: string[]): { words: string[]; flags: Flags } {
  const words: string[] = [];
  const flags: Flags = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a.startsWith('--')) {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith('--')) {
        flags[a.slice(2)] = next;
        i++;
      } else flags[a.slice(2)] = true;
    } else words.push(a);
  }
  return { words, flags };
}

const need = (flags: Flags, name: string): string => {
  const v = flags[name];
  if (typeof v !== 'string' || v === '') throw new Error(`--${name} is required`);
  return v;
};
const int = (flags: Flags, name: string, fallback?: number): number => {
  const raw = flags[name];
  if (raw === undefined && fallback !== undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`--${name} must be a whole number`);
  return n;
};

export async function run(argv: string[], print: (line: string) => void = (l) => process.stdout.write(l + '\n')): Promise<void> {
  const { words, flags } = parse(argv);
  if (flags.local && !process.env.DYNAMODB_ENDPOINT) {
    if (!existsSync(localEndpointFile())) throw new Error('No local database: run `npm start` first (it starts DynamoDB Local)');
    process.env.DYNAMODB_ENDPOINT = readFileSync(localEndpointFile(), 'utf8').trim();
  }
  // The key pepper, when the deployment has one (KEY_PEPPER_SECRET_ARN, or KEY_PEPPER): keys are stored under it.
  await (await import('../shared/runtime/secrets')).loadSecrets();
  const keys = await import('../shared/auth/keys');
  const credits = { ...(await import('../shared/accounting/teams')), ...(await import('../shared/accounting/ledger')) };
  const { provisionTeam } = await import('../dev/teams');
  const [noun, verb] = words;

  switch (`${noun} ${verb ?? ''}`.trim()) {
    case 'team create': {
      const team = await provisionTeam(need(flags, 'name'), int(flags, 'credits', 0));
      print(`team ${team.teamId} "${team.name}" created with ${team.credits} credits${team.usageKeyId ? ` (usage-plan key ${team.usageKeyId})` : ''}`);
      return;
    }
    case 'team show': {
      const teamId = need(flags, 'team');
      const team = await credits.getTeam(teamId);
      if (!team) throw new Error(`no team ${teamId}`);
      print(`team ${team.teamId} "${team.name}": ${team.credits} credits, created ${team.createdAt}`);
      for (const k of await keys.listKeys(teamId)) print(describeKey(k));
      return;
    }
    case 'team credits': {
      const teamId = need(flags, 'team');
      const add = int(flags, 'add');
      if (add <= 0) throw new Error('--add must be positive');
      print(`team ${teamId}: balance now ${await credits.addCredits(teamId, add)}`);
      return;
    }
    case 'key create': {
      const teamId = need(flags, 'team');
      const team = await credits.getTeam(teamId);
      if (!team) throw new Error(`no team ${teamId}`);
      const { secret, record } = await keys.createKey(teamId, need(flags, 'name'), team.usageKey, keys.BY_CLI);
      print(`key ${record.keyId} "${record.name}" created. The secret is shown once; store it now:\n\n    ${secret}\n`);
      return;
    }
    case 'key list': {
      const list = await keys.listKeys(need(flags, 'team'));
      if (!list.length) print('no keys');
      for (const k of list) print(describeKey(k));
      return;
    }
    case 'key revoke': {
      const { monitorOwners } = await import('../shared/monitors/owner');
      const paused: string[] = [];
      const ok = await keys.revokeKey(need(flags, 'team'), need(flags, 'key'), monitorOwners.keyRevoked(need(flags, 'team'), need(flags, 'key'), paused));
      if (!ok) throw new Error('no such key for that team');
      print(`revoked; takes effect on the next request; monitors created with it paused: ${paused.join(', ') || 'none'}`);
      return;
    }
    case 'usage': {
      const teamId = need(flags, 'team');
      const days = int(flags, 'days', 7);
      const since = new Date(Date.now() - days * 86_400_000).toISOString();
      const entries = await credits.ledger(teamId, since);
      const perDay = new Map<string, number>();
      for (const e of entries) perDay.set(e.time.slice(0, 10), (perDay.get(e.time.slice(0, 10)) ?? 0) + e.credits);
      print(`team ${teamId}: ${entries.reduce((s, e) => s + e.credits, 0)} credits used in the last ${days} days`);
      print('daily:');
      for (const [day, n] of [...perDay].sort()) print(`  ${day}  ${n}`);
      print('recent:');
      for (const e of entries.slice(-int(flags, 'recent', 20)).reverse()) print(`  ${e.time}  ${e.operation}  ${e.credits}  ${e.requestId}`);
      return;
    }
    case 'member invite': {
      const teamId = need(flags, 'team');
      const team = await credits.getTeam(teamId);
      if (!team) throw new Error(`no team ${teamId}`);
      const base = baseUrl(flags);
      const { invite, roleOf, setRole } = await import('../shared/auth/members');
      const role = roleFlag(flags);
      let { member, token, expiresAt } = await invite(teamId, need(flags, 'email'), Date.now(), role);
      if (role && roleOf(member) !== role && (await setRole(member, role))) member = { ...member, role };
      print(`${roleOf(member)} ${member.email} of team ${teamId} "${team.name}". One-time link to set the password (valid until ${expiresAt}):\n\n    ${inviteLink(base, token)}\n`);
      return;
    }
    case 'member role': {
      const { setRole } = await import('../shared/auth/members');
      const m = await teamMember(flags);
      const role = roleFlag(flags);
      if (!role) throw new Error('--role owner|member is required');
      if (!(await setRole(m, role))) throw new Error(`no member ${m.email} in team ${m.teamId}`);
      print(`member ${m.email} of team ${m.teamId} is now ${role === 'owner' ? 'an owner' : 'a member'}`);
      return;
    }
    case 'member list': {
      const { listMembers } = await import('../shared/auth/members');
      const list = await listMembers(need(flags, 'team'));
      if (!list.length) print('no members');
      for (const m of list) print(`  ${m.role ?? 'member'} ${m.email}  invited ${m.createdAt}  ${m.passwordSetAt ? `password set ${m.passwordSetAt}` : 'password not set yet'}`);
      return;
    }
    case 'member remove': {
      const members = await import('../shared/auth/members');
      const m = await teamMember(flags);
      const to = typeof flags['transfer-keys-to'] === 'string' ? await teamMember({ ...flags, email: flags['transfer-keys-to'] }) : undefined;
      const { monitorOwners } = await import('../shared/monitors/owner');
      const paused: string[] = [];
      const { removed, revoked, transferred } = await members.removeMemberAndKeys(m, to, Date.now(), {
        revoke: (keyId) => monitorOwners.keyRevoked(m.teamId, keyId, paused),
        remove: to ? monitorOwners.memberTransferred(m.teamId, m.memberId, to.memberId, []) : monitorOwners.memberRemoved(m.teamId, m.memberId, paused),
      });
      if (!removed) throw new Error(`no member ${m.email} in team ${m.teamId}`);
      if (paused.length) print(`monitors paused: ${paused.join(', ')}`);
      const keys = to ? `their keys (${transferred.join(', ') || 'none'}) are now held by ${to.email}` : `their keys (${revoked.join(', ') || 'none'}) are revoked`;
      print(`member ${m.email} removed from team ${m.teamId}: their sessions have ended, their invitation links no longer work, ${keys}`);
      return;
    }
    case 'member sessions': {
      const { listSessions } = await import('../shared/auth/sessions');
      const m = await teamMember(flags);
      const list = await listSessions(m);
      if (!list.length) print(`no live sessions of ${m.email}`);
      for (const s of list) print(`  session ${s.sessionId}  signed in ${s.createdAt}  until ${new Date(s.expiresAt * 1000).toISOString()}  from ${s.address ?? 'unknown'}  ${s.userAgent ?? ''}`.trimEnd());
      return;
    }
    case 'member end-sessions': {
      const m = await teamMember(flags);
      if (typeof flags.session === 'string') {
        const { endSessionById } = await import('../shared/auth/sessions');
        if (!(await endSessionById(m, flags.session))) throw new Error(`${m.email} has no live session ${flags.session}`);
        print(`session ${flags.session} of ${m.email} ended`);
      } else {
        const { endAllSessions } = await import('../shared/auth/members');
        if (!(await endAllSessions(m))) throw new Error(`no member ${m.email} in team ${m.teamId}`);
        print(`every session of ${m.email} ended`);
      }
      return;
    }
    default:
      throw new Error('usage: team create|show|credits, key create|list|revoke, usage, member invite|role|list|remove|sessions|end-sessions  (see the comment at the top of scripts/admin.ts or the README)');
  }
}

function roleFlag(flags: Flags): 'owner' | 'member' | undefined {
  const role = flags.role;
  if (role === undefined) return undefined;
  if (role !== 'owner' && role !== 'member') throw new Error('--role is owner or member');
  return role;
}

async function teamMember(flags: Flags) {
  const { memberByEmail, normalizeEmail } = await import('../shared/auth/members');
  const teamId = need(flags, 'team');
  const email = normalizeEmail(need(flags, 'email'));
  const m = await memberByEmail(teamId, email);
  if (!m) throw new Error(`no member ${email} in team ${teamId}`);
  return m;
}

type KeyLine = { keyId: string; name: string; createdAt: string; createdBy?: { kind: 'member'; email: string } | { kind: 'cli' }; lastUsedAt?: string; revokedAt?: string };
const creator = (by: KeyLine['createdBy']) => (!by ? 'unknown' : by.kind === 'cli' ? 'the admin CLI' : by.email);
const describeKey = (k: KeyLine) =>
  `  key ${k.keyId}  "${k.name}"  created ${k.createdAt} by ${creator(k.createdBy)}  last used ${k.lastUsedAt ?? 'never'}${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}`;

export const inviteLink = (base: string, token: string) => `${base}/dashboard/set-password?token=${encodeURIComponent(token)}`;

function baseUrl(flags: Flags): string {
  const given = (typeof flags.base === 'string' && flags.base) || process.env.DASHBOARD_BASE_URL;
  const base = given || (process.env.DYNAMODB_ENDPOINT ? `http://localhost:${process.env.PORT || 3000}` : '');
  if (!base) throw new Error('--base URL is required (the stack ApiUrl output, e.g. https://abc.execute-api.eu-west-1.amazonaws.com/prod)');
  if (!/^https?:\/\/[^\s]+$/.test(base)) throw new Error('--base must be an http(s) URL');
  return base.replace(/\/+$/, '');
}

function localEndpointFile() {
  return path.resolve(__dirname, '..', '.local', 'dynamodb-endpoint');
}

if (require.main === module) {
  run(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`admin: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
