import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { RATE_LIMIT } from '../runtime/config';
import { type Log, requestScope } from '../runtime/log';
import { loadSecrets } from '../runtime/secrets';
import { recordAhead } from '../accounting/credits';
import { ApiError } from '../http/errors';
import type { Answered } from '../accounting/request-history';
import { queryOfRoute } from '../operation-queries';
import { validateQuery } from '../http/validation';
import { uncountOutcome } from '../accounting/outcome-writes';
import { findKey, findKnownKey, hashSecret, KEY_PATTERN, keyFromHeaders, touchKey, validKeyCheck } from './keys';

/**
 * The REQUEST authorizer (no identity sources, result cache TTL 0, so it runs on every request and
 * reads both header forms). It answers the team's usage-plan key as usageIdentifierKey, so the usage
 * plan throttles per team, and passes teamId/keyId to the function in the request context.
 * Failing with the message "Unauthorized" is API Gateway's way to answer 401 (`Unauthorized`).
 *
 * A request to an operation whose query fails the operation's validation will be answered 422 by
 * the function. For a key this container authorized before, the authorizer counts and records that
 * 422 itself (usage count, history item, outcome counters: `recordAhead`), in the round trip of its
 * key read, and says so in the context (`recorded`); the function then writes nothing for it, and a
 * 422 costs one DynamoDB round trip instead of two (shared/pipeline.ts).
 */
export interface AuthorizedContext {
  teamId: string;
  keyId: string;
  /**
   * The team's balance when this request was authorized, when known: it decides whether the scrape
   * may go out before the reservation answers (shared/accounting/credits.ts, scrapesAhead). Absent for the
   * first request of a key in this container.
   */
  creditsHint?: number;
  /**
   * The error answer the authorizer counted and recorded for this request (only VALIDATION_ERROR),
   * when it did; absent otherwise (the function records its answer itself).
   */
  recorded?: RecordedCode;
  /** With `recorded`: when it was recorded (epoch ms), the start of the request's history item's key. */
  recordedAt?: number;
  /**
   * When the authorizer counted that 422 in the operation's outcome counters (epoch ms): set with
   * `recorded`, or alone when the counters were written but the team's record was not (the function
   * then records the 422's usage and history, and does not count it again).
   */
  outcomeAt?: number;
}

/** The one answer the authorizer may record ahead of the function: a query that fails validation. */
export type RecordedCode = 'VALIDATION_ERROR';

/**
 * What this container knows of each key it authorized, by the hash of its secret (a key never
 * changes teams): for every later request of the key, its item and the team's balance are then
 * read in one call (findKnownKey: one BatchGetItem), and a 422 recorded in that round trip too.
 * `storedAs`: the hash its item was found under (the peppered one, or the plain SHA-256 of a key
 * made before the pepper), the item the batched read asks for and the record's key check names.
 */
interface KnownKey {
  teamId: string;
  keyId: string;
  storedAs: string;
}
const knownKeys = new Map<string, KnownKey>();
const MAX_KEYS_REMEMBERED = 10_000;

function remember(hash: string, known: KnownKey): void {
  const was = knownKeys.get(hash);
  if (was && was.teamId === known.teamId && was.keyId === known.keyId && was.storedAs === known.storedAs) return;
  if (!was && knownKeys.size >= MAX_KEYS_REMEMBERED) knownKeys.delete(knownKeys.keys().next().value as string);
  knownKeys.set(hash, known);
}

/**
 * Writes this request may make, for a key this container knows, in the round trip of its key read
 * (`authorizerHandler`: the 422 recorded ahead). Its answer is used only if the key proves valid.
 */
type Ahead = (key: KnownKey) => Promise<{ context: Pick<AuthorizedContext, 'recorded' | 'recordedAt' | 'outcomeAt'>; takeBack(): Promise<void> }> | undefined;

export async function authorize(headers: Record<string, string | undefined> | null | undefined, ahead?: Ahead): Promise<(AuthorizedContext & { usageKey: string }) | null> {
  const secret = keyFromHeaders(headers);
  if (!secret || !KEY_PATTERN.test(secret)) return null;
  // The key pepper (KEY_PEPPER_SECRET_ARN) is read once per cold start, before the first key is hashed.
  await loadSecrets();
  const hash = hashSecret(secret);
  const known = knownKeys.get(hash);
  // A key this container knows: its item and the team's balance in one call; otherwise the key alone.
  const read = known ? findKnownKey(secret, known.storedAs, known.teamId) : findKey(secret).then((key) => ({ key, creditsHint: undefined }));
  const [{ key, creditsHint }, recorded] = await Promise.all([read, known ? ahead?.(known) : undefined]);
  if (!key || key.revokedAt) {
    await recorded?.takeBack();
    return null;
  }
  remember(hash, { teamId: key.teamId, keyId: key.keyId, storedAs: key.hash });
  await touchKey(key);
  const sameTeam = known?.teamId === key.teamId;
  return {
    teamId: key.teamId,
    keyId: key.keyId,
    usageKey: key.usageKey,
    ...(sameTeam && creditsHint !== undefined ? { creditsHint } : {}),
    // The outcome counters are the operation's, whatever the team; the usage and history are the team's.
    ...(recorded?.context.outcomeAt !== undefined ? { outcomeAt: recorded.context.outcomeAt } : {}),
    ...(sameTeam && recorded?.context.recorded ? { recorded: recorded.context.recorded, recordedAt: recorded.context.recordedAt } : {}),
  };
}

/**
 * The 422 the operation's function will answer, when the request is to an operation's route (GET
 * on its resource path) and its query fails the operation's validation: the function's own check
 * (validateQuery with the operation's rules, from the same operation table). A cursor that is
 * merely invalid (400) is not decided here: it depends on the cursor secret, which only the
 * functions hold.
 */
function validationRefusal(event: APIGatewayRequestAuthorizerEvent): { operation: string; code: RecordedCode } | undefined {
  if (event.httpMethod !== 'GET') return undefined;
  const route = queryOfRoute(event.resource);
  if (!route) return undefined;
  try {
    validateQuery(route.rules, event.queryStringParameters ?? null, event.multiValueQueryStringParameters);
    return undefined;
  } catch (err) {
    return err instanceof ApiError && err.code === 'VALIDATION_ERROR' ? { operation: route.id, code: err.code } : undefined;
  }
}

/**
 * The usage plan throttles after the authorizer: a request it refuses (429) never reaches the
 * function, so a 422 recorded ahead for it would stay counted (and in the team's history) although
 * the caller got a 429. The authorizer therefore records ahead only for a team this container has
 * seen send fewer than half the team's limit in the last window; nearer the limit the function
 * records its own 422 (one round trip more, the count exact). Bounded memory: per team, the times
 * of at most half the limit's requests, for at most MAX_KEYS_REMEMBERED teams.
 */
const RECENT_LIMIT = Math.floor(RATE_LIMIT.requests / 2);
const recentByTeam = new Map<string, number[]>();

/** Counts this request for its team and says whether the team is near its limit here. */
function teamNearLimit(teamId: string, now: number): boolean {
  const since = now - RATE_LIMIT.windowSeconds * 1000;
  let times = recentByTeam.get(teamId);
  if (!times) {
    if (recentByTeam.size >= MAX_KEYS_REMEMBERED) recentByTeam.delete(recentByTeam.keys().next().value as string);
    recentByTeam.set(teamId, (times = []));
  }
  while (times.length && times[0]! <= since) times.shift();
  const near = times.length >= RECENT_LIMIT;
  times.push(now);
  if (times.length > RECENT_LIMIT) times.shift();
  return near;
}

/**
 * For a key this container knows: the request's 422, when it will be one, counted and recorded now,
 * beside the key read (the transaction checks the key itself: a revoked key records nothing). Only
 * with API Gateway's request id, the one the function takes (shared/http/entry.ts): the history item is
 * keyed by it.
 */
function recordingRefusal(event: APIGatewayRequestAuthorizerEvent, log: Log): Ahead {
  return (key) => {
    const requestId = event.requestContext?.requestId;
    const time = Date.now();
    const busy = teamNearLimit(key.teamId, time);
    const refusal = requestId ? validationRefusal(event) : undefined;
    if (!refusal || !requestId || busy) return undefined;
    // Decided before the function starts: 0 ms of the function's (it writes nothing for it).
    const answer: Answered = { teamId: key.teamId, keyId: key.keyId, operation: refusal.operation, requestId, status: 422, code: refusal.code, credits: 0, cached: false, ms: 0, time };
    const outcome = { operation: refusal.operation, status: 422, code: refusal.code, cached: false, live: false, ms: 0, upstreamCalls: 0, at: time };
    return recordAhead(validKeyCheck(key.storedAs, key.teamId, key.keyId), answer, outcome, log).then(({ recorded, outcomeCounted }) => ({
      context: { ...(recorded ? { recorded: refusal.code, recordedAt: time } : {}), ...(outcomeCounted ? { outcomeAt: time } : {}) },
      // The key proved revoked or unknown (a 401 that never reaches the function): the counters go back.
      takeBack: async () => void (outcomeCounted && (await uncountOutcome(outcome, log))),
    }));
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
    ctx = await authorize(event.headers as Record<string, string | undefined> | null, recordingRefusal(event, log));
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
