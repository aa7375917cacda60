import { cacheItem, cacheKey, readCache } from './cache';
import { config } from './config';
import { COST, balance, refund, reserve, settleHit, settleLive } from './credits';
import { entryPoint } from './entry';
import { creditHeaders, success } from './envelope';
import { ApiError, GATEWAY_MESSAGES, toApiError, toScrapeError } from './errors';
import type { Log } from './log';
import { emitMetrics, MetricUnit } from './metrics';
import { type DataOf, type Operation, type OperationEntry, type OperationId, type ScraperOf, operation } from './operations';
import { ScrapeContext } from './scrape/context';
import { type Outcome, recordOutcome } from './status/outcomes';
import type { Scraper } from './scrape/scraper';
import { CACHE_MAX_AGE_SECONDS, validateQuery } from './validation';

/**
 * The one request pipeline every operation's function runs, inside the entry-point wrapper
 * (shared/entry.ts: request id, log context, error answers, headers):
 *   authenticated team -> validate -> cache (when cache_max_age allows; settleHit) -> reserve 1
 *   credit and scrape within the deadline, concurrently -> settleLive (ledger, usage, cache) -> envelope.
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

/** The scrape itself: whatever it throws leaves as an ApiError (toScrapeError). */
async function runScrape<P, R>(scrape: Scraper<P, R>, params: P, ctx: ScrapeContext, log: Log): Promise<R> {
  try {
    return await scrape(params, ctx, log);
  } catch (err) {
    throw toScrapeError(err);
  }
}

export function createHandler<Id extends OperationId>(operationId: Id, loadScraper: ScraperLoader<Id>) {
  const op = operation(operationId);
  const scraper = onceAfterIo(loadScraper);

  return entryPoint(op.id, async (event, { requestId, log, responseHeaders }) => {
    const started = Date.now();
    let teamId: string | undefined;
    let reserved = false;
    /** The balance right after this request's reservation, when it made one. */
    let remainingAfter: number | undefined;
    let upstreamCalls = 0;
    let counted: Outcome | undefined;

    /**
     * The request's last write, and its outcome counted (shared/status/outcomes.ts) at the same
     * time: the one place an answer is recorded, on every path, with no round trip of its own. A
     * count never fails the request; a success counted before its settle failed is taken back by
     * the error's count.
     */
    const concludeWith = async <T>(lastWrite: Promise<T>, answer: { status: number; code?: string; cached?: boolean; live?: boolean }): Promise<T> => {
      const now = Date.now();
      const outcome: Outcome = { operation: op.id, cached: false, live: false, ...answer, ms: now - started, upstreamCalls, at: now };
      const replacing = counted;
      counted = outcome;
      const [written] = await Promise.allSettled([lastWrite, recordOutcome(outcome, log, replacing)]);
      if (written.status === 'rejected') throw written.reason;
      return written.value;
    };

    try {
      teamId = event.requestContext?.authorizer?.teamId as string | undefined;
      if (!teamId) throw new ApiError('UNAUTHORIZED', GATEWAY_MESSAGES.UNAUTHORIZED);
      log.appendKeys({ teamId });

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
          const cachedAt = new Date(hit.fetchedAt).toISOString();
          const remaining = await concludeWith(settleHit(teamId, op.id, log), { status: 200, cached: true });
          return success(hit.data, { requestId, creditsCharged: 0, creditsRemaining: remaining, cached: true, cachedAt });
        }
      }

      // The reservation and the scrape start together: the upstream round trip does not wait for
      // DynamoDB. If the reservation is refused (402) the scrape is aborted and its result unused;
      // the balance can never go below zero because only the conditional update takes credits.
      const abort = new AbortController();
      const ctx = ScrapeContext.withBudget(config.scrapeDeadlineMs, abort.signal);
      const reservation = reserve(teamId, requestId);
      const scraping = scraper().then((scrape) => runScrape(scrape, values, ctx, log));
      scraping.catch(() => undefined); // settled below; never an unhandled rejection meanwhile
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
      await concludeWith(settleLive({ teamId, requestId, operation: op.id, time: new Date(fetchedAt).toISOString() }, item, log), { status: 200, live: true });
      reserved = false;
      return success(data, { requestId, creditsCharged: COST, creditsRemaining: remainingAfter, cached: false });
    } catch (err) {
      const apiError = toApiError(err);
      const remaining = await concludeWith(creditsAfterError(teamId, reserved ? remainingAfter : undefined, requestId, log), { status: apiError.status, code: apiError.code });
      Object.assign(responseHeaders, creditHeaders(0, remaining));
      throw apiError;
    } finally {
      log.info('request done', { outcome: counted?.code ?? (counted?.cached ? 'cache_hit' : 'live'), ms: Date.now() - started, upstreamCalls });
    }
  });
}

/**
 * An error costs nothing: a reserved credit is given back, and the balance to show is the one this
 * request saw (after its reservation, plus the credit given back) or, when it made no reservation,
 * read now, alongside the outcome count. Undefined when there is no team or the read failed.
 */
async function creditsAfterError(teamId: string | undefined, remainingAfter: number | undefined, requestId: string, log: Log): Promise<number | undefined> {
  if (!teamId) return undefined;
  if (remainingAfter === undefined) return balance(teamId).catch(() => undefined);
  const given = await refund(teamId, requestId);
  if (!given) {
    log.error('refund failed: a reserved credit was not given back');
    emitMetrics({}, [['refundFailed', MetricUnit.Count, 1]]);
  }
  return given ? remainingAfter + COST : remainingAfter;
}
