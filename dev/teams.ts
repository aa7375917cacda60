import { randomUUID } from 'node:crypto';
import { APIGatewayClient, CreateApiKeyCommand, CreateUsagePlanKeyCommand } from '@aws-sdk/client-api-gateway';
import { createKey, generateSecret } from '../shared/auth/keys';
import { config } from '../shared/runtime/config';
import { createTeam, type Team } from '../shared/accounting/teams';

/**
 * Creating a team: in AWS (USAGE_PLAN_ID set) it also gets its own API Gateway usage-plan key,
 * whose value the authorizer returns as usageIdentifierKey so the usage plan throttles per team.
 * Locally the usage key is just an identifier for the local gateway's throttle.
 */
export async function provisionTeam(name: string, credits: number): Promise<Team> {
  const usagePlanId = process.env.USAGE_PLAN_ID;
  const usageKey = generateSecret(40);
  if (!usagePlanId || config.dynamoEndpoint) {
    return createTeam(name, credits, { usageKey });
  }
  const apigw = new APIGatewayClient({ region: config.region });
  const key = await apigw.send(new CreateApiKeyCommand({ name: `team-${name}-${randomUUID().slice(0, 8)}`, enabled: true, value: usageKey }));
  await apigw.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: key.id, keyType: 'API_KEY' }));
  return createTeam(name, credits, { usageKey, usageKeyId: key.id });
}

export interface TeamKey {
  teamId: string;
  /** The key's secret: shown once, never stored. */
  key: string;
  keyId: string;
}

/** A team with `credits` and one API key: the local stack's, a test's or a benchmark's caller. */
export async function teamWithKey(name: string, credits: number, keyName = name): Promise<TeamKey> {
  const team = await provisionTeam(name, credits);
  const { secret, record } = await createKey(team.teamId, keyName, team.usageKey);
  return { teamId: team.teamId, key: secret, keyId: record.keyId };
}
