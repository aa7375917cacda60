/**
 * The two tables, described once: the CDK stack (infra/stack.ts) and the local set-up
 * (dev/tables.ts) both build them from `TABLES`, and the code reads their key names from here.
 *
 * accounts (pk, sk; GSI byTeam on gsi1pk, gsi1sk):
 *   TEAM#<teamId> / TEAM                      team: name, credits, createdAt, usageKeyId?, usageKey
 *   KEY#<sha256(secret)> / KEY                key: keyId, teamId, name, createdAt, lastUsedAt?, revokedAt?, usageKey
 *                                             (gsi1pk TEAM#<teamId>, gsi1sk KEY#<createdAt>#<keyId>)
 *   TEAM#<teamId> / LEDGER#<time>#<requestId> a charge: requestId, operation, credits, time
 *   TEAM#<teamId> / GRANT#<time>#<id>         credits added: credits, time
 * cache (pk; TTL on expiresAt):
 *   <operation>#<normalized input>            body (brotli JSON), fetchedAt (ms), expiresAt (TTL, s)
 *   CRED#<platform>#<kind>                    a shared upstream credential (shared/scrape/credentials.ts)
 */
export interface TableDef {
  /** Logical name: the stack's construct id prefix and the config key of its name. */
  id: 'accounts' | 'cache';
  partitionKey: string;
  sortKey?: string;
  indexes: readonly { name: string; partitionKey: string; sortKey: string }[];
  ttlAttribute?: string;
  /** Money lives in accounts: kept (and point-in-time recoverable) when the stack goes. */
  retain: boolean;
}

export const ACCOUNTS = {
  id: 'accounts',
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [{ name: 'byTeam', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
  retain: true,
} as const satisfies TableDef;

export const CACHE = {
  id: 'cache',
  partitionKey: 'pk',
  indexes: [],
  ttlAttribute: 'expiresAt',
  retain: false,
} as const satisfies TableDef;

export const TABLES: readonly TableDef[] = [ACCOUNTS, CACHE];

export const TEAM_INDEX = ACCOUNTS.indexes[0];

export const teamPk = (teamId: string) => `TEAM#${teamId}`;
export const TEAM_SK = 'TEAM';
export const keyPk = (hash: string) => `KEY#${hash}`;
export const KEY_SK = 'KEY';
export const LEDGER_PREFIX = 'LEDGER#';
export const credentialKey = (name: string) => `CRED#${name}`;
