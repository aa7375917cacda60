import { randomBytes } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { requireOwnOrigin } from '../account/api';
import { invalid, session, sessionCookiePath } from '../account/context';
import { authorize } from '../auth/authorizer';
import { keyFromHeaders } from '../auth/keys';
import { entryPoint } from '../http/entry';
import { jsonAnswer } from '../http/envelope';
import { jsonObjectBody } from '../http/body';
import { ApiError, GATEWAY_MESSAGES, notFound, type ValidationDetail } from '../http/errors';
import { validateQuery } from '../http/validation';
import { operation, type Operation } from '../operations';
import type { Log } from '../runtime/log';
import { loadSecrets } from '../runtime/secrets';
import { manualEventId, newDelivery, queueManual, releaseHeld } from './deliver';
import { MONITORABLE_IDS, isMonitorable } from './kinds';
import { ROTATION_OVERLAP_MS, newSecret, sealSecret } from './secret';
import { type Delivery, type Monitor, createMonitor, deleteMonitor, getDelivery, getMonitor, listDeliveries, listMonitors, updateMonitor } from './store';
import { type MonitorRouteName, matchMonitorRoute } from './routes';
import { webhookUrlProblem } from './webhook-url';

/**
 * The monitors API (MONITOR_ROUTES), managed as the account API is: with the team's API key
 * (x-api-key or Bearer) or a dashboard session (its cookie's path, <prefix>/v1, covers these
 * routes; state-changing requests then need this site's Origin). Every current member of the team,
 * owner or not, manages every monitor of the team, as every key of the team does (and any member
 * may create a key): a role rule here would protect nothing. Free. Team-scoped: every lookup is by
 * (caller's team, monitorId), so another team's monitor is simply 404. Errors in the spec's shape.
 */
export const MAX_INTERVAL_SECONDS = 86_400;
/** The floor of a monitor's interval, but where MONITOR_MIN_INTERVAL_SECONDS lowers it (local runs and tests). */
export const MIN_INTERVAL_SECONDS = 60;
export const minIntervalSeconds = () => Math.max(1, Number(process.env.MONITOR_MIN_INTERVAL_SECONDS) || MIN_INTERVAL_SECONDS);
export const monitorsPerTeam = () => Number(process.env.MONITORS_PER_TEAM) || 100;
const NO_MONITOR = 'Your team has no monitor with this id';
const NO_EVENT = 'This monitor has no event with this id in the last 7 days';

/** queueManual's answer: 0 queued; otherwise 429 with the seconds to wait, or the monitor or event changed meanwhile. */
function manualQueued(wait: number): void {
  if (wait > 0) throw new ApiError('RATE_LIMITED', 'One test or redelivery per monitor every 5 seconds', { retryAfter: wait });
  if (wait < 0) throw notFound('This monitor or event changed meanwhile; try again');
}
const MAX_BODY_BYTES = 16 * 1024;

export const publicMonitor = (m: Monitor) => ({
  id: m.monitorId,
  operation: m.operation,
  params: m.params,
  intervalSeconds: m.intervalSeconds,
  webhookUrl: m.webhookUrl,
  status: m.status,
  pausedReason: m.pausedReason ?? null,
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
  nextPollAt: m.status === 'active' ? new Date(m.nextPollAt).toISOString() : null,
  lastPollAt: m.lastPollAt ? new Date(m.lastPollAt).toISOString() : null,
  lastPollStatus: m.lastPollStatus ?? null,
  previousSecretExpiresAt: m.previousSecret && (m.previousSecretExpiresAt ?? 0) > Date.now() ? new Date(m.previousSecretExpiresAt!).toISOString() : null,
});

export const publicDelivery = (d: Delivery) => ({
  eventId: d.eventId,
  type: d.type,
  createdAt: new Date(d.createdAt).toISOString(),
  state: d.state,
  attempts: d.attempts,
  lastStatus: d.lastStatus ?? null,
  lastError: d.lastError ?? null,
  latencyMs: d.ms ?? null,
  nextRetryAt: d.state === 'pending' && d.nextAttemptAt !== undefined && !d.held ? new Date(d.nextAttemptAt).toISOString() : null,
  held: Boolean(d.held),
});

/** One delivery with its recent attempts (the last 20), oldest first. */
export const publicDeliveryWithAttempts = (d: Delivery) => ({
  ...publicDelivery(d),
  recentAttempts: (d.log ?? []).map((a) => ({ at: new Date(a.at).toISOString(), status: a.status, latencyMs: a.ms, error: a.error ?? null })),
});

function checkParams(operationId: string, raw: unknown): Record<string, string> {
  if (raw === undefined) raw = {};
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw invalid('params', 'Must be an object of query parameters');
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof v !== 'string') throw invalid(`params.${k}`, 'Must be a string');
    if (k === 'cursor' || k === 'cache_max_age') throw invalid(`params.${k}`, 'A monitor watches the first page; the cache age follows its interval');
    params[k] = v;
  }
  const op = operation(operationId as Parameters<typeof operation>[0]) as Operation;
  try {
    validateQuery({ params: op.params, oneOf: op.oneOf }, params);
  } catch (err) {
    if (err instanceof ApiError && err.details) throw new ApiError('VALIDATION_ERROR', 'Invalid request body', { details: err.details.map((d: ValidationDetail) => ({ path: `params.${d.path}`, message: d.message })) });
    if (err instanceof ApiError) throw invalid('params', err.message);
    throw err;
  }
  return params;
}

function checkInterval(raw: unknown): number {
  const min = minIntervalSeconds();
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < min || raw > MAX_INTERVAL_SECONDS) throw invalid('intervalSeconds', `An integer from ${min} to ${MAX_INTERVAL_SECONDS} (seconds)`);
  return raw;
}

async function checkUrl(raw: unknown): Promise<string> {
  const problem = await webhookUrlProblem(raw);
  if (problem) throw invalid('webhookUrl', problem);
  return new URL((raw as string).trim()).href;
}

interface Ctx {
  teamId: string;
  keyId?: string;
  /** The member of a dashboard session. */
  memberId?: string;
  requestId: string;
  body: Record<string, unknown>;
  params: Record<string, string>;
  event: APIGatewayProxyEvent;
  log: Log;
}
type Reply = { status?: number; data: unknown };

async function mine(ctx: Ctx): Promise<Monitor> {
  const m = await getMonitor(ctx.teamId, ctx.params.monitorId ?? '');
  if (!m) throw notFound(NO_MONITOR);
  return m;
}

const HANDLERS: Record<MonitorRouteName, (ctx: Ctx) => Promise<Reply>> = {
  async create(ctx) {
    const { body } = ctx;
    if (typeof body.operation !== 'string' || !isMonitorable(body.operation)) throw invalid('operation', `One of ${MONITORABLE_IDS.join(', ')}`);
    const params = checkParams(body.operation, body.params);
    const intervalSeconds = checkInterval(body.intervalSeconds);
    const webhookUrl = await checkUrl(body.webhookUrl);
    const now = Date.now();
    const secret = newSecret();
    const m: Monitor = {
      teamId: ctx.teamId,
      monitorId: `mon_${randomBytes(10).toString('hex')}`,
      ...(ctx.keyId ? { keyId: ctx.keyId } : ctx.memberId ? { memberId: ctx.memberId } : {}),
      operation: body.operation,
      params,
      intervalSeconds,
      webhookUrl,
      status: 'active',
      secret: sealSecret(secret),
      createdAt: new Date(now).toISOString(),
      updatedAt: new Date(now).toISOString(),
      nextPollAt: now,
    };
    // The team's count is taken in the same transaction: creates at once never pass the limit.
    if (!(await createMonitor(m, monitorsPerTeam()))) throw new ApiError('BAD_REQUEST', `Your team has ${monitorsPerTeam()} monitors, the most allowed; delete one first`);
    ctx.log.info('monitor created', { monitorId: m.monitorId, operation: m.operation });
    return { status: 201, data: { monitor: { ...publicMonitor(m), secret } } };
  },

  async list(ctx) {
    const monitors = (await listMonitors(ctx.teamId)).sort((a, b) => b.createdAt.localeCompare(a.createdAt)).map(publicMonitor);
    return { data: { monitors } };
  },

  async get(ctx) {
    return { data: { monitor: publicMonitor(await mine(ctx)) } };
  },

  async update(ctx) {
    const m = await mine(ctx);
    const { body } = ctx;
    const changes: Partial<Monitor> = {};
    for (const k of Object.keys(body)) if (!['status', 'intervalSeconds', 'webhookUrl'].includes(k)) throw invalid(k, 'Only status, intervalSeconds and webhookUrl can be changed');
    if (body.intervalSeconds !== undefined) changes.intervalSeconds = checkInterval(body.intervalSeconds);
    if (body.webhookUrl !== undefined) changes.webhookUrl = await checkUrl(body.webhookUrl);
    if (body.status !== undefined) {
      if (body.status === 'paused') Object.assign(changes, { status: 'paused', pausedReason: 'by_request' });
      else if (body.status === 'active') Object.assign(changes, { status: 'active', pausedReason: undefined, failingSince: undefined, nextPollAt: Date.now() });
      else throw invalid('status', 'active or paused');
    }
    const next = await updateMonitor(m.teamId, m.monitorId, changes);
    if (!next) throw notFound(NO_MONITOR);
    // Resumed: what it held while paused is due now (or failed, past its 24 h of retries).
    if (changes.status === 'active') await releaseHeld(m.teamId, m.monitorId, Date.now());
    return { data: { monitor: publicMonitor(next) } };
  },

  async remove(ctx) {
    if (!(await deleteMonitor(ctx.teamId, ctx.params.monitorId ?? ''))) throw notFound(NO_MONITOR);
    return { data: { deleted: true, id: ctx.params.monitorId } };
  },

  async rotateSecret(ctx) {
    const m = await mine(ctx);
    const secret = newSecret();
    // The old secret keeps signing beside the new one for ROTATION_OVERLAP_MS, so receivers can switch meanwhile.
    const next = await updateMonitor(m.teamId, m.monitorId, { secret: sealSecret(secret), previousSecret: m.secret, previousSecretExpiresAt: Date.now() + ROTATION_OVERLAP_MS });
    if (!next) throw notFound(NO_MONITOR);
    ctx.log.info('monitor secret rotated', { monitorId: m.monitorId });
    return { data: { monitor: { ...publicMonitor(next), secret } } };
  },

  async test(ctx) {
    const m = await mine(ctx);
    const now = Date.now();
    // Queued, due now: the delivery worker (the local scheduler) sends it, never this request.
    const d = newDelivery(m, { type: 'monitor.test', data: { monitorId: m.monitorId, operation: m.operation, params: m.params } }, manualEventId(m.monitorId, 'monitor.test', now, ctx.requestId), now, { manual: true });
    manualQueued(await queueManual(m, d, now, false));
    return { status: 202, data: { delivery: publicDelivery(d) } };
  },

  async delivery(ctx) {
    const m = await mine(ctx);
    const d = await getDelivery(m.teamId, m.monitorId, ctx.params.eventId ?? '');
    if (!d) throw notFound(NO_EVENT);
    return { data: { delivery: publicDeliveryWithAttempts(d) } };
  },

  async deliveries(ctx) {
    const m = await mine(ctx);
    return { data: { deliveries: (await listDeliveries(m.teamId, m.monitorId)).map(publicDelivery) } };
  },

  async redeliver(ctx) {
    const m = await mine(ctx);
    const d = await getDelivery(m.teamId, m.monitorId, ctx.params.eventId ?? '');
    if (!d) throw notFound(NO_EVENT);
    // Already waiting for its next attempt: nothing to add.
    if (d.state === 'pending') return { status: 202, data: { delivery: publicDelivery(d) } };
    const now = Date.now();
    // The same event (webhook-id, createdAt, expiry) queued again, due now; 24 h of retries from now.
    manualQueued(await queueManual(m, d, now, true));
    return { status: 202, data: { delivery: publicDelivery({ ...d, state: 'pending', nextAttemptAt: now, held: undefined }) } };
  },
};

const lowerHeaders = (h: APIGatewayProxyEvent['headers'] | null | undefined) => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) if (typeof v === 'string') out[k.toLowerCase()] = v;
  return out;
};

const parseBody = (event: APIGatewayProxyEvent) => jsonObjectBody(event, MAX_BODY_BYTES);

const STATE_CHANGING = new Set(['POST', 'PATCH', 'DELETE']);

export const monitorsHandler = entryPoint('monitors', async (event, { requestId, log, responseCookies }) => {
  await loadSecrets();
  const matched = matchMonitorRoute(event.httpMethod, event.path);
  if (!matched) throw new ApiError('NOT_FOUND', 'No such monitors route');
  const headers = lowerHeaders(event.headers);
  let teamId: string;
  let keyId: string | undefined;
  let memberId: string | undefined;
  if (keyFromHeaders(headers) !== undefined) {
    const key = await authorize(headers);
    if (!key) throw new ApiError('UNAUTHORIZED', GATEWAY_MESSAGES.UNAUTHORIZED);
    ({ teamId, keyId } = key);
  } else {
    ({ teamId, memberId } = await session({ headers, responseCookies, cookiePath: sessionCookiePath(event) }));
    if (STATE_CHANGING.has(event.httpMethod)) requireOwnOrigin(headers, log);
  }
  log.appendKeys({ teamId });
  const body = STATE_CHANGING.has(event.httpMethod) ? parseBody(event) : {};
  const reply = await HANDLERS[matched.route.name]({ teamId, keyId, memberId, requestId, body, params: matched.params, event, log });
  return jsonAnswer(reply.status ?? 200, { data: reply.data }, requestId);
});
