/**
 * Team webhook endpoints in the OpenAPI document (docs/webhooks.md), merged in by scripts/openapi.ts:
 * - `webhooks`: one entry per type of the event catalogue (shared/webhooks/catalogue.ts), its `data`
 *   from the catalogue's own valibot schema, with the Standard Webhooks headers;
 * - `paths`: one operation per route of WEBHOOK_ROUTES, the request bodies from the valibot schemas the
 *   API checks them with (shared/webhooks/schema.ts), the answers typed by publicEndpoint / publicDelivery.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { WEBHOOK_ROUTES } from '../shared/api/webhook-routes';
import { ALL_EVENT_TYPES, CATALOGUE } from '../shared/webhooks/catalogue';
import { CreateEndpointBody, SettingsBody, UpdateEndpointBody } from '../shared/webhooks/schema';
import type { publicEndpoint } from '../shared/webhooks/shapes';
import { deliveryProperties } from './openapi-monitors';
import { type RouteSpec, routeOperation } from './openapi-routes';

type Json = Record<string, unknown>;

const schemaOf = (s: v.GenericSchema): Json => {
  const out = toJsonSchema(s, { target: 'draft-2020-12', errorMode: 'ignore' }) as Json;
  delete out.$schema;
  return out;
};

const headers = {
  'webhook-id': { description: 'The event id (`evt_…`), the same on every retry and for every endpoint: de-duplicate on it', schema: { type: 'string' }, required: true },
  'webhook-timestamp': { description: 'This attempt, in seconds since the epoch', schema: { type: 'string' }, required: true },
  'webhook-signature': { description: '`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the base64-decoded secret after `whsec_`; during a rotation\'s 24 h, two signatures separated by a space', schema: { type: 'string' }, required: true },
};

/** Every catalogue entry as an OpenAPI webhook (`x-provided-by`: which part of the service sends it). */
export function teamWebhooks(): Json {
  return Object.fromEntries(
    CATALOGUE.map((e) => [
      e.type,
      {
        post: {
          summary: e.description,
          tags: ['webhooks'],
          'x-provided-by': e.providedBy,
          'x-scope': e.scope,
          parameters: Object.entries(headers).map(([name, h]) => ({ name, in: 'header', ...h })),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { type: 'object', required: ['type', 'timestamp', 'data'], properties: { type: { const: e.type }, timestamp: { type: 'string', format: 'date-time' }, data: schemaOf(e.data) } } } },
          },
          responses: { '2XX': { description: 'Received (any other answer, or none within 10 s, is retried on the schedule of docs/webhooks.md for up to 24 h)' } },
        },
      },
    ]),
  );
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const obj = (properties: Json, required = Object.keys(properties)): Json => ({ type: 'object', required, properties });
const dateTime = { type: 'string', format: 'date-time' };

const endpointProperties: Record<keyof ReturnType<typeof publicEndpoint>, Json> = {
  id: { type: 'string', description: 'The endpoint id (`ep_…`)' },
  url: { type: 'string', format: 'uri' },
  types: { type: 'array', items: { type: 'string', enum: ALL_EVENT_TYPES } },
  description: { type: ['string', 'null'] },
  status: { type: 'string', enum: ['active', 'disabled'], description: 'disabled: deliveries are held until it is active again' },
  createdAt: dateTime,
  updatedAt: dateTime,
  previousSecretExpiresAt: { type: ['string', 'null'], format: 'date-time', description: 'After a rotation: until when the previous secret still signs (a second signature); null otherwise' },
};

export const webhookSchemas: Json = {
  WebhookEndpoint: obj(endpointProperties),
  WebhookEndpointWithSecret: {
    allOf: [ref('WebhookEndpoint'), obj({ secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$', description: 'The signing secret (Standard Webhooks form), shown in this answer only' } })],
  },
  WebhookDelivery: obj({ ...deliveryProperties, type: { type: 'string', enum: ALL_EVENT_TYPES } }),
  WebhookDeliveryWithAttempts: {
    allOf: [
      ref('WebhookDelivery'),
      obj({ recentAttempts: { type: 'array', description: 'The last 20 attempts, oldest first', items: obj({ at: dateTime, status: { type: ['integer', 'null'] }, latencyMs: { type: 'integer' }, error: { type: ['string', 'null'] } }) } }),
    ],
  },
  WebhookSettings: obj({
    creditsLowThreshold: { type: ['integer', 'null'], minimum: 1, description: 'credits.low is sent when the balance falls below this; null: never' },
    creditAlert: { type: ['string', 'null'], enum: ['low', 'exhausted', null], description: 'What was last announced of the balance; null once it is back at or above the threshold' },
  }),
};

type RouteName = (typeof WEBHOOK_ROUTES)[number]['name'];
const endpoint = obj({ endpoint: ref('WebhookEndpoint') });
const withSecret = obj({ endpoint: ref('WebhookEndpointWithSecret') });
const delivery = obj({ delivery: ref('WebhookDelivery') });
const settings = obj({ settings: ref('WebhookSettings') });
const ALWAYS = [400, 401, 429, 503];

const SPECS: Record<RouteName, RouteSpec> = {
  settings: { summary: "The team's credits.low threshold and what was last announced of its balance", ok: [200, settings, 'The settings'], errors: ALWAYS },
  updateSettings: { summary: 'Set (or clear with null) the balance under which credits.low is sent, once per crossing', body: schemaOf(SettingsBody), ok: [200, settings, 'The settings as changed'], errors: [...ALWAYS, 422] },
  create: { summary: 'Create a webhook endpoint for the event types it wants; its signing secret is in this answer only', body: schemaOf(CreateEndpointBody), ok: [201, withSecret, 'The new endpoint, with its signing secret'], errors: [...ALWAYS, 422] },
  list: { summary: "The team's webhook endpoints, newest first", ok: [200, obj({ endpoints: { type: 'array', items: ref('WebhookEndpoint') } }), 'The endpoints'], errors: ALWAYS },
  get: { summary: 'One webhook endpoint of the team', ok: [200, endpoint, 'The endpoint'], errors: [...ALWAYS, 404] },
  update: { summary: 'Change its URL, event types or description, or disable / enable it (held deliveries are sent when enabled)', body: schemaOf(UpdateEndpointBody), ok: [200, endpoint, 'The endpoint as changed'], errors: [...ALWAYS, 404, 422] },
  remove: { summary: 'Delete a webhook endpoint: its pending deliveries fail', ok: [200, obj({ deleted: { const: true }, id: { type: 'string' } }), 'Deleted'], errors: [...ALWAYS, 404] },
  rotateSecret: { summary: 'A new signing secret, in this answer only; for 24 h the old one signs too (a second signature)', ok: [200, withSecret, 'The endpoint, with its new secret'], errors: [...ALWAYS, 404] },
  test: { summary: 'Queue a webhook.test event to this endpoint, due now; one test or redelivery per endpoint every 5 s', ok: [202, delivery, 'The event, pending'], errors: [...ALWAYS, 404] },
  deliveries: { summary: "The endpoint's events of the last 7 days and their delivery, newest first (at most 100)", ok: [200, obj({ deliveries: { type: 'array', items: ref('WebhookDelivery') } }), 'The deliveries'], errors: [...ALWAYS, 404] },
  delivery: { summary: 'One event of the last 7 days, with its recent attempts (time, status, latency, error)', ok: [200, obj({ delivery: ref('WebhookDeliveryWithAttempts') }), 'The delivery'], errors: [...ALWAYS, 404] },
  redeliver: { summary: 'Queue an event of the last 7 days again, due now (the same webhook-id); one test or redelivery per endpoint every 5 s', ok: [202, delivery, 'The event, pending'], errors: [...ALWAYS, 404] },
};

const ERROR_TEXT: Record<number, string> = {
  400: "A body that is not a JSON object, the team's endpoint limit (20) reached, or a state-changing request on a dashboard session without this site's Origin (BAD_REQUEST)",
  401: 'No API key or session, or an unknown or revoked key, or an ended session (UNAUTHORIZED)',
  404: "The team has no such endpoint, or the endpoint no such event in the last 7 days: another team's endpoint is 404 too (NOT_FOUND)",
  422: 'Invalid body (VALIDATION_ERROR, with details: url, types.<i>, description, status, creditsLowThreshold, or an unknown field)',
  429: "Over the API's request rate, or a second test or redelivery of the endpoint within 5 s (RATE_LIMITED, with Retry-After)",
  503: 'The service is at capacity (SERVICE_UNAVAILABLE)',
};

const camelName = (name: string) => `webhooks${name.charAt(0).toUpperCase()}${name.slice(1)}`;

export function webhookPaths(): Json {
  const paths: Record<string, Json> = {};
  for (const route of WEBHOOK_ROUTES) {
    (paths[route.path] ??= {})[route.method.toLowerCase()] = routeOperation(route, SPECS[route.name], ERROR_TEXT, {
      operationId: camelName(route.name),
      description: "Free. Team-scoped: another team's endpoint is 404. With a dashboard session, a state-changing request must also carry this site's Origin.",
      tags: ['webhooks'],
    });
  }
  return paths;
}
