/**
 * The two tables, described once: the CDK stack and the local set-up both build them from here.
 *
 * accounts (pk, sk; GSI byTeam on gsi1pk, gsi1sk):
 *   TEAM#<teamId> / TEAM                      team: name, credits, createdAt, usageKeyId?, usageKey
 *   KEY#<sha256(secret)> / KEY                key: keyId, teamId, name, createdAt, lastUsedAt?, revokedAt?, usageKey
 *                                             (gsi1pk TEAM#<teamId>, gsi1sk KEY#<createdAt>#<keyId>)
 *   TEAM#<teamId> / LEDGER#<time>#<requestId> a charge: requestId, operation, credits, time
 *   TEAM#<teamId> / GRANT#<time>#<id>         credits added: credits, time
 * cache (pk):
 *   <operation>#<normalized input>            body (brotli JSON), fetchedAt (ms), expiresAt (TTL, s)
 */
export const ACCOUNTS = {
  partitionKey: 'pk',
  sortKey: 'sk',
  teamIndex: { name: 'byTeam', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
} as const;

export const CACHE = {
  partitionKey: 'pk',
  ttlAttribute: 'expiresAt',
} as const;

export const teamPk = (teamId: string) => `TEAM#${teamId}`;
export const TEAM_SK = 'TEAM';
export const keyPk = (hash: string) => `KEY#${hash}`;
export const KEY_SK = 'KEY';
export const LEDGER_PREFIX = 'LEDGER#';
