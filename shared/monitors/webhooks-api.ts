import { randomBytes } from 'node:crypto';
import { jsonApi, type Handlers, type TeamContext } from '../api/router';
import { WEBHOOK_ROUTES } from '../api/webhook-routes';
import { ApiError, notFound, type ValidationDetail } from '../http/errors';
import { invalidBody } from '../http/validation';
import { queueManualBy, releaseHeld } from './deliver';
import { ROTATION_OVERLAP_MS, newSecret, sealSecret } from '../webhooks/secret';
import { publicDelivery, publicDeliveryWithAttempts } from './shapes';
import { type Delivery, getDelivery, listDeliveries } from './store';
import { webhookUrlProblem } from '../api/webhook-url';
import { teamEventBody, teamEventId } from '../webhooks/events';
import { CreateEndpointBody, MAX_ENDPOINTS_PER_TEAM, SettingsBody, UpdateEndpointBody, parseBody } from '../webhooks/schema';
import { creditSettings, watchCredits } from '../webhooks/credits';
import { publicEndpoint } from '../webhooks/shapes';
import { ENDPOINT_ID_PREFIX, type Endpoint, createEndpoint, deleteEndpoint, endpointUpdate, getEndpoint, listEndpoints, updateEndpoint } from '../webhooks/store';

/**
 * The team webhook endpoints' API (WEBHOOK_ROUTES, docs/webhooks.md), served by the monitors API's
 * function (functions/monitors.ts) over the same engine: managed as monitors are, with
 * the team's API key or a dashboard session (state changes on a session need this site's Origin:
 * shared/api/router.ts). Team-scoped: every lookup is by (caller's team, endpointId), so another
 * team's endpoint is 404. Bodies are checked by their valibot schemas (./schema.ts), every problem
 * at once (422); the URL then by the webhook URL rule (public https after name resolution). Free.
 * The deliveries are the engine's (shared/monitors/deliver.ts): the same claim, attempt log, retry
 * schedule, signer and rotation as a monitor's.
 */
const NO_ENDPOINT = 'Your team has no webhook endpoint with this id';
const NO_EVENT = 'This endpoint has no event with this id in the last 7 days';
const MAX_BODY_BYTES = 8 * 1024;
const DELIVERIES_SHOWN = 100;

type Ctx = TeamContext;

function checked<T>(res: { output: T } | { problems: ValidationDetail[] }, more: ValidationDetail[] = []): T {
  const problems = [...('problems' in res ? res.problems : []), ...more];
  if (problems.length) throw invalidBody(problems);
  return (res as { output: T }).output;
}

/** The URL as parsed (normalised), or its problem added. */
async function checkUrl(raw: string, problems: ValidationDetail[]): Promise<string> {
  const problem = await webhookUrlProblem(raw);
  if (problem) problems.push({ path: 'url', message: problem });
  return problem ? '' : new URL(raw.trim()).href;
}

async function mine(ctx: Ctx): Promise<Endpoint> {
  const e = await getEndpoint(ctx.teamId, ctx.params.endpointId ?? '');
  if (!e) throw notFound(NO_ENDPOINT);
  return e;
}

function manualQueued(wait: number): void {
  if (wait > 0) throw new ApiError('RATE_LIMITED', 'One test or redelivery per endpoint every 5 seconds', { retryAfter: wait });
  if (wait < 0) throw notFound('This endpoint or event changed meanwhile; try again');
}

/** The endpoint's manualAt taken in the same transaction as the delivery: at most one manual delivery per 5 s. */
const queueFor = (e: Endpoint, d: Delivery, now: number, again: boolean) =>
  queueManualBy({ Update: endpointUpdate(e.teamId, e.endpointId, { manualAt: now }) }, async () => (await getEndpoint(e.teamId, e.endpointId))?.manualAt ?? null, d, now, again);

/** The endpoint's deliveries of the last 7 days, newest first (event ids are derived, not time-ordered: sorted here). */
async function recentDeliveries(e: Endpoint): Promise<Delivery[]> {
  return (await listDeliveries(e.teamId, e.endpointId, 1000)).sort((a, b) => b.createdAt - a.createdAt).slice(0, DELIVERIES_SHOWN);
}

const HANDLERS: Handlers<typeof WEBHOOK_ROUTES> = {
  async settings(ctx) {
    return { data: { settings: await creditSettings(ctx.teamId) } };
  },

  async updateSettings(ctx) {
    const body = checked(parseBody(SettingsBody, ctx.body));
    await watchCredits(ctx.teamId, body.creditsLowThreshold);
    return { data: { settings: await creditSettings(ctx.teamId) } };
  },

  async create(ctx) {
    const problems: ValidationDetail[] = [];
    const parsed = parseBody(CreateEndpointBody, ctx.body);
    const url = 'output' in parsed ? await checkUrl(parsed.output.url, problems) : '';
    const body = checked(parsed, problems);
    const now = new Date().toISOString();
    const secret = newSecret();
    const e: Endpoint = {
      teamId: ctx.teamId,
      endpointId: `${ENDPOINT_ID_PREFIX}${randomBytes(10).toString('hex')}`,
      url,
      types: [...new Set(body.types)],
      ...(body.description ? { description: body.description } : {}),
      status: 'active',
      secret: await sealSecret(secret),
      createdAt: now,
      updatedAt: now,
      ...(ctx.keyId ? { keyId: ctx.keyId } : ctx.session ? { memberId: ctx.session.memberId } : {}),
    };
    // The team's balance watched from now on when the endpoint wants a credits event (./credits.ts).
    if (e.types.some((t) => t.startsWith('credits.'))) await watchCredits(ctx.teamId);
    if (!(await createEndpoint(e, MAX_ENDPOINTS_PER_TEAM))) throw new ApiError('BAD_REQUEST', `Your team has ${MAX_ENDPOINTS_PER_TEAM} webhook endpoints, the most allowed; delete one first`);
    ctx.log.info('webhook endpoint created', { endpointId: e.endpointId, types: e.types });
    return { status: 201, data: { endpoint: { ...publicEndpoint(e), secret } } };
  },

  async list(ctx) {
    const endpoints = (await listEndpoints(ctx.teamId)).sort((a, b) => b.createdAt.localeCompare(a.createdAt)).map(publicEndpoint);
    return { data: { endpoints } };
  },

  async get(ctx) {
    return { data: { endpoint: publicEndpoint(await mine(ctx)) } };
  },

  async update(ctx) {
    const e = await mine(ctx);
    const problems: ValidationDetail[] = [];
    const parsed = parseBody(UpdateEndpointBody, ctx.body);
    const url = 'output' in parsed && parsed.output.url !== undefined ? await checkUrl(parsed.output.url, problems) : undefined;
    const body = checked(parsed, problems);
    const changes: Partial<Endpoint> = {
      ...(url !== undefined ? { url } : {}),
      ...(body.types ? { types: [...new Set(body.types)] } : {}),
      ...(body.description !== undefined ? { description: body.description || undefined } : {}),
      ...(body.status ? { status: body.status } : {}),
    };
    if (!Object.keys(changes).length) return { data: { endpoint: publicEndpoint(e) } };
    if (changes.types?.some((t) => t.startsWith('credits.'))) await watchCredits(ctx.teamId);
    const next = await updateEndpoint(e.teamId, e.endpointId, changes);
    if (!next) throw notFound(NO_ENDPOINT);
    // Enabled again: what it held meanwhile is due now (or failed, past its 24 h of retries).
    if (changes.status === 'active' && e.status === 'disabled') await releaseHeld(e.teamId, e.endpointId, Date.now());
    return { data: { endpoint: publicEndpoint(next) } };
  },

  async remove(ctx) {
    if (!(await deleteEndpoint(ctx.teamId, ctx.params.endpointId ?? ''))) throw notFound(NO_ENDPOINT);
    return { data: { deleted: true, id: ctx.params.endpointId } };
  },

  async rotateSecret(ctx) {
    const e = await mine(ctx);
    const secret = newSecret();
    // As a monitor's: the old secret keeps signing beside the new one for ROTATION_OVERLAP_MS.
    const next = await updateEndpoint(e.teamId, e.endpointId, { secret: await sealSecret(secret), previousSecret: e.secret, previousSecretExpiresAt: Date.now() + ROTATION_OVERLAP_MS });
    if (!next) throw notFound(NO_ENDPOINT);
    ctx.log.info('webhook endpoint secret rotated', { endpointId: e.endpointId });
    return { data: { endpoint: { ...publicEndpoint(next), secret } } };
  },

  async test(ctx) {
    const e = await mine(ctx);
    const now = Date.now();
    const eventId = teamEventId(e.teamId, 'webhook.test', `${e.endpointId}\n${ctx.requestId}`);
    const d: Delivery = {
      teamId: e.teamId,
      monitorId: e.endpointId,
      eventId,
      type: 'webhook.test',
      body: teamEventBody('webhook.test', now, { teamId: e.teamId, endpointId: e.endpointId }),
      timestamp: now,
      createdAt: now,
      attempts: 0,
      nextAttemptAt: now,
      state: 'pending',
      manual: true,
    };
    // Queued, due now: the delivery worker sends it, never this request.
    manualQueued(await queueFor(e, d, now, false));
    return { status: 202, data: { delivery: publicDelivery(d) } };
  },

  async deliveries(ctx) {
    const e = await mine(ctx);
    return { data: { deliveries: (await recentDeliveries(e)).map(publicDelivery) } };
  },

  async delivery(ctx) {
    const e = await mine(ctx);
    const d = await getDelivery(e.teamId, e.endpointId, ctx.params.eventId ?? '');
    if (!d) throw notFound(NO_EVENT);
    return { data: { delivery: publicDeliveryWithAttempts(d) } };
  },

  async redeliver(ctx) {
    const e = await mine(ctx);
    const d = await getDelivery(e.teamId, e.endpointId, ctx.params.eventId ?? '');
    if (!d) throw notFound(NO_EVENT);
    if (d.state === 'pending') return { status: 202, data: { delivery: publicDelivery(d) } };
    const now = Date.now();
    manualQueued(await queueFor(e, d, now, true));
    return { status: 202, data: { delivery: publicDelivery({ ...d, state: 'pending', nextAttemptAt: now, held: undefined }) } };
  },
};

export const webhooksHandler = jsonApi('webhooks', WEBHOOK_ROUTES, HANDLERS, { notFound: 'No such webhooks route', maxBodyBytes: MAX_BODY_BYTES });
