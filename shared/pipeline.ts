import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { BatchWriteCommand, type BatchWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { cacheItem, cacheKey, readCache } from './cache';
import { config } from './config';
import { COST, balance, ledgerItem, refund, reserve } from './credits';
import { db } from './db/client';
import { failure, success } from './envelope';
import { ApiError, atCapacity, toApiError } from './errors';
import { requestLogger, type Log } from './log';
import { recordOutcome } from './metrics';
import { operation, type OperationId } from './operations';
import { ScrapeContext } from './scrape/context';
import { CACHE_MAX_AGE_SECONDS, validateQuery } from './validation';

/**
 * The one request pipeline every function runs:
 *   authenticated team -> validate -> cache (when cache_max_age allows) -> reserve 1 credit and
 *   scrape within the deadline, concurrently -> ledger + cache write (one batch) -> envelope.
 * Any error after the reservation gives the credit back; errors always cost 0.
 */
export type Scraper<P> = (params: P, ctx: ScrapeContext, log: Log) => Promise<Record<string, unknown>>;

/**
 * A function names its scraper with a loader (`() => import('…/scrape')`), so the HTTP client,
 * the HTML parser and the mappers are not evaluated at cold start: a cache hit never loads them,
 * and a live request loads them while its credit reservation is on its way to DynamoDB.
 */
export type ScraperLoader<P> = () => Promise<Scraper<P>>;

function onceAfterIo<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  // setImmediate: let the request that was just started reach the socket before a synchronous
  // module evaluation occupies the event loop.
  return () => (loaded ??= new Promise<void>((resolve) => setImmediate(resolve)).then(load));
}

export function createHandler<P>(operationId: OperationId, loadScraper: ScraperLoader<P>) {
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
      if (!teamId) throw new ApiError('UNAUTHORIZED', 'A valid API key is required');

      const { values, cacheMaxAge } = validateQuery(op, event.queryStringParameters, event.multiValueQueryStringParameters);
      const key = cacheKey(op.id, values);

      if (cacheMaxAge) {
        const hit = await readCache(key, CACHE_MAX_AGE_SECONDS[cacheMaxAge]).catch((err) => {
          log.warn('cache read failed; scraping live', { error: (err as Error).name });
          return null;
        });
        if (hit) {
          outcome = 'cache_hit';
          const cachedAt = new Date(hit.fetchedAt).toISOString();
          return success(hit.data, { requestId, creditsCharged: 0, creditsRemaining: await balance(teamId), cached: true, cachedAt });
        }
      }

      // The reservation and the scrape start together: the upstream round trip does not wait for
      // DynamoDB. If the reservation is refused (402) the scrape is aborted and its result unused;
      // the balance can never go below zero because only the conditional update takes credits.
      const abort = new AbortController();
      const ctx = ScrapeContext.withBudget(config.scrapeDeadlineMs, abort.signal);
      const reservation = reserve(teamId);
      const scraping = scraper().then((scrape) => scrape(values as P, ctx, log));
      scraping.catch(() => undefined); // settled below; never an unhandled rejection meanwhile
      let remainingAfter: number;
      try {
        remainingAfter = await reservation;
        reserved = true;
      } catch (err) {
        abort.abort();
        throw err;
      }
      let result: Record<string, unknown>;
      try {
        result = await scraping;
      } finally {
        upstreamCalls = ctx.upstreamCalls;
      }
      const fetchedAt = Date.now();
      const data = { ...result, fetchedAt: new Date(fetchedAt).toISOString() };

      await settle(teamId, requestId, op.id, key, data, fetchedAt, log);
      reserved = false;
      outcome = 'live';
      return success(data, { requestId, creditsCharged: COST, creditsRemaining: remainingAfter, cached: false });
    } catch (err) {
      const apiError = toApiError(err);
      if (reserved && teamId) {
        const given = await refund(teamId);
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

/**
 * One BatchWriteItem writes the ledger record and the cache entry (half the latency of a
 * transaction; the cache entry is best-effort, the ledger record is what must exist). Unprocessed
 * items are retried; a ledger record that cannot be written fails the request, whose credit the
 * caller then gives back. A payload too large for one item is served uncached.
 */
async function settle(teamId: string, requestId: string, operationId: string, key: string, data: object, fetchedAt: number, log: Log) {
  const ledgerPut = { PutRequest: { Item: ledgerItem({ teamId, requestId, operation: operationId, credits: COST, time: new Date(fetchedAt).toISOString() }) } };
  const item = cacheItem(key, operationId, data, fetchedAt);
  if (!item) log.warn('result too large to cache; served uncached', { bytes: JSON.stringify(data).length });
  let pending: BatchWriteCommandInput['RequestItems'] = {
    [config.accountsTable]: [ledgerPut],
    ...(item ? { [config.cacheTable]: [{ PutRequest: { Item: item } }] } : {}),
  };
  for (let attempt = 0; attempt < 3 && pending && Object.keys(pending).length; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, 25 * 2 ** attempt));
    try {
      pending = (await db().send(new BatchWriteCommand({ RequestItems: pending }))).UnprocessedItems;
    } catch (err) {
      // A cache item the database refuses (size, say) must not cost the ledger record.
      const ledgerOnly = pending?.[config.accountsTable];
      if (!pending?.[config.cacheTable] || !ledgerOnly) throw atCapacity(`ledger write failed: ${(err as Error).name}`);
      log.warn('ledger+cache write failed; writing the ledger alone', { error: (err as Error).name });
      pending = { [config.accountsTable]: ledgerOnly };
    }
  }
  if (pending?.[config.accountsTable]?.length) throw atCapacity('ledger write left unprocessed');
  if (pending?.[config.cacheTable]?.length) log.warn('cache write left unprocessed; served uncached');
}
