import { Stack } from 'aws-cdk-lib/core';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { KEY_NAME_ATTRIBUTES } from '../shared/api/account-reads';
import { ACCOUNTS, DUE_INDEX, TEAM_INDEX, invitePk, keyPk, memberPk, sessionPk, teamPk } from '../shared/db/tables';

/**
 * The grants of the stack's functions, least privilege: every right a part gives a function is one
 * of these, so each rule (a partition prefix, an attribute allow-list, a deny) is written once.
 * Table rights are on the table itself (not its indexes) unless the name says index; never Scan.
 */

/** Partition-key prefixes of the accounts table (shared/db/tables.ts) the IAM conditions name. */
export const TEAM_PREFIX = teamPk('');
export const KEY_PREFIX = keyPk('');
/** The items the account API writes: keys, members, invitations, sessions, sign-in throttles. */
export const ACCOUNT_OWN_PREFIXES = [KEY_PREFIX, memberPk(''), invitePk(''), sessionPk(''), 'THROTTLE#'] as const;
/** Attributes of a team item no function that scrapes may write (it may change `credits` and reservation marks only). */
export const TEAM_ATTRIBUTES_NO_SCRAPER_WRITES = ['name', 'usageKey', 'usageKeyId', 'createdAt'] as const;
/** The accounts table's key attributes: every UpdateItem names them (IAM counts them in dynamodb:Attributes). */
const ACCOUNTS_KEY_ATTRIBUTES = [ACCOUNTS.partitionKey, ACCOUNTS.sortKey] as const;
/** All the authorizer may name in an UpdateItem of a key item: touchKey's `lastUsedAt` (shared/auth/keys.ts). */
export const AUTHORIZER_KEY_ATTRIBUTES = [...ACCOUNTS_KEY_ATTRIBUTES, 'lastUsedAt'] as const;
/** Denied outright on the accounts table to every function that scrapes (it writes by UpdateItem only). */
export const SCRAPER_DENIED_ACCOUNT_ACTIONS = ['dynamodb:PutItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'] as const;

/** Actions on the table itself (not its indexes): never Scan or DeleteItem. */
export function allow(fn: lambda.IFunction, table: dynamodb.ITable, ...actions: string[]): void {
  fn.addToRolePolicy(new iam.PolicyStatement({ actions, resources: [table.tableArn] }));
}

/**
 * Item actions on a table, only in partitions whose key starts with one of `prefixes` (IAM's
 * dynamodb:LeadingKeys; in a transaction it holds for each action).
 */
export function allowItems(fn: lambda.IFunction, table: dynamodb.ITable, actions: string[], prefixes: readonly string[]): void {
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions,
      resources: [table.tableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((p) => `${p}*`) } },
    }),
  );
}

/**
 * UpdateItem on a table, only in partitions whose key starts with `prefix` and only naming
 * attributes that match `attributes` (IAM's ForAllValues:StringLike on dynamodb:Attributes: the
 * key's, the update expression's and the condition expression's names; `*` a wildcard), and
 * returning no values (it could otherwise read back attributes it may not name). ForAllValues
 * holds for a request without the key at all, so the key must be there (Null: false): fail closed.
 */
export function allowAttributeUpdates(fn: lambda.IFunction, table: dynamodb.ITable, prefix: string, attributes: readonly string[]): void {
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:UpdateItem'],
      resources: [table.tableArn],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${prefix}*`], 'dynamodb:Attributes': [...attributes] },
        'Null': { 'dynamodb:Attributes': 'false' },
        'StringEqualsIfExists': { 'dynamodb:ReturnValues': ['NONE'] },
      },
    }),
  );
}

/** Query on the accounts table's byTeam index, in the partitions `leadingKeys` match (IAM StringLike patterns). */
export function allowTeamIndexQuery(fn: lambda.IFunction, accounts: dynamodb.ITable, leadingKeys: readonly string[] = [`${TEAM_PREFIX}*`]): void {
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:Query'],
      resources: [`${accounts.tableArn}/index/${TEAM_INDEX.name}`],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...leadingKeys] } },
    }),
  );
}

/** Query on the events table's due index, in the due partitions named (MONDUE, DLVDUE: the tick's "what is due"). */
export function allowDueIndexQuery(fn: lambda.IFunction, events: dynamodb.ITable, partitions: readonly string[]): void {
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:Query'],
      resources: [`${events.tableArn}/index/${DUE_INDEX.name}`],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [...partitions] } },
    }),
  );
}

/**
 * Query on the byTeam index for a team's partition, reading only the attributes KEY_NAME_ATTRIBUTES
 * names (IAM's dynamodb:Attributes, with dynamodb:Select required to be SPECIFIC_ATTRIBUTES: a Query
 * without a projection, or of all the projected attributes, is refused).
 */
export function allowKeyNamesQuery(fn: lambda.IFunction, accounts: dynamodb.ITable): void {
  allowTeamIndexAttributes(fn, accounts, KEY_NAME_ATTRIBUTES);
}

/**
 * Query on the byTeam index for a team's partition, reading only `attributes` (dynamodb:Attributes
 * with dynamodb:Select SPECIFIC_ATTRIBUTES required, as allowKeyNamesQuery): the poll worker's
 * check that a monitor's key is live or its member still in the team (shared/monitors/owner.ts
 * OWNER_ATTRIBUTES), never a key's usage-plan key nor a member's password hash.
 */
export function allowTeamIndexAttributes(fn: lambda.IFunction, accounts: dynamodb.ITable, attributes: readonly string[]): void {
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:Query'],
      resources: [`${accounts.tableArn}/index/${TEAM_INDEX.name}`],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${TEAM_PREFIX}*`] },
        'ForAllValues:StringEquals': { 'dynamodb:Attributes': [...attributes] },
        'StringEquals': { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
      },
    }),
  );
}

/**
 * What a function that updates team partitions but is not the account API may never do there,
 * whatever else its role is granted: PutItem or DeleteItem (a Put could replace a team item whole
 * with one that names none of the attributes denied below, a Delete remove it), nor an update
 * naming a team's name, usage-plan key or creation time (SET or REMOVE), or the byTeam index's
 * keys (an item slipped into another team's key or member listing).
 */
export function denyTeamItemRewrites(fn: lambda.IFunction, accounts: dynamodb.ITable): void {
  fn.addToRolePolicy(new iam.PolicyStatement({ effect: iam.Effect.DENY, actions: [...SCRAPER_DENIED_ACCOUNT_ACTIONS], resources: [accounts.tableArn] }));
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      effect: iam.Effect.DENY,
      actions: ['dynamodb:UpdateItem'],
      resources: [accounts.tableArn],
      conditions: { 'ForAnyValue:StringEquals': { 'dynamodb:Attributes': [...TEAM_ATTRIBUTES_NO_SCRAPER_WRITES, TEAM_INDEX.partitionKey, TEAM_INDEX.sortKey] } },
    }),
  );
}

/** Invoking these functions, unqualified only (grantInvoke would add every version, `:*`). */
export function allowInvoke(fn: lambda.IFunction, targets: readonly lambda.IFunction[]): void {
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: targets.map((t) => t.functionArn) }));
}

/**
 * A secret a function reads at cold start: its ARN in the environment (`variable`), never its value,
 * and reading that one secret. A function of a nested stack (the jobs engine) gets the same rights in
 * its role's policy only: `grantRead` would also name its role in the key policy of the secret's KMS
 * key (context kmsKey), and the root stack's key would then depend on the nested stack that depends on
 * it (a circular dependency CloudFormation refuses). The key's policy delegates to IAM (the account).
 */
export function withSecret(fn: lambda.Function, variable: string, secret: secretsmanager.ISecret): void {
  fn.addEnvironment(variable, secret.secretArn);
  if (Stack.of(fn) === Stack.of(secret)) {
    secret.grantRead(fn);
    return;
  }
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'], resources: [secret.secretArn] }));
  if (secret.encryptionKey) {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['kms:Decrypt'], resources: [secret.encryptionKey.keyArn], conditions: { StringEquals: { 'kms:ViaService': `secretsmanager.${Stack.of(secret).region}.amazonaws.com` } } }));
  }
}

/** What running an operation's scrape touches (infra/operations.ts creates the secrets). */
export interface OperationAccess {
  accounts: dynamodb.ITable;
  /** The event engine's table: a charge that crosses the team's credits threshold writes its event there (shared/webhooks/credits.ts). */
  events?: dynamodb.ITable;
  cache: dynamodb.ITable;
  cursorSecret: secretsmanager.ISecret;
  /** The scraper proxy's secret (its ARN, or the ARN pattern of its name), when the deployment names one. */
  proxySecretArn?: string;
  /** The customer-managed key of the tables and secrets, when there is one. */
  dataKey?: kms.IKey;
}

/** Reading the cursor secret at cold start (and decrypting it when a customer-managed key is on). */
export function allowCursorSecret(fn: lambda.IFunction, access: Pick<OperationAccess, 'cursorSecret' | 'dataKey'>): void {
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [access.cursorSecret.secretArn] }));
  access.dataKey?.grantDecrypt(fn);
}

/** The secrets a scraper reads at cold start: the cursor key and, when one is configured, the proxy URL. */
export function allowOperationSecrets(fn: lambda.IFunction, access: OperationAccess): void {
  allowCursorSecret(fn, access);
  // A secret the deployer created: reading it, nothing else (its key, when customer-managed, is theirs to grant: docs/deployment.md).
  if (access.proxySecretArn) fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [access.proxySecretArn] }));
}

/** What running an operation takes: its secrets (read at cold start) and the tables. */
export function allowOperation(fn: lambda.IFunction, access: OperationAccess): void {
  allowOperationSecrets(fn, access);
  // Every write of a request on the accounts table is an UpdateItem: reserve and refund, the usage
  // count, and the ledger record and history item, written whole by UpdateItem (shared/accounting/).
  // BatchGetItem: the ledger records of old reservation marks (shared/accounting/reservation.ts).
  // Only in team partitions (TEAM#…): a function that parses hostile pages can neither read nor
  // write a key, member, invitation, session or sign-in throttle item.
  allowItems(fn, access.accounts, ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'], [TEAM_PREFIX]);
  denyTeamItemRewrites(fn, access.accounts);
  // Cache reads and the settle transaction's put; the outcome counts (OUT# items, UpdateItem);
  // shared upstream credentials (CRED# items) are read, leased with a conditional UpdateItem and
  // written with PutItem.
  allow(fn, access.cache, 'dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem');
  if (access.events) allowCreditEvents(fn, access.events);
}

/** The attributes a charge's credits announcement names (shared/webhooks/credits.ts afterCharge): the watch item's, then a team event item's. */
export const CREDIT_WATCH_ATTRIBUTES = ['pk', 'sk', 'alert', 'seq', 'suspectSince'] as const;
export const TEAM_EVENT_ATTRIBUTES = ['pk', 'sk', 'teamId', 'monitorId', 'eventId', 'type', 'body', 'createdAt', 'state', 'directTo', 'duePk', 'dueSk', 'expiresAt'] as const;
/** The attributes of a job's own webhook item (shared/webhooks/store.ts JobWebhook): what the jobs API puts beside a new job. */
export const JOB_WEBHOOK_ATTRIBUTES = ['pk', 'sk', 'teamId', 'jobId', 'url', 'types', 'secret', 'createdAt', 'expiresAt'] as const;

/**
 * What a charge that crosses the team's credits threshold may do on the events table, and no more:
 * read the team's watch item (GetItem, team partitions), update only its alert attributes, and put
 * only items made of a team event's attributes (IAM's dynamodb:Attributes; both in team partitions).
 * No Query, no Delete, no index.
 */
export function allowCreditEvents(fn: lambda.IFunction, events: dynamodb.ITable): void {
  allowItems(fn, events, ['dynamodb:GetItem'], [TEAM_PREFIX]);
  allowAttributeUpdates(fn, events, TEAM_PREFIX, CREDIT_WATCH_ATTRIBUTES);
  allowTeamEventPuts(fn, events);
}

/** PutItem on the events table of items made of a team event's attributes only (TEAM_EVENT_ATTRIBUTES), in team partitions (or `prefixes`). */
export function allowTeamEventPuts(fn: lambda.IFunction, events: dynamodb.ITable, prefixes: readonly string[] = [TEAM_PREFIX]): void {
  allowPutsOf(fn, events, TEAM_EVENT_ATTRIBUTES, prefixes);
}

/** PutItem on `table` of items made of `attributes` only (IAM's dynamodb:Attributes), in partitions starting with `prefixes`, returning nothing. */
export function allowPutsOf(fn: lambda.IFunction, table: dynamodb.ITable, attributes: readonly string[], prefixes: readonly string[] = [TEAM_PREFIX]): void {
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:PutItem'],
      resources: [table.tableArn],
      conditions: {
        'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((p) => `${p}*`), 'dynamodb:Attributes': [...attributes] },
        'Null': { 'dynamodb:Attributes': 'false' },
        'StringEqualsIfExists': { 'dynamodb:ReturnValues': ['NONE'] },
      },
    }),
  );
}
