import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { requestScope } from '../runtime/log';
import { loadSecrets } from '../runtime/secrets';
import { findKey, findKnownKey, hashSecret, KEY_PATTERN, keyFromHeaders, touchKey } from './keys';

/**
 * The REQUEST authorizer (no identity sources, result cache TTL 0, so it runs on every request and
 * reads both header forms). It only reads: the key and, for a key this container authorized
 * before, its team's balance in the same call (findKnownKey: one BatchGetItem); and it writes the
 * key's last-used time at most once a minute (touchKey), the one attribute its IAM policy lets it
 * write. It answers the team's usage-plan key as usageIdentifierKey, so the usage plan throttles
 * per team, and passes teamId, keyId and the balance it read to the function in the request
 * context. Failing with the message "Unauthorized" is API Gateway's way to answer 401.
 */
export interface AuthorizedContext {
  teamId: string;
  keyId: string;
  /**
   * The team's balance when this request was authorized, when read: the credits a cache hit or an
   * error shows, and whether the scrape may go out before the reservation answers
   * (shared/accounting/reservation.ts, scrapesAhead). Absent on a key's first use in a container.
   */
  creditsHint?: number;
}

/**
 * What this container knows of each key it authorized, by the hash of its secret (a key never
 * changes teams), so that its later requests read the key and the team's balance in one call.
 * `storedAs`: the hash its item was found under.
 */
interface KnownKey {
  teamId: string;
  storedAs: string;
}
const knownKeys = new Map<string, KnownKey>();
const MAX_KEYS_REMEMBERED = 10_000;

function remember(hash: string, known: KnownKey): void {
  if (!knownKeys.has(hash) && knownKeys.size >= MAX_KEYS_REMEMBERED) knownKeys.delete(knownKeys.keys().next().value as string);
  knownKeys.set(hash, known);
}

/**
 * `readOnly`: for an API that holds no write on the accounts table (the monitors API): the key
 * item alone by GetItem (never the team item's batch), and its lastUsedAt is not touched.
 */
export async function authorize(headers: Record<string, string | undefined> | null | undefined, opts: { readOnly?: boolean } = {}): Promise<(AuthorizedContext & { usageKey: string }) | null> {
  const secret = keyFromHeaders(headers);
  if (!secret || !KEY_PATTERN.test(secret)) return null;
  // The key pepper (KEY_PEPPER_SECRET_ARN) is read once per cold start, before the first key is hashed.
  await loadSecrets();
  const hash = hashSecret(secret);
  if (opts.readOnly) {
    const key = await findKey(secret);
    return key && !key.revokedAt ? { teamId: key.teamId, keyId: key.keyId, usageKey: key.usageKey } : null;
  }
  const known = knownKeys.get(hash);
  const { key, creditsHint } = known ? await findKnownKey(secret, known.storedAs, known.teamId) : { key: await findKey(secret), creditsHint: undefined };
  if (!key || key.revokedAt) return null;
  remember(hash, { teamId: key.teamId, storedAs: key.hash });
  await touchKey(key);
  return {
    teamId: key.teamId,
    keyId: key.keyId,
    usageKey: key.usageKey,
    ...(known?.teamId === key.teamId && creditsHint !== undefined ? { creditsHint } : {}),
  };
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
  const { usageKey, ...context } = ctx;
  return {
    principalId: ctx.teamId,
    usageIdentifierKey: usageKey,
    context: context satisfies AuthorizedContext,
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
