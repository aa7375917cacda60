import type { RouteDef } from './routes';

/**
 * The monitors API's routes, written once: the function routes by them, the local gateway serves
 * them, the CDK stack adds one API Gateway method per entry in the edge's "monitors" route group
 * (infra/edge.ts), and the OpenAPI document, client and dashboard follow them. Every route answers the
 * team's API key or a dashboard session (`caller: 'either'`, shared/api/router.ts).
 */
export const MONITOR_ROUTES = [
  { method: 'POST', path: '/v1/monitors', name: 'create', caller: 'either' },
  { method: 'GET', path: '/v1/monitors', name: 'list', caller: 'either' },
  { method: 'GET', path: '/v1/monitors/{monitorId}', name: 'get', caller: 'either' },
  { method: 'PATCH', path: '/v1/monitors/{monitorId}', name: 'update', caller: 'either' },
  { method: 'DELETE', path: '/v1/monitors/{monitorId}', name: 'remove', caller: 'either' },
  { method: 'POST', path: '/v1/monitors/{monitorId}/rotate-secret', name: 'rotateSecret', caller: 'either' },
  { method: 'POST', path: '/v1/monitors/{monitorId}/transfer', name: 'transfer', caller: 'either' },
  { method: 'POST', path: '/v1/monitors/{monitorId}/test', name: 'test', caller: 'either' },
  { method: 'GET', path: '/v1/monitors/{monitorId}/deliveries', name: 'deliveries', caller: 'either' },
  { method: 'GET', path: '/v1/monitors/{monitorId}/deliveries/{eventId}', name: 'delivery', caller: 'either' },
  { method: 'POST', path: '/v1/monitors/{monitorId}/deliveries/{eventId}/redeliver', name: 'redeliver', caller: 'either' },
] as const satisfies readonly RouteDef[];
export type MonitorRouteName = (typeof MONITOR_ROUTES)[number]['name'];
