import { MONITOR_ROUTES } from '../../shared/api/monitor-routes';

/**
 * Every route of MONITOR_ROUTES that names one monitor, made concrete for monitor `id` (and, for a
 * delivery's route, event `eventId`), with a body where the method takes one: what a test walks to
 * see that another team's monitor is 404 everywhere. From the one table, so a new route is walked too.
 */
export function routesOfOneMonitor(id: string, eventId: string): [method: string, path: string, body?: unknown][] {
  return MONITOR_ROUTES.filter((r) => r.path.includes('{monitorId}')).map((r) => [
    r.method,
    r.path.replace('{monitorId}', id).replace('{eventId}', eventId),
    r.method === 'GET' || r.method === 'DELETE' ? undefined : r.name === 'update' ? { status: 'paused' } : {},
  ]);
}
