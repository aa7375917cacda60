import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { requestScope } from '../log';
import { loadSecrets } from '../secrets';
import { balanceHint } from '../credits';
import { findKey, hashSecret, KEY_PATTERN, keyFromHeaders, touchKey } from './keys';

/**
 * The REQUEST authorizer (no identity sources, result cache TTL 0, so it runs on every request and
 * reads both header forms). It answers the team's usage-plan key as usageIdentifierKey, so the usage
 * plan throttles per team, and passes teamId/keyId to the function in the request context.
 * Failing with the message "Unauthorized" is API Gateway's way to answer 401 (`Unauthorized`).
 */
export interface AuthorizedContext {
  teamId: string;
  keyId: string;
  /**
   * The team's balance when this request was authorized, when known: it decides whether the scrape
   * may go out before the reservation answers (shared/credits.ts, scrapesAhead). Absent for the
   * first request of a key in this container.
   */
  creditsHint?: number;
}

/**
 * The team of each key this container authorized (a key never changes teams): the team's balance is
 * then read together with the key, in the same round trip, for every later request of the key.
 */
const teamOfKey = new Map<string, string>();
const MAX_KEYS_REMEMBERED = 10_000;

function rememberTeam(hash: string, teamId: string): void {
  if (teamOfKey.get(hash) === teamId) return;
  if (teamOfKey.size >= MAX_KEYS_REMEMBERED) teamOfKey.delete(teamOfKey.keys().next().value as string);
  teamOfKey.set(hash, teamId);
}

export async function authorize(headers: Record<string, string | undefined> | null | undefined): Promise<(AuthorizedContext & { usageKey: string }) | null> {
  const secret = keyFromHeaders(headers);
  if (!secret || !KEY_PATTERN.test(secret)) return null;
  // The key pepper (KEY_PEPPER_SECRET_ARN) is read once per cold start, before the first key is hashed.
  await loadSecrets();
  const hash = hashSecret(secret);
  const knownTeam = teamOfKey.get(hash);
  const [key, creditsHint] = await Promise.all([findKey(secret), knownTeam ? balanceHint(knownTeam) : undefined]);
  if (!key || key.revokedAt) return null;
  rememberTeam(hash, key.teamId);
  await touchKey(key);
  return { teamId: key.teamId, keyId: key.keyId, usageKey: key.usageKey, ...(knownTeam === key.teamId && creditsHint !== undefined ? { creditsHint } : {}) };
}

/** The authorizer's "no valid key": API Gateway (and the local gateway) answer 401 UNAUTHORIZED. */
export class Unauthorized extends Error {
  constructor() {
    super('Unauthorized'); // the exact message API Gateway expects
    this.name = 'Unauthorized';
  }
}

export async function authorizerHandler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const { log } = requestScope(event, 'authorizer');
  let ctx: Awaited<ReturnType<typeof authorize>>;
  try {
    ctx = await authorize(event.headers as Record<string, string | undefined> | null);
  } catch (err) {
    // The database failed: API Gateway answers AUTHORIZER_FAILURE, which the stack maps to 503.
    log.error('authorizer failed', { error: (err as Error).name });
    throw err;
  }
  if (!ctx) {
    log.info('unauthorized');
    throw new Unauthorized();
  }
  // Allow every method of this stage: the decision depends on the key only, never on the route.
  const [arnBase, stage] = splitMethodArn(event.methodArn);
  return {
    principalId: ctx.teamId,
    usageIdentifierKey: ctx.usageKey,
    context: { teamId: ctx.teamId, keyId: ctx.keyId, ...(ctx.creditsHint !== undefined ? { creditsHint: ctx.creditsHint } : {}) },
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${arnBase}/${stage}/*` }],
    },
  };
}

function splitMethodArn(methodArn: string): [string, string] {
  // arn:aws:execute-api:region:account:apiId/stage/METHOD/path
  const [base = methodArn, stage = '*'] = methodArn.split('/');
  return [base, stage];
}
