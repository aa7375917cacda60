import { randomBytes } from 'node:crypto';
import { jsonApi, type Handlers, type TeamContext } from '../api/router';
import { ApiError, notFound, type ValidationDetail } from '../http/errors';
import { invalidBody, validateQuery } from '../http/validation';
import { operation, type Operation } from '../operations';
import { config } from '../runtime/config';
import { manualEventId, newDelivery, queueManual, releaseHeld } from './deliver';
import { MONITORABLE_IDS, type MonitorableId, isMonitorable } from '../api/monitor-kinds';
import { MAX_INTERVAL_SECONDS } from '../api/monitor-schema';
import { ROTATION_OVERLAP_MS, newSecret, sealSecret } from '../webhooks/secret';
import { publicDelivery, publicDeliveryWithAttempts, publicMonitor } from './shapes';
import { type Monitor, createMonitor, deleteMonitor, getDelivery, getMonitor, listDeliveries, listMonitors, updateMonitor } from './store';
import { MONITOR_ROUTES } from '../api/monitor-routes';
import { webhookUrlProblem } from '../api/webhook-url';

/**
 * The monitors API (MONITOR_ROUTES), managed as the account API is: with the team's API key
 * (x-api-key or Bearer) or a dashboard session (its cookie's path, <prefix>/v1, covers these
 * routes; state-changing requests then need this site's Origin). Every current member of the team,
 * owner or not, manages every monitor of the team, as every key of the team does (and any member
 * may create a key): a role rule here would protect nothing. Free. Team-scoped: every lookup is by
 * (caller's team, monitorId), so another team's monitor is simply 404. Errors in the spec's shape;
 * a create or update that is wrong in several ways is told every problem at once (at most 20).
 */
const NO_MONITOR = 'Your team has no monitor with this id';
const NO_EVENT = 'This monitor has no event with this id in the last 7 days';

/** queueManual's answer: 0 queued; otherwise 429 with the seconds to wait, or the monitor or event changed meanwhile. */
function manualQueued(wait: number): void {
  if (wait > 0) throw new ApiError('RATE_LIMITED', 'One test or redelivery per monitor every 5 seconds', { retryAfter: wait });
  if (wait < 0) throw notFound('This monitor or event changed meanwhile; try again');
}
const MAX_BODY_BYTES = 16 * 1024;

export { publicDelivery, publicDeliveryWithAttempts, publicMonitor };

type Problems = ValidationDetail[];

/** The monitor's query parameters, each problem added to `problems` (the operation's own rules when it is known). */
function checkParams(operationId: MonitorableId | undefined, raw: unknown, problems: Problems): Record<string, string> {
  if (raw === undefined) raw = {};
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return (problems.push({ path: 'params', message: 'Must be an object of query parameters' }), {});
  const params: Record<string, string> = {};
  const refused = new Set<string>();
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof v !== 'string') problems.push({ path: `params.${k}`, message: 'Must be a string' });
    else if (k === 'cursor' || k === 'cache_max_age') problems.push({ path: `params.${k}`, message: 'A monitor watches the first page; the cache age follows its interval' });
    else params[k] = v;
    if (!(k in params)) refused.add(k);
  }
  if (!operationId) return params;
  const op = operation(operationId) as Operation;
  try {
    validateQuery({ params: op.params, oneOf: op.oneOf }, params);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (!err.details) problems.push({ path: 'params', message: err.message });
    // A parameter refused above is not also "Required" here.
    for (const d of err.details ?? []) if (!refused.has(d.path)) problems.push({ path: `params.${d.path}`, message: d.message });
  }
  return params;
}

function checkInterval(raw: unknown, problems: Problems): number {
  const min = config.monitorMinIntervalSeconds;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < min || raw > MAX_INTERVAL_SECONDS) problems.push({ path: 'intervalSeconds', message: `An integer from ${min} to ${MAX_INTERVAL_SECONDS} (seconds)` });
  return raw as number;
}

async function checkUrl(raw: unknown, problems: Problems): Promise<string> {
  const problem = await webhookUrlProblem(raw);
  if (problem) problems.push({ path: 'webhookUrl', message: problem });
  // Stored as parsed (normalised), not as typed.
  return problem || typeof raw !== 'string' ? '' : new URL(raw.trim()).href;
}

type Ctx = TeamContext;

async function mine(ctx: Ctx): Promise<Monitor> {
  const m = await getMonitor(ctx.teamId, ctx.params.monitorId ?? '');
  if (!m) throw notFound(NO_MONITOR);
  return m;
}

const HANDLERS: Handlers<typeof MONITOR_ROUTES> = {
  async create(ctx) {
    const { body } = ctx;
    const problems: Problems = [];
    const operationId = typeof body.operation === 'string' && isMonitorable(body.operation) ? body.operation : undefined;
    if (!operationId) problems.push({ path: 'operation', message: `One of ${MONITORABLE_IDS.join(', ')}` });
    const params = checkParams(operationId, body.params, problems);
    const intervalSeconds = checkInterval(body.intervalSeconds, problems);
    const webhookUrl = await checkUrl(body.webhookUrl, problems);
    if (problems.length || !operationId) throw invalidBody(problems);
    const most = config.monitorsPerTeam;
    const now = Date.now();
    const secret = newSecret();
    const m: Monitor = {
      teamId: ctx.teamId,
      monitorId: `mon_${randomBytes(10).toString('hex')}`,
      ...(ctx.keyId ? { keyId: ctx.keyId } : ctx.session ? { memberId: ctx.session.memberId } : {}),
      operation: operationId,
      params,
      intervalSeconds,
      webhookUrl,
      status: 'active',
      secret: await sealSecret(secret),
      createdAt: new Date(now).toISOString(),
      updatedAt: new Date(now).toISOString(),
      nextPollAt: now,
    };
    // The team's count is taken in the same transaction: creates at once never pass the limit.
    if (!(await createMonitor(m, most))) throw new ApiError('BAD_REQUEST', `Your team has ${most} monitors, the most allowed; delete one first`);
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
    const problems: Problems = [];
    for (const k of Object.keys(body)) if (!['status', 'intervalSeconds', 'webhookUrl'].includes(k)) problems.push({ path: k, message: 'Only status, intervalSeconds and webhookUrl can be changed' });
    if (body.intervalSeconds !== undefined) changes.intervalSeconds = checkInterval(body.intervalSeconds, problems);
    if (body.webhookUrl !== undefined) changes.webhookUrl = await checkUrl(body.webhookUrl, problems);
    if (body.status !== undefined) {
      if (body.status === 'paused') Object.assign(changes, { status: 'paused', pausedReason: 'by_request' });
      else if (body.status === 'active') Object.assign(changes, { status: 'active', pausedReason: undefined, failingSince: undefined, nextPollAt: Date.now() });
      else problems.push({ path: 'status', message: 'active or paused' });
    }
    if (problems.length) throw invalidBody(problems);
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
    const next = await updateMonitor(m.teamId, m.monitorId, { secret: await sealSecret(secret), previousSecret: m.secret, previousSecretExpiresAt: Date.now() + ROTATION_OVERLAP_MS });
    if (!next) throw notFound(NO_MONITOR);
    ctx.log.info('monitor secret rotated', { monitorId: m.monitorId });
    return { data: { monitor: { ...publicMonitor(next), secret } } };
  },

  /**
   * The caller takes the monitor over: it is bound from now on to the caller's key (or, with a
   * session, to the caller's member), so revoking the key it was created with, or removing the
   * member who created it, no longer pauses it (shared/monitors/owner.ts). Its status is kept: a
   * monitor already paused for key_revoked or member_removed is resumed by PATCH status active.
   */
  async transfer(ctx) {
    const m = await mine(ctx);
    const owner: Partial<Monitor> = ctx.keyId ? { keyId: ctx.keyId, memberId: undefined } : { memberId: ctx.session?.memberId, keyId: undefined };
    const next = await updateMonitor(m.teamId, m.monitorId, owner);
    if (!next) throw notFound(NO_MONITOR);
    ctx.log.info('monitor transferred', { monitorId: m.monitorId, from: m.keyId ?? m.memberId ?? null, to: owner.keyId ?? owner.memberId ?? null });
    return { data: { monitor: publicMonitor(next) } };
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

export const monitorsHandler = jsonApi('monitors', MONITOR_ROUTES, HANDLERS, { notFound: 'No such monitors route', maxBodyBytes: MAX_BODY_BYTES, readOnlyAccounts: true });
