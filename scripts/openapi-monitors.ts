/**
 * Monitors in the OpenAPI document (docs/monitors.md), merged in by scripts/openapi.ts:
 * - `webhooks`: the body of every event a monitor sends, with the Standard Webhooks headers;
 * - `paths`: one operation per route of MONITOR_ROUTES (shared/monitors/api.ts), with the request
 *   bodies the API checks and the shapes publicMonitor / publicDelivery answer (the components'
 *   property lists are typed by those functions, so a field cannot be added to one and not the
 *   other). test/monitors/openapi.test.ts checks real answers of the local API against them.
 */
import { EVENT_TYPES } from '../shared/monitors/events';
import { MAX_INTERVAL_SECONDS, MONITOR_FIELDS, MONITOR_REQUIRED } from '../shared/api/monitor-schema';
import type { publicDelivery, publicMonitor } from '../shared/monitors/shapes';
import { MONITOR_ROUTES } from '../shared/api/monitor-routes';
import type { Delivery, Monitor } from '../shared/monitors/store';
import { type RouteSpec, routeOperation } from './openapi-routes';

type Json = Record<string, unknown>;

const about = {
  monitorId: { type: 'string' },
  operation: { type: 'string', description: 'The monitored operation' },
  params: { type: 'object', additionalProperties: { type: 'string' }, description: 'Its query parameters' },
};
const headers = {
  'webhook-id': { description: 'The event id; the same on every retry: de-duplicate on it', schema: { type: 'string' }, required: true },
  'webhook-timestamp': { description: 'This attempt, in seconds since the epoch', schema: { type: 'string' }, required: true },
  'webhook-signature': { description: '`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the base64-decoded secret after `whsec_`', schema: { type: 'string' }, required: true },
};

const EVENTS: Record<string, { summary: string; data: Json; required?: string[] }> = {
  'monitor.ready': { summary: 'The first poll set the baseline', data: {} },
  'monitor.test': { summary: 'Sent on request (POST /v1/monitors/{id}/test)', data: {} },
  'monitor.paused': { summary: 'The monitor stopped: no credit, the watched thing gone, or deliveries failing for 3 days', data: { reason: { enum: ['no_credits', 'not_found', 'deliveries_failing'] } }, required: ['reason'] },
  'items.new': { summary: 'New items (posts, notes, replies, comments, videos, followed accounts) as the operation returns them; a batch over 256 KB is split', data: { items: { type: 'array', items: { type: 'object' }, minItems: 1 } }, required: ['items'] },
  'live.started': { summary: 'The user went live', data: { isLive: { const: true }, user: { type: 'object' }, live: { type: ['object', 'null'] }, lastLive: { type: ['object', 'null'] } }, required: ['isLive', 'live'] },
  'live.ended': { summary: 'The live ended', data: { isLive: { const: false }, user: { type: 'object' }, live: { type: ['object', 'null'] }, lastLive: { type: ['object', 'null'] } }, required: ['isLive'] },
  'bulletin.new': { summary: "Another day's bulletin", data: { bulletin: { type: 'object' } }, required: ['bulletin'] },
};

export function monitorWebhooks(): Json {
  return Object.fromEntries(
    Object.entries(EVENTS).map(([type, e]) => [
      type,
      {
        post: {
          summary: e.summary,
          parameters: Object.entries(headers).map(([name, h]) => ({ name, in: 'header', ...h })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['type', 'timestamp', 'data'],
                  properties: {
                    type: { const: type },
                    timestamp: { type: 'string', format: 'date-time' },
                    data: { type: 'object', required: ['monitorId', 'operation', 'params', ...(e.required ?? [])], properties: { ...about, ...e.data } },
                  },
                },
              },
            },
          },
          responses: { '2XX': { description: 'Received (any other answer, or none within 10 s, is retried for up to 24 h)' } },
        },
      },
    ]),
  );
}

// ---- the /v1/monitors routes ----

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const obj = (properties: Json, required = Object.keys(properties)): Json => ({ type: 'object', required, properties });
const dateTime = { type: 'string', format: 'date-time' };
const nullable = (type: string, more: Json = {}) => ({ type: [type, 'null'], ...more });

const PAUSED_REASONS: NonNullable<Monitor['pausedReason']>[] = ['by_request', 'no_credits', 'not_found', 'deliveries_failing', 'key_revoked', 'member_removed'];
const DELIVERY_STATES: Delivery['state'][] = ['pending', 'delivered', 'failed'];

const monitorProperties: Record<keyof ReturnType<typeof publicMonitor>, Json> = {
  id: { type: 'string', description: 'The monitor id (`mon_…`)' },
  operation: MONITOR_FIELDS.operation,
  params: MONITOR_FIELDS.params,
  // As set: at least 60 deployed; a local run's MONITOR_MIN_INTERVAL_SECONDS may have allowed less.
  intervalSeconds: { type: 'integer', minimum: 1, maximum: MAX_INTERVAL_SECONDS },
  webhookUrl: { type: 'string', format: 'uri' },
  status: MONITOR_FIELDS.status,
  pausedReason: { type: ['string', 'null'], enum: [...PAUSED_REASONS, null], description: 'Why it is paused (by_request: PATCH status paused); null when active' },
  createdAt: dateTime,
  updatedAt: dateTime,
  nextPollAt: nullable('string', { format: 'date-time', description: 'null while paused' }),
  lastPollAt: nullable('string', { format: 'date-time' }),
  lastPollStatus: nullable('integer', { description: "The HTTP status of the last poll's answer" }),
  previousSecretExpiresAt: nullable('string', { format: 'date-time', description: 'After a rotation: until when the previous secret still signs (a second signature); null otherwise' }),
};

export const deliveryProperties: Record<keyof ReturnType<typeof publicDelivery>, Json> = {
  eventId: { type: 'string', description: 'The `webhook-id` of every attempt' },
  type: { type: 'string', enum: [...EVENT_TYPES] },
  createdAt: dateTime,
  state: { type: 'string', enum: DELIVERY_STATES, description: 'pending: an attempt is due (or under way); delivered: a 2xx answer; failed: retries ended' },
  attempts: { type: 'integer', minimum: 0 },
  lastStatus: nullable('integer', { description: "The receiver's last HTTP status; null before an attempt or without an answer" }),
  lastError: nullable('string', { description: 'Why the last attempt failed, without an answer (timeout, refused address, …)' }),
  latencyMs: nullable('integer', { description: 'How long the last attempt took' }),
  nextRetryAt: nullable('string', { format: 'date-time', description: 'When a pending delivery is tried next (null while held)' }),
  held: { type: 'boolean', description: 'Held while its monitor is paused; sent when it is resumed (within 24 h of retries)' },
};

export const monitorSchemas: Json = {
  Monitor: obj(monitorProperties),
  MonitorWithSecret: {
    allOf: [
      ref('Monitor'),
      obj({ secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$', description: 'The signing secret (Standard Webhooks form), shown in this answer only: keep it to verify `webhook-signature`' } }),
    ],
  },
  MonitorDelivery: obj(deliveryProperties),
  MonitorDeliveryWithAttempts: {
    allOf: [
      ref('MonitorDelivery'),
      obj({
        recentAttempts: {
          type: 'array',
          description: 'The last 20 attempts, oldest first',
          items: obj({ at: dateTime, status: nullable('integer'), latencyMs: { type: 'integer' }, error: nullable('string') }),
        },
      }),
    ],
  },
};

type RouteName = (typeof MONITOR_ROUTES)[number]['name'];
const pick = (...names: (keyof typeof MONITOR_FIELDS)[]): Json => Object.fromEntries(names.map((n) => [n, MONITOR_FIELDS[n]]));

const monitor = obj({ monitor: ref('Monitor') });
const withSecret = obj({ monitor: ref('MonitorWithSecret') });
const delivery = obj({ delivery: ref('MonitorDelivery') });
/** Every route: no or a bad key or session, a state change without this site's Origin or a body that is not a JSON object, the stage's throttle, capacity. */
const ALWAYS = [400, 401, 429, 503];

const SPECS: Record<RouteName, RouteSpec> = {
  create: {
    summary: 'Create a monitor: it polls the operation every interval and POSTs what changed to the webhook URL; its signing secret is in this answer only',
    body: obj(pick('operation', 'params', 'intervalSeconds', 'webhookUrl'), [...MONITOR_REQUIRED]),
    ok: [201, withSecret, 'The new monitor, with its signing secret'],
    errors: [...ALWAYS, 422],
  },
  list: { summary: "The team's monitors, newest first", ok: [200, obj({ monitors: { type: 'array', items: ref('Monitor') } }), 'The monitors'], errors: ALWAYS },
  get: { summary: 'One monitor of the team', ok: [200, monitor, 'The monitor'], errors: [...ALWAYS, 404] },
  update: {
    summary: 'Pause or resume a monitor, or change its interval or webhook URL (a resumed monitor polls at once)',
    body: { ...obj(pick('status', 'intervalSeconds', 'webhookUrl'), []), additionalProperties: false },
    ok: [200, monitor, 'The monitor as changed'],
    errors: [...ALWAYS, 404, 422],
  },
  remove: { summary: 'Delete a monitor: no further polls or deliveries', ok: [200, obj({ deleted: { const: true }, id: { type: 'string' } }), 'Deleted'], errors: [...ALWAYS, 404] },
  rotateSecret: { summary: 'A new signing secret, in this answer only; for 24 h the old one signs too (a second signature), until previousSecretExpiresAt', ok: [200, withSecret, 'The monitor, with its new secret'], errors: [...ALWAYS, 404] },
  transfer: {
    summary:
      "Take a monitor over: it is bound from now on to the calling key (or the signed-in member), so revoking the key it was created with or removing the member who created it no longer pauses it; its status is kept (resume one paused for key_revoked or member_removed with PATCH status active)",
    ok: [200, monitor, 'The monitor, bound to the caller'],
    errors: [...ALWAYS, 404],
  },
  test: { summary: 'Queue a monitor.test event, due now (sent by the delivery worker, retried like any event); one test or redelivery per monitor every 5 s', ok: [202, delivery, 'The event, pending'], errors: [...ALWAYS, 404] },
  deliveries: {
    summary: "The monitor's events of the last 7 days and their delivery, newest first",
    ok: [200, obj({ deliveries: { type: 'array', items: ref('MonitorDelivery') } }), 'The deliveries'],
    errors: [...ALWAYS, 404],
  },
  delivery: { summary: 'One event of the last 7 days, with its recent attempts (time, status, latency, error)', ok: [200, obj({ delivery: ref('MonitorDeliveryWithAttempts') }), 'The delivery'], errors: [...ALWAYS, 404] },
  redeliver: { summary: 'Queue an event of the last 7 days again, due now (the same webhook-id and createdAt); one test or redelivery per monitor every 5 s', ok: [202, delivery, 'The event, pending'], errors: [...ALWAYS, 404] },
};

const ERROR_TEXT: Record<number, string> = {
  400: "A body that is not a JSON object, the team's monitor limit (MONITORS_PER_TEAM) reached, or a state-changing request on a dashboard session without this site's Origin (BAD_REQUEST)",
  401: 'No API key or session, or an unknown or revoked key, or an ended session (UNAUTHORIZED)',
  404: 'The team has no such monitor, or the monitor no such event in the last 7 days: another team\'s monitor is 404 too (NOT_FOUND)',
  422: 'Invalid body (VALIDATION_ERROR, with details: operation, params.<name>, intervalSeconds, webhookUrl, status)',
  429: 'Over the API\'s request rate, or a second test or redelivery of the monitor within 5 s (RATE_LIMITED, with Retry-After)',
  503: 'The service is at capacity (SERVICE_UNAVAILABLE)',
};

const camelName = (name: string) => `monitors${name.charAt(0).toUpperCase()}${name.slice(1)}`;

/** One operation per route of MONITOR_ROUTES; the API key (x-api-key or Bearer) or the dashboard session. */
export function monitorPaths(): Json {
  const paths: Record<string, Json> = {};
  for (const route of MONITOR_ROUTES) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = routeOperation(route, SPECS[route.name], ERROR_TEXT, {
      operationId: camelName(route.name),
      description: "Free. Team-scoped: another team's monitor is 404. With a dashboard session, a state-changing request must also carry this site's Origin.",
      tags: ['monitors'],
    });
  }
  return paths;
}
