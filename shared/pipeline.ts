import type { AuthorizedContext } from './auth/authorizer';
import { cacheItem, cacheKey, readCache } from './result-cache';
import { config } from './runtime/config';
import { COST, balance, recordFreeAnswer, recordHit, recordLateHit, reserve, scrapesAhead, settleError, settleLive, unrecordFreeAnswer, unrecordHit } from './accounting/credits';
import { entryPoint } from './http/entry';
import { creditHeaders, success } from './http/envelope';
import { ApiError, type ErrorCode, GATEWAY_MESSAGES, toApiError, toScrapeError } from './http/errors';
import type { Answered } from './accounting/request-history';
import type { Log } from './runtime/log';
import { emitMetrics, MetricUnit } from './runtime/metrics';
import { type DataOf, type Operation, type OperationEntry, type OperationId, type ScraperOf, operation } from './operations';
import { ScrapeContext } from './scrape/context';
import { type Outcome, emitOutcome, recordOutcome } from './status/outcomes';
import type { Scraper } from './scrape/scraper';
import { CACHE_MAX_AGE_SECONDS, validateQuery } from './http/validation';
import { loadSecrets } from './runtime/secrets';

/**
 * The one request pipeline every operation's function runs, inside the entry-point wrapper
 * (shared/http/entry.ts: request id, log context, error answers, headers):
 *   authenticated team -> validate -> cache (when cache_max_age allows; recordHit beside the read) -> reserve 1
 *   credit and scrape within the deadline (concurrently when the team has credits to spare, else
 *   the scrape after the reservation) -> settleLive (ledger, usage, history, cache) -> envelope.
 * Any error after the reservation gives the credit back (settleError); errors always cost 0. Every
 * answer of a known team is counted in its daily usage and its request history by the settle step
 * it goes through (recordHit, settleLive, settleError), with the writes that step makes anyway,
 * except a 422 the authorizer already recorded (`recordedAhead`): then the function writes nothing.
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

/** A number of the authorizer's context (the balance hint, say) as the function receives it (API Gateway may pass context values as strings). */
function contextNumber(raw: unknown): number | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * The answer the authorizer counted and recorded for this request (a 422 of a query that fails the
 * operation's validation: shared/auth/authorizer.ts), with the time it recorded it at; undefined
 * when it recorded none.
 */
function recordedAhead(context: Record<string, unknown> | null | undefined): { code: NonNullable<AuthorizedContext['recorded']>; at: number } | undefined {
  const at = contextNumber(context?.recordedAt);
  return context?.recorded === 'VALIDATION_ERROR' && at !== undefined ? { code: context.recorded, at } : undefined;
}

export function createHandler<Id extends OperationId>(operationId: Id, loadScraper: ScraperLoader<Id>) {
  const op = operation(operationId);
  const scraper = onceAfterIo(loadScraper);
  // Secrets kept out of the configuration (shared/runtime/secrets.ts): the read starts with the cold start;
  // a failed read is retried by the first request (which answers 503 if it fails again).
  loadSecrets().catch(() => undefined);

  return entryPoint(op.id, async (event, { requestId, log, responseHeaders }) => {
    await loadSecrets();
    const started = Date.now();
    /**
     * A 422 the authorizer recorded already (usage count and history item; its outcome counters:
     * `outcomeAt` below). If this request ends in that 422, nothing more is written for it; if it ends
     * otherwise (authorizer and function of different versions), the count is taken back and the
     * answer recorded as usual, its history item under the same key (the request's start: the
     * authorizer's record).
     */
    const ahead = recordedAhead(event.requestContext?.authorizer);
    const requestStart = ahead?.at ?? started;
    /** The authorizer's count taken back, the request having been valid after all (never rejects). */
    let aheadTakenBack: Promise<void> | undefined;
    let teamId: string | undefined;
    let reserved = false;
    /** The balance right after this request's reservation, when it made one. */
    let remainingAfter: number | undefined;
    /** The balance the authorizer read with the key (undefined on a key's first use in a container). */
    let creditsHint: number | undefined;
    let upstreamCalls = 0;
    /** A hit counted for a cache entry that proved unreadable, being taken back (never rejects). */
    let unreadableHit: Promise<void> | undefined;
    /** A refusal (402) counted beside the reservation because the authorizer saw no credit (see below). */
    let refusalCounted: Answered | undefined;
    /** That refusal's count taken back, the reservation having succeeded after all (never rejects). */
    let refusalTakenBack: Promise<void> | undefined;
    /** The balance read beside the reservation when the authorizer gave none (a 402 shows it). */
    let balanceBeside: Promise<number | undefined> | undefined;
    const keyId = event.requestContext?.authorizer?.keyId as string | undefined;
    const answered = (teamId: string, status: number, code: ErrorCode | null, cached: boolean): Answered => {
      const time = Date.now();
      return { teamId, keyId, operation: op.id, requestId, status, code, credits: 0, cached, ms: time - requestStart, time };
    };
    // The 422 the authorizer counted in the outcome counters (with the record, or alone when its
    // record failed): the first count of this request replaces it, and the same 422 writes nothing.
    const outcomeAt = contextNumber(event.requestContext?.authorizer?.outcomeAt);
    const aheadOutcome: Outcome | undefined =
      outcomeAt !== undefined ? { operation: op.id, status: 422, code: 'VALIDATION_ERROR', cached: false, live: false, ms: 0, upstreamCalls: 0, at: outcomeAt } : undefined;
    let counted: Outcome | undefined = aheadOutcome;
    /** The authorizer's usage count taken back (its history item is replaced by this request's own). */
    const takeBackAhead = (teamId: string) =>
      (aheadTakenBack ??= unrecordFreeAnswer({ ...answered(teamId, 422, ahead!.code, false), ms: 0, time: ahead!.at }, log));

    /**
     * The request's last write, and its outcome counted (shared/status/outcomes.ts) at the same
     * time: the one place an answer's outcome is recorded, on every path, with no round trip of its
     * own. A count never fails the request; an outcome counted before the answer changed (a success
     * whose settle failed, a hit whose entry proved unreadable) is taken back by the next count.
     */
    const concludeWith = async <T>(lastWrite: Promise<T>, answer: { status: number; code?: string; cached?: boolean; live?: boolean }, beforeAnswer = false): Promise<T> => {
      const now = Date.now();
      const outcome: Outcome = { operation: op.id, cached: false, live: false, ...answer, ms: now - started, upstreamCalls, at: now };
      const replacing = counted;
      counted = outcome;
      const [written] = await Promise.allSettled([lastWrite, recordOutcome(outcome, log, replacing, !beforeAnswer)]);
      if (written.status === 'rejected') throw written.reason;
      return written.value;
    };

    try {
      teamId = event.requestContext?.authorizer?.teamId as string | undefined;
      if (!teamId) throw new ApiError('UNAUTHORIZED', GATEWAY_MESSAGES.UNAUTHORIZED);
      creditsHint = contextNumber(event.requestContext?.authorizer?.creditsHint);
      log.appendKeys({ teamId });

      // Naming the type keeps the compiler from spreading it over every operation of the union.
      const rules = { params: op.params as OperationEntry<Id>['params'], oneOf: (op as Operation).oneOf };
      const { values, cacheMaxAge } = validateQuery(rules, event.queryStringParameters, event.multiValueQueryStringParameters);
      const key = cacheKey(op.id, values);
      // Valid after all: the authorizer's count goes back beside this request's first write.
      if (ahead) takeBackAhead(teamId);

      // A hit in one round trip after the authorizer's: the cache read, the hit's count and history
      // item (conditional on a fresh entry: recordHit), its outcome count (taken back by the next
      // count on a miss) and, when the authorizer gave none, the balance to show, all at once.
      if (cacheMaxAge) {
        const maxAgeSeconds = CACHE_MAX_AGE_SECONDS[cacheMaxAge];
        const now = Date.now();
        const hitAnswer = answered(teamId, 200, null, true);
        const [hit, recorded, shown] = await concludeWith(
          Promise.all([
            readCache(key, maxAgeSeconds, now).catch((err) => {
              log.warn('cache read failed; scraping live', { error: (err as Error).name });
              return null;
            }),
            recordHit(hitAnswer, key, maxAgeSeconds, now, log),
            creditsHint ?? balance(teamId).catch(() => undefined),
          ]),
          { status: 200, cached: true },
          true, // counted ahead of knowing it is a hit: its metric once it is
        );
        if (hit) {
          emitOutcome({ ...counted!, ms: Date.now() - started });
          // Not written by the transaction (the entry expired in between, or a concurrent request's
          // transaction on the same items cancelled it): counted now, one round trip more.
          if (recorded === 'no entry' || recorded === 'conflict') await recordLateHit(hitAnswer, log);
          const remaining = shown ?? (await balance(teamId));
          await aheadTakenBack;
          const cachedAt = new Date(hit.fetchedAt).toISOString();
          return success(hit.data, { requestId, creditsCharged: 0, creditsRemaining: remaining, cached: true, cachedAt });
        }
        // Counted, but the entry could not be used (corrupt, or gone in between): served live, and
        // the count taken back meanwhile (the request's own answer replaces the history item).
        if (recorded === 'recorded') unreadableHit = unrecordHit(hitAnswer, log);
      }

      // A team the authorizer saw with credits to spare (scrapesAhead): the reservation and the
      // scrape start together, so the upstream round trip does not wait for DynamoDB; if the
      // reservation is refused (402) the scrape is aborted and its result unused. Any other team:
      // the scrape starts once the credit is reserved (the scraper loads meanwhile), so a team
      // without credit never causes an upstream request. Either way the balance can never go
      // below zero: only the conditional update takes credits.
      const abort = new AbortController();
      const ctx = ScrapeContext.withBudget(config.scrapeDeadlineMs, abort.signal);
      const reservation = reserve(teamId, requestId);
      // A team the authorizer saw without a credit is almost always refused: the refusal's usage
      // count, history item and outcome go beside the reservation instead of after it, so a 402
      // costs no round trip of its own. A reservation that succeeds after all (credits added
      // meanwhile) has them taken back while it scrapes; its own answer replaces the history item.
      // So does a key's first use in the authorizer's container, whose balance it has not read
      // (rare: once per key and container); its balance, for x-credits-remaining, is read beside.
      let reserving: Promise<number> = reservation;
      if (creditsHint === undefined || creditsHint < COST) {
        if (creditsHint === undefined) balanceBeside = balance(teamId).catch(() => undefined);
        const refusal = answered(teamId, 402, 'INSUFFICIENT_CREDITS', false);
        refusalCounted = refusal;
        reserving = concludeWith(
          // Both settled before the answer leaves (a Lambda frozen mid-write may lose the write).
          Promise.allSettled([reservation, recordFreeAnswer(refusal, log)]).then(([r]) => (r.status === 'fulfilled' ? r.value : Promise.reject(r.reason))),
          { status: 402, code: 'INSUFFICIENT_CREDITS' },
          true, // counted ahead of the refusal: its metric once it is one
        );
      }
      const loading = scraper();
      const ready = scrapesAhead(creditsHint) ? loading : reservation.then(() => loading);
      const scraping = ready.then((scrape) => runScrape(scrape, values, ctx, log));
      scraping.catch(() => undefined); // settled below; never an unhandled rejection meanwhile
      try {
        remainingAfter = await reserving;
        reserved = true;
        if (refusalCounted) refusalTakenBack = unrecordFreeAnswer(refusalCounted, log);
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
      const charge = { teamId, requestId, operation: op.id, time: new Date(fetchedAt).toISOString() };
      await concludeWith(settleLive(charge, item, log, { keyId, ms: fetchedAt - requestStart }), { status: 200, live: true });
      reserved = false;
      await Promise.all([unreadableHit, refusalTakenBack, aheadTakenBack]);
      return success(data, { requestId, creditsCharged: COST, creditsRemaining: remainingAfter, cached: false });
    } catch (err) {
      const apiError = toApiError(err);
      let remaining: number | undefined;
      if (ahead && teamId && !aheadTakenBack && apiError.code === ahead.code) {
        // The query's 422, counted and recorded by the authorizer in the round trip of its key read:
        // nothing to write (the outcome, counted ahead too, only emits its metric; counted only now
        // in the rare case the authorizer's record went through and its counters did not).
        remaining = await concludeWith(creditsHint !== undefined ? Promise.resolve(creditsHint) : balance(teamId).catch(() => undefined), { status: apiError.status, code: apiError.code });
      } else if (refusalCounted && !reserved && apiError.code === 'INSUFFICIENT_CREDITS') {
        // Counted and recorded beside the reservation: nothing more to write.
        emitOutcome({ ...counted!, ms: Date.now() - started });
        remaining = creditsHint ?? (await balanceBeside);
      } else {
        // Any other answer: a refusal counted ahead of time is taken back (once) beside its own count,
        // and so is a 422 the authorizer counted (its outcome by this count: `counted` replaced).
        if (refusalCounted) refusalTakenBack ??= unrecordFreeAnswer(refusalCounted, log);
        if (ahead && teamId) takeBackAhead(teamId);
        const answer = teamId ? answered(teamId, apiError.status, apiError.code, false) : undefined;
        remaining = await concludeWith(creditsAfterError(answer, reserved ? remainingAfter : undefined, creditsHint, log), { status: apiError.status, code: apiError.code });
      }
      await Promise.all([unreadableHit, refusalTakenBack, aheadTakenBack]);
      Object.assign(responseHeaders, creditHeaders(0, remaining));
      throw apiError;
    } finally {
      log.info('request done', { outcome: counted?.code ?? (counted?.cached ? 'cache_hit' : 'live'), ms: Date.now() - started, upstreamCalls });
    }
  });
}

/**
 * An error costs nothing: a reserved credit is given back, with the error's usage count and history
 * item (settleError). The balance to show is the one this request saw (after its reservation, plus
 * the credit given back) or, when it made no reservation, the authorizer's (read now when it gave
 * none). Undefined when there is no team or the read failed.
 */
async function creditsAfterError(answer: Answered | undefined, remainingAfter: number | undefined, creditsHint: number | undefined, log: Log): Promise<number | undefined> {
  if (!answer) return undefined;
  const reserved = remainingAfter !== undefined;
  const [given, read] = await Promise.all([
    settleError(answer, reserved, log),
    reserved || creditsHint !== undefined ? undefined : balance(answer.teamId).catch(() => undefined),
  ]);
  if (!reserved) return creditsHint ?? read;
  if (!given) emitMetrics({}, [['refundFailed', MetricUnit.Count, 1]]);
  return given ? remainingAfter + COST : remainingAfter;
}
