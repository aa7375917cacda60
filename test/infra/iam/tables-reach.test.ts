import { DELIVERY_DUE, DUE_INDEX, MONITOR_DUE, TEAM_INDEX } from '../../../shared/db/tables';
import { OWNER_ATTRIBUTES } from '../../../shared/monitors/owner';
import { type Call, type Resource, type Statement, callAllowed, roleStatements } from '../../support/iam';
import { stackJson } from '../../support/synth';

/**
 * Each role's reach on the accounts table and the events table (issue 39 part 4), held against the
 * synthesized policies by the one IAM evaluator (test/support/iam.ts): one probe of every kind of
 * access, allowed or refused, per role. The monitors API, the tick and both workers hold no write on
 * accounts at all; the account API pauses monitors in the events table (eager pause on a revoke or a
 * removal) and nothing else of it; the operations' functions never reach the events table.
 */
const resources: Record<string, Resource> = stackJson().Resources;
const tableArn = (prefix: string) => ({ 'Fn::GetAtt': [Object.keys(resources).find((id) => id.startsWith(prefix) && resources[id]!.Type === 'AWS::DynamoDB::Table')!, 'Arn'] });
const ACCOUNTS = 'accounts-table';
const EVENTS = 'events-table';
const arns = { [ACCOUNTS]: tableArn('AccountsTable'), [EVENTS]: tableArn('EventsTable') };

const T = 'TEAM#t1';
const get = (table: string, pk: string, sk: string): Call => ({ name: 'GetCommand', input: { TableName: table, Key: { pk, sk } } });
const put = (table: string, pk: string, sk: string): Call => ({ name: 'PutCommand', input: { TableName: table, Item: { pk, sk, x: 1 } } });
const update = (table: string, pk: string, sk: string, attribute = 'x'): Call => ({ name: 'UpdateCommand', input: { TableName: table, Key: { pk, sk }, UpdateExpression: 'SET #a = :v', ExpressionAttributeNames: { '#a': attribute }, ExpressionAttributeValues: { ':v': 1 } } });
const del = (table: string, pk: string, sk: string): Call => ({ name: 'DeleteCommand', input: { TableName: table, Key: { pk, sk } } });
const query = (table: string, pk: string): Call => ({ name: 'QueryCommand', input: { TableName: table, KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': pk } } });
const dueQuery = (partition: string): Call => ({ name: 'QueryCommand', input: { TableName: EVENTS, IndexName: DUE_INDEX.name, KeyConditionExpression: '#p = :p AND #s <= :now', ExpressionAttributeNames: { '#p': DUE_INDEX.partitionKey, '#s': DUE_INDEX.sortKey }, ExpressionAttributeValues: { ':p': partition, ':now': 'z' } } });
const teamListing = (projection?: string): Call => ({
  name: 'QueryCommand',
  input: {
    TableName: ACCOUNTS,
    IndexName: TEAM_INDEX.name,
    KeyConditionExpression: '#p = :p AND begins_with(#s, :prefix)',
    FilterExpression: '#id = :id',
    ...(projection ? { ProjectionExpression: projection, Select: 'SPECIFIC_ATTRIBUTES' } : {}),
    ExpressionAttributeNames: { '#p': TEAM_INDEX.partitionKey, '#s': TEAM_INDEX.sortKey, '#id': 'keyId' },
    ExpressionAttributeValues: { ':p': T, ':prefix': 'KEY#', ':id': 'k' },
  },
});
const transact = (table: string, pk: string, sk: string): Call => ({ name: 'TransactWriteCommand', input: { TransactItems: [{ Put: { TableName: table, Item: { pk, sk } } }] } });

/** Every probe: what it is, the call. */
const PROBES: Record<string, Call> = {
  'accounts: read a key': get(ACCOUNTS, 'KEY#h', 'KEY'),
  'accounts: read a session': get(ACCOUNTS, 'SESSION#h', 'SESSION'),
  'accounts: read a member': get(ACCOUNTS, 'MEMBER#a@b.c', 'MEMBER'),
  'accounts: read a team (balance)': get(ACCOUNTS, T, 'TEAM'),
  'accounts: query a team partition (ledger)': query(ACCOUNTS, T),
  'accounts: the team listing, owner attributes only': teamListing(`#id, revokedAt`),
  'accounts: the team listing, whole items': teamListing(),
  'accounts: touch a key (lastUsedAt)': update(ACCOUNTS, 'KEY#h', 'KEY', 'lastUsedAt'),
  'accounts: revoke a key': update(ACCOUNTS, 'KEY#h', 'KEY', 'revokedAt'),
  'accounts: change a balance': update(ACCOUNTS, T, 'TEAM', 'credits'),
  'accounts: write a ledger entry': put(ACCOUNTS, T, 'LEDGER#1'),
  'accounts: write a team item in a transaction': transact(ACCOUNTS, T, 'MON#m'),
  'accounts: delete a team item': del(ACCOUNTS, T, 'TEAM'),
  'events: read a monitor': get(EVENTS, T, 'MON#m'),
  'events: query a team partition': query(EVENTS, T),
  'events: write a monitor': put(EVENTS, T, 'MON#m'),
  'events: update a monitor': update(EVENTS, T, 'MON#m', 'status'),
  'events: write a delivery in a transaction': transact(EVENTS, T, 'MONDLV#m#e'),
  'events: delete a monitor': del(EVENTS, T, 'MON#m'),
  'events: due monitors': dueQuery(MONITOR_DUE),
  'events: due deliveries': dueQuery(DELIVERY_DUE),
  'events: write outside team partitions': put(EVENTS, 'MONDUE', 'x'),
};

/** What each role may do: the probes allowed (every other one refused). */
const REACH: Record<string, string[]> = {
  'The monitors API': [
    'accounts: read a key',
    'accounts: read a session',
    'accounts: read a member',
    'events: read a monitor',
    'events: query a team partition',
    'events: write a monitor',
    'events: update a monitor',
    'events: write a delivery in a transaction',
    'events: delete a monitor',
  ],
  // The account events' minute checks (docs/webhooks.md): the watched teams' balances read (BatchGetItem only, no probe
  // here); in the events table the team's watch item read and items made of a team event's attributes put (the bare
  // {pk, sk} probe below is one).
  'Monitors: every minute': ['events: read a monitor', 'events: write a delivery in a transaction', 'events: due monitors', 'events: due deliveries'],
  // Its own items of accounts (a key's revocation, a member's removal) and the pause of their monitors.
  'The dashboard account API': [
    'accounts: read a key',
    'accounts: read a session',
    'accounts: read a member',
    'accounts: read a team (balance)',
    'accounts: query a team partition (ledger)',
    'accounts: the team listing, owner attributes only',
    'accounts: the team listing, whole items',
    'accounts: touch a key (lastUsedAt)',
    'accounts: revoke a key',
    'events: query a team partition',
    // PutItem for the monitor.paused event's delivery item: IAM cannot tell it from a monitor's (same partition).
    'events: write a monitor',
    'events: update a monitor',
    'events: write a delivery in a transaction',
  ],
  'Monitors: polls through': ['accounts: the team listing, owner attributes only', 'events: read a monitor', 'events: query a team partition', 'events: write a monitor', 'events: update a monitor', 'events: write a delivery in a transaction'],
  // A team event expanded over the team's endpoints: a Query of its partition (docs/webhooks.md).
  'Monitors: one signed webhook attempt': ['events: read a monitor', 'events: query a team partition', 'events: write a monitor', 'events: update a monitor', 'events: write a delivery in a transaction'],
};

const allowedProbes = (statements: Statement[]) => Object.entries(PROBES).filter(([, call]) => callAllowed(statements, call, arns)).map(([what]) => what);

describe.each(Object.entries(REACH))('%s', (description, expected) => {
  const statements = roleStatements(resources, description);
  it('reaches exactly what it needs on the two tables; everything else is refused', () => {
    expect(allowedProbes(statements)).toEqual(expected);
  });
  if (description === 'The dashboard account API') return;
  it('holds no write of any kind on the accounts table (no Allow statement names one)', () => {
    const accountsArn = JSON.stringify(arns[ACCOUNTS]);
    const writes = statements.filter((s) => s.Effect !== 'Deny' && [s.Resource].flat().some((r) => JSON.stringify(r).includes(accountsArn)) && [s.Action].flat().some((a) => /Put|Update|Delete|Write/.test(a)));
    expect(writes).toEqual([]);
  });
});

test('the owner check reads only OWNER_ATTRIBUTES: a projection naming a key\'s usage-plan key is refused', () => {
  const statements = roleStatements(resources, 'Monitors: polls through');
  expect(callAllowed(statements, teamListing('#id, revokedAt'), arns)).toBe(true);
  expect(callAllowed(statements, teamListing('#id, usageKey'), arns)).toBe(false);
  expect(OWNER_ATTRIBUTES).not.toContain('usageKey');
});
