import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { cacheItem, cacheKey, readCache } from './cache';
import { config } from './config';
import { COST, balance, refund, reserve, settle } from './credits';
import { failure, success } from './envelope';
import { ApiError, GATEWAY_MESSAGES, toApiError } from './errors';
import { countAnswer } from './account/usage';
import { requestLogger } from './log';
import { recordOutcome } from './metrics';
import { type DataOf, type Operation, type OperationEntry, type OperationId, type ScraperOf, operation } from './operations';
import { ScrapeContext } from './scrape/context';
import { CACHE_MAX_AGE_SECONDS, validateQuery } from './validation';

/**
 * The one request pipeline every function runs:
 *   authenticated team -> validate -> cache (when cache_max_age allows) -> reserve 1 credit and
 *   scrape within the deadline, concurrently -> ledger + cache write (one batch) -> envelope.
 * Each answered request also adds to the team's daily usage counter (shared/account/usage.ts).
 * Any error after the reservation gives the credit back; errors always cost 0.
 */

/**
 * A function names its scraper with a loader (`() => import('…/scrape')`), so the HTTP client,
 * the HTML parser and the mappers are not evaluated at cold start: a cache hit never loads them,
 * and a live request loads them while its credit reservation is on its way to DynamoDB. Its type
 * comes from the operation table: parameters and result are the operation's contract.
 */
export type ScraperLoader<Id extends OperationId> = () => Promise<ScraperOf<Id>>;

function onceAfterIo<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  // setImmediate: let the request that was just started reach the socket before a synchronous
  // module evaluation occupies the event loop.
  return () => (loaded ??= new Promise<void>((resolve) => setImmediate(resolve)).then(load));
}

export function createHandler<Id extends OperationId>(operationId: Id, loadScraper: ScraperLoader<Id>) {
  const op = operation(operationId);
  const scraper = onceAfterIo(loadScraper);

  return async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
    const started = Date.now();
    const requestId = event.requestContext?.requestId || randomUUID();
    const log = requestLogger(requestId, op.id);
    let teamId: string | undefined;
    let reserved = false;
    let outcome = 'error';
    let upstreamCalls = 0;
    try {
      teamId = event.requestContext?.authorizer?.teamId as string | undefined;
      if (!teamId) throw new ApiError('UNAUTHORIZED', GATEWAY_MESSAGES.UNAUTHORIZED);

      // Naming the type keeps the compiler from spreading it over every operation of the union.
      const rules = { params: op.params as OperationEntry<Id>['params'], oneOf: (op as Operation).oneOf };
      const { values, cacheMaxAge } = validateQuery(rules, event.queryStringParameters, event.multiValueQueryStringParameters);
      const key = cacheKey(op.id, values);

      if (cacheMaxAge) {
        const hit = await readCache(key, CACHE_MAX_AGE_SECONDS[cacheMaxAge]).catch((err) => {
          log.warn('cache read failed; scraping live', { error: (err as Error).name });
          return null;
        });
        if (hit) {
          outcome = 'cache_hit';
          const cachedAt = new Date(hit.fetchedAt).toISOString();
          // The day's usage counter goes with the balance read: one more call, no more waiting.
          const [remaining] = await Promise.all([balance(teamId), countAnswer(teamId, op.id, { kind: 'hit' }, log)]);
          return success(hit.data, { requestId, creditsCharged: 0, creditsRemaining: remaining, cached: true, cachedAt });
        }
      }

      // The reservation and the scrape start together: the upstream round trip does not wait for
      // DynamoDB. If the reservation is refused (402) the scrape is aborted and its result unused;
      // the balance can never go below zero because only the conditional update takes credits.
      const abort = new AbortController();
      const ctx = ScrapeContext.withBudget(config.scrapeDeadlineMs, abort.signal);
      const reservation = reserve(teamId, requestId);
      const scraping = scraper().then((scrape) => scrape(values, ctx, log));
      scraping.catch(() => undefined); // settled below; never an unhandled rejection meanwhile
      let remainingAfter: number;
      try {
        remainingAfter = await reservation;
        reserved = true;
      } catch (err) {
        abort.abort();
        throw err;
      }
      let result: DataOf<Id>;
      try {
        result = await scraping;
      } finally {
        upstreamCalls = ctx.upstreamCalls;
      }
      const fetchedAt = Date.now();
      const data = { ...result, fetchedAt: new Date(fetchedAt).toISOString() };

      const item = cacheItem(key, op.id, data, fetchedAt);
      if (!item) log.warn('result too large to cache; served uncached', { bytes: JSON.stringify(data).length });
      // The day's usage counter goes with the ledger write; should the ledger write fail (the
      // request then fails and is refunded), the count is taken back.
      const counting = countAnswer(teamId, op.id, { kind: 'live', credits: COST }, log, fetchedAt);
      try {
        await settle({ teamId, requestId, operation: op.id, time: new Date(fetchedAt).toISOString() }, item, log);
      } catch (err) {
        if (await counting) await countAnswer(teamId, op.id, { kind: 'live', credits: COST }, log, fetchedAt, -1);
        throw err;
      }
      await counting;
      reserved = false;
      outcome = 'live';
      return success(data, { requestId, creditsCharged: COST, creditsRemaining: remainingAfter, cached: false });
    } catch (err) {
      const apiError = toApiError(err);
      if (reserved && teamId) {
        const given = await refund(teamId, requestId);
        if (!given) log.error('refund failed: a reserved credit was not given back', { teamId });
      }
      outcome = apiError.code;
      const level = apiError.status >= 500 ? 'error' : 'info';
      log[level]('request failed', { code: apiError.code, status: apiError.status, cause: apiError.internal ?? apiError.message, teamId });
      return failure(apiError, requestId);
    } finally {
      const ms = Date.now() - started;
      log.info('request done', { outcome, ms, upstreamCalls, teamId });
      recordOutcome(op.id, outcome, upstreamCalls, ms);
    }
  };
}
