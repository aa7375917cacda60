import { COST, balance } from './accounting/teams';
import { PageChargedBefore, jobPageCharged, settleLive } from './accounting/ledger';
import { type Answer, answered, recordAnswer } from './accounting/record';
import { InsufficientCredits, type Reservation, refund, reservationSettled, reserve, scrapesAhead } from './accounting/reservation';
import { JOB_PAGE_CHARGED_HEADER } from './api/job-routes';
import { cacheItem, cacheKey, readCache } from './result-cache';
import { entryPoint } from './http/entry';
import { creditHeaders, success } from './http/envelope';
import { ApiError, GATEWAY_MESSAGES, toApiError, toScrapeError } from './http/errors';
import { CACHE_MAX_AGE_SECONDS, validateQuery } from './http/validation';
import type { DataOf, Operation, OperationEntry, OperationId, ParamsOf, ScraperOf } from './operations';
import { config } from './runtime/config';
import type { Log } from './runtime/log';
import { loadSecrets } from './runtime/secrets';
import { ScrapeContext } from './scrape/context';

/**
 * The one request pipeline every operation's function runs, inside the entry-point wrapper
 * (shared/http/entry.ts: request id, log context, error answers, headers). A straight sequence:
 *
 *   key (the authorizer's context) -> query -> cache (with cache_max_age) -> reserve 1 credit and
 *   scrape -> settle (ledger, request record, cache entry) -> record -> envelope
 *
 * Each answer is decided first and recorded once, after (shared/accounting/record.ts): live 200,
 * cache hit and every error alike. Only money is transactional: the reservation (one conditional
 * update), the settle of a live answer (one transaction), and the refund of a reserved credit on
 * any error after it. docs/credits.md gives the round trips and writes of each path.
 */

/**
 * A function names its scraper with a loader (`() => import('…/scrape')`), so the HTTP client,
 * the HTML parser and the mappers are not evaluated at cold start: a cache hit never loads them,
 * and a live request loads them while its credit reservation is on its way to DynamoDB.
 */
export type ScraperLoader<Id extends OperationId> = () => Promise<ScraperOf<Id>>;

/** Who asks: the authorizer's context (API Gateway may pass its values as strings). */
interface Caller {
  teamId: string;
  keyId?: string;
  /** The team's balance as the authorizer read it with the key, when it did. */
  creditsHint?: number;
  /**
   * A monitor's poll (shared/monitors/poll.ts invokes the handler with it; the authorizer never
   * sets it): recorded as one, and it accepts a cached result no older than maxAgeSeconds.
   */
  monitor?: { monitorId: string; maxAgeSeconds: number };
  /**
   * A page of a bulk job's input (shared/jobs/engine.ts invokes the handler with it; the authorizer
   * never sets it): recorded as the job's, and it accepts a cached result no older than
   * maxAgeSeconds (the job's cache_max_age; on a retried attempt, the age of the job: what the
   * first attempt paid for is served free). `retry`: an attempt after one that may have been
   * charged: whether the page's charge is in the ledger is read first (a charged page is not charged
   * again, even when its cache entry is gone).
   */
  job?: { jobId: string; maxAgeSeconds: number; retry: boolean };
}

function callerOf(context: Record<string, unknown> | null | undefined): Caller | undefined {
  const teamId = context?.teamId;
  if (typeof teamId !== 'string' || !teamId) return undefined;
  const hint = context?.creditsHint === undefined || context.creditsHint === '' ? NaN : Number(context.creditsHint);
  const monitorId = context?.monitorId;
  const maxAge = Number(context?.monitorMaxAgeSeconds);
  const monitor = typeof monitorId === 'string' && monitorId && Number.isFinite(maxAge) ? { monitor: { monitorId, maxAgeSeconds: maxAge } } : {};
  const jobId = context?.jobId;
  const jobMaxAge = Number(context?.jobMaxAgeSeconds);
  const jobRetry = context?.jobRetry === true || context?.jobRetry === 'true';
  const job = typeof jobId === 'string' && jobId && Number.isFinite(jobMaxAge) ? { job: { jobId, maxAgeSeconds: jobMaxAge, retry: jobRetry } } : {};
  return { teamId, keyId: typeof context?.keyId === 'string' ? context.keyId : undefined, ...(Number.isFinite(hint) ? { creditsHint: hint } : {}), ...monitor, ...job };
}

function onceAfterIo<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined;
  // setImmediate: let the request just started reach the socket before a module evaluation occupies the event loop.
  return () => (loaded ??= new Promise<void>((resolve) => setImmediate(resolve)).then(load));
}

/**
 * The handler of one operation, given its entry of the table (imported from
 * shared/operations/<platform>.ts or shared/operations/shortvideo/<operation>.ts, not through the
 * whole table: a function evaluates its own platform's schemas at cold start and no other's).
 */
export function createHandler<Id extends OperationId>(op: OperationEntry<Id>, loadScraper: ScraperLoader<Id>) {
  const scraper = onceAfterIo(loadScraper);
  // Naming the type keeps the compiler from spreading it over every operation of the union.
  const rules = { params: op.params as OperationEntry<Id>['params'], oneOf: (op as Operation).oneOf };
  loadSecrets().catch(() => undefined); // started with the cold start; a failure is retried by the first request

  return entryPoint(op.id, async (event, { requestId, log, responseHeaders }) => {
    const started = Date.now();
    const caller = callerOf(event.requestContext?.authorizer);
    const abort = new AbortController();
    const ctx = ScrapeContext.withBudget(config.scrapeDeadlineMs, abort.signal);
    /** What the answer shows as x-credits-remaining, once known; and whether a refund failed. */
    const credits: { remaining?: number; refundFailed?: boolean } = { remaining: caller?.creditsHint };
    const record = (a: Pick<Answer, 'status' | 'code' | 'cached' | 'live' | 'credits'>, historyWritten = false) => {
      const time = Date.now();
      const answer: Answer = { ...a, teamId: caller?.teamId, keyId: caller?.keyId, monitorId: caller?.monitor?.monitorId, jobId: caller?.job?.jobId, operation: op.id, requestId, ms: time - started, time, upstreamCalls: ctx.upstreamCalls, dropped: ctx.droppedItems };
      log.info('request done', { outcome: a.code ?? (a.cached ? 'cache_hit' : 'live'), ms: answer.ms, upstreamCalls: ctx.upstreamCalls });
      return recordAnswer(answer, log, { historyWritten, refundFailed: credits.refundFailed });
    };
    try {
      if (!caller) throw new ApiError('UNAUTHORIZED', GATEWAY_MESSAGES.UNAUTHORIZED);
      log.appendKeys({ teamId: caller.teamId });
      await loadSecrets();
      const { values, cacheMaxAge } = validateQuery(rules, event.queryStringParameters, event.multiValueQueryStringParameters);
      const key = cacheKey(op.id, values);

      const maxAgeSeconds = caller.monitor?.maxAgeSeconds ?? caller.job?.maxAgeSeconds ?? (cacheMaxAge ? CACHE_MAX_AGE_SECONDS[cacheMaxAge] : 0);
      // A bulk job's page asked again (its worker failed, maybe after the charge): is its charge in
      // the ledger? Read beside the cache; unknown (the read failed) is no: the settle's condition
      // still refuses a second charge of the page.
      const job = caller.job;
      const chargedBefore = job?.retry
        ? jobPageCharged(caller.teamId, job.jobId, requestId).catch((err) => (log.warn('job page charge not read', { error: (err as Error).name }), false))
        : Promise.resolve(false);
      // The job counts the page's one charge when the ledger holds it (JOB_PAGE_CHARGED_HEADER).
      const pageCharged = () => void (responseHeaders[JOB_PAGE_CHARGED_HEADER] = '1');
      if (maxAgeSeconds > 0) {
        const [hit, shown, before] = await Promise.all([
          readCache(key, maxAgeSeconds).catch((err) => void log.warn('cache read failed; scraping live', { error: (err as Error).name })),
          credits.remaining ?? balance(caller.teamId),
          chargedBefore,
        ]);
        if (hit) {
          // The answer an earlier attempt of this page paid for (the entry carries its request id), or any: free this time.
          if (job && (before || hit.requestId === requestId)) pageCharged();
          await record({ status: 200, code: null, cached: true, live: false, credits: 0 });
          return success(hit.data, { requestId, creditsCharged: 0, creditsRemaining: shown, cached: true, cachedAt: new Date(hit.fetchedAt).toISOString() });
        }
      }
      if (await chargedBefore) {
        // Paid for, but its cache entry is gone (never written: too large, or the write failed): scraped
        // again, free. The header goes with an error answer too: the job counts the charge whatever this scrape gives.
        pageCharged();
        const data = await paidAnswer(values, { ctx, scraper, log });
        await record({ status: 200, code: null, cached: false, live: true, credits: 0 });
        return success(data, { requestId, creditsCharged: 0, creditsRemaining: credits.remaining ?? (await balance(caller.teamId)), cached: false });
      }

      const { data, remaining, charged } = await liveAnswer(op.id, values, key, caller, { requestId, started, ctx, abort, credits, scraper, log });
      if (job) pageCharged();
      await record({ status: 200, code: null, cached: false, live: true, credits: charged }, charged > 0);
      return success(data, { requestId, creditsCharged: charged, creditsRemaining: remaining, cached: false });
    } catch (err) {
      const apiError = toApiError(err);
      if (err instanceof InsufficientCredits) credits.remaining = err.balance;
      const [, remaining] = await Promise.all([
        record({ status: apiError.status, code: apiError.code, cached: false, live: false, credits: 0 }),
        credits.remaining ?? (caller ? balance(caller.teamId).catch(() => undefined) : undefined),
      ]);
      Object.assign(responseHeaders, creditHeaders(0, remaining));
      throw apiError;
    }
  });
}

interface LiveRequest<Id extends OperationId> {
  requestId: string;
  started: number;
  ctx: ScrapeContext;
  abort: AbortController;
  credits: { remaining?: number; refundFailed?: boolean };
  scraper: () => Promise<ScraperOf<Id>>;
  log: Log;
}

/**
 * Reserve 1 credit, scrape, settle. The scrape waits for the reservation, so a team without credit
 * never causes an upstream request; only a team the authorizer saw with credits to spare
 * (scrapesAhead) has both start together, the scrape aborted if the reservation is refused. Any
 * error after the reservation gives the credit back.
 */
async function liveAnswer<Id extends OperationId>(id: Id, params: ParamsOf<Id>, key: string, caller: Caller, r: LiveRequest<Id>): Promise<{ data: DataOf<Id> & { fetchedAt: string }; remaining: number; charged: number }> {
  const reservation = reserve(caller.teamId, r.requestId, r.log);
  const ready = scrapesAhead(caller.creditsHint) ? r.scraper() : reservation.then(r.scraper);
  // A scraper that fails to load is our 503.
  const scraping = ready.then((scrape) => scrapeWith(scrape, params, r));
  scraping.catch(() => undefined); // settled below; never an unhandled rejection meanwhile
  let reserved: Reservation;
  try {
    reserved = await reservation;
  } catch (err) {
    r.abort.abort();
    throw err;
  }
  r.credits.remaining = reserved.remaining;
  try {
    const result = await scraping;
    const fetchedAt = Date.now();
    const data = { ...result, fetchedAt: new Date(fetchedAt).toISOString() };
    const item = await cacheItem(key, id, data, fetchedAt, r.requestId);
    if (!item) r.log.warn('result too large to cache; served uncached', { bytes: JSON.stringify(data).length });
    const answer = { teamId: caller.teamId, keyId: caller.keyId, monitorId: caller.monitor?.monitorId, jobId: caller.job?.jobId, operation: id, requestId: r.requestId, status: 200, code: null, credits: COST, cached: false, ms: fetchedAt - r.started, time: fetchedAt };
    try {
      await settleLive(reserved, answered(answer), item, r.log);
    } catch (err) {
      if (!(err instanceof PageChargedBefore)) throw err;
      // A job's page another attempt was charged for (under its own reservation): this credit goes back, the answer is free.
      await giveBack(caller.teamId, reserved, r);
      return { data, remaining: r.credits.remaining ?? reserved.remaining, charged: 0 };
    }
    reservationSettled(reserved);
    return { data, remaining: reserved.remaining, charged: COST };
  } catch (err) {
    await giveBack(caller.teamId, reserved, r);
    throw err;
  }
}

/** The reserved credit back (refund: exactly once); the balance shown after it. */
async function giveBack<Id extends OperationId>(teamId: string, reserved: Reservation, r: LiveRequest<Id>): Promise<void> {
  const given = await refund(teamId, r.requestId);
  if (given) r.credits.remaining = reserved.remaining + COST;
  else r.log.error('refund failed: a reserved credit was not given back (the sweep of old reservations will)');
  r.credits.refundFailed = !given;
}

/** A job's page already paid for (its charge in the ledger), scraped again without a reservation: nothing charged, nothing settled. */
async function paidAnswer<Id extends OperationId>(params: ParamsOf<Id>, r: Pick<LiveRequest<Id>, 'ctx' | 'scraper' | 'log'>): Promise<DataOf<Id> & { fetchedAt: string }> {
  const result = await scrapeWith(await r.scraper(), params, r);
  return { ...result, fetchedAt: new Date().toISOString() };
}

/** One scrape, what it throws classified (toScrapeError): a live answer's and a paid page's. */
function scrapeWith<Id extends OperationId>(scrape: Awaited<ReturnType<LiveRequest<Id>['scraper']>>, params: ParamsOf<Id>, r: Pick<LiveRequest<Id>, 'ctx' | 'log'>) {
  return scrape(params, r.ctx, r.log).catch((err: unknown) => Promise.reject(toScrapeError(err)));
}
