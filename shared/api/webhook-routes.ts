import type { RouteDef } from './routes';

/**
 * The team webhook endpoints' routes (docs/webhooks.md), written once, as the monitors API's: the
 * function routes by them (served by the monitors API's function: functions/monitors.ts), the
 * local gateway serves them, the CDK stack adds one API Gateway method per entry in the edge's
 * "monitors" route group, and the OpenAPI document, client, CLI and dashboard follow them. Every
 * route answers the team's API key or a dashboard session (`caller: 'either'`).
 */
export const WEBHOOK_ROUTES = [
  // Before the {endpointId} routes: `settings` is no endpoint's id (those are ep_…).
  { method: 'GET', path: '/v1/webhooks/settings', name: 'settings', caller: 'either' },
  { method: 'PATCH', path: '/v1/webhooks/settings', name: 'updateSettings', caller: 'either' },
  { method: 'POST', path: '/v1/webhooks', name: 'create', caller: 'either' },
  { method: 'GET', path: '/v1/webhooks', name: 'list', caller: 'either' },
  { method: 'GET', path: '/v1/webhooks/{endpointId}', name: 'get', caller: 'either' },
  { method: 'PATCH', path: '/v1/webhooks/{endpointId}', name: 'update', caller: 'either' },
  { method: 'DELETE', path: '/v1/webhooks/{endpointId}', name: 'remove', caller: 'either' },
  { method: 'POST', path: '/v1/webhooks/{endpointId}/rotate-secret', name: 'rotateSecret', caller: 'either' },
  { method: 'POST', path: '/v1/webhooks/{endpointId}/test', name: 'test', caller: 'either' },
  { method: 'GET', path: '/v1/webhooks/{endpointId}/deliveries', name: 'deliveries', caller: 'either' },
  { method: 'GET', path: '/v1/webhooks/{endpointId}/deliveries/{eventId}', name: 'delivery', caller: 'either' },
  { method: 'POST', path: '/v1/webhooks/{endpointId}/deliveries/{eventId}/redeliver', name: 'redeliver', caller: 'either' },
] as const satisfies readonly RouteDef[];
export type WebhookRouteName = (typeof WEBHOOK_ROUTES)[number]['name'];
export const WEBHOOKS_PATH = '/v1/webhooks';
export const isWebhooksPath = (path: string) => /\/v1\/webhooks(\/|$)/.test(path);
