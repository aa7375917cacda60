/**
 * The monitors API's routes, written once: the function routes by them, the local gateway serves
 * them, the CDK stack adds one API Gateway method per entry in the edge's "monitors" route group
 * (infra/edge.ts), and the OpenAPI document, client and dashboard follow them.
 */
export const MONITOR_ROUTES = [
  { method: 'POST', path: '/v1/monitors', name: 'create' },
  { method: 'GET', path: '/v1/monitors', name: 'list' },
  { method: 'GET', path: '/v1/monitors/{monitorId}', name: 'get' },
  { method: 'PATCH', path: '/v1/monitors/{monitorId}', name: 'update' },
  { method: 'DELETE', path: '/v1/monitors/{monitorId}', name: 'remove' },
  { method: 'POST', path: '/v1/monitors/{monitorId}/rotate-secret', name: 'rotateSecret' },
  { method: 'POST', path: '/v1/monitors/{monitorId}/test', name: 'test' },
  { method: 'GET', path: '/v1/monitors/{monitorId}/deliveries', name: 'deliveries' },
  { method: 'GET', path: '/v1/monitors/{monitorId}/deliveries/{eventId}', name: 'delivery' },
  { method: 'POST', path: '/v1/monitors/{monitorId}/deliveries/{eventId}/redeliver', name: 'redeliver' },
] as const;
export type MonitorRouteName = (typeof MONITOR_ROUTES)[number]['name'];

const COMPILED = MONITOR_ROUTES.map((r) => ({ route: r, re: new RegExp(`${r.path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`) }));
export function matchMonitorRoute(method: string, path: string) {
  for (const { route, re } of COMPILED) {
    if (route.method !== method) continue;
    const m = re.exec(path);
    if (m) return { route, params: { ...(m.groups ?? {}) } };
  }
  return null;
}
