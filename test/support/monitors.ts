import { MONITOR_ROUTES } from '../../shared/api/monitor-routes';
import { newSecret, sealLocalSecret } from '../../shared/webhooks/secret';
import type { Monitor } from '../../shared/monitors/store';

/**
 * A stored monitor as the API would make it (active, due at `at`, a freshly sealed secret), for
 * tests that put one straight into the table; `fields` changes what the test is about.
 */
export function aMonitor(teamId: string, fields: Partial<Monitor> = {}, at = Date.now()): Monitor {
  return {
    teamId,
    monitorId: `mon_${Math.random().toString(16).slice(2, 14)}`,
    operation: 'microblog-a-user-posts',
    params: { handle: 'someone.example' },
    intervalSeconds: 60,
    webhookUrl: 'https://example.com/hook',
    status: 'active',
    secret: sealLocalSecret(newSecret()),
    createdAt: new Date(at).toISOString(),
    updatedAt: new Date(at).toISOString(),
    nextPollAt: at,
    ...fields,
  };
}

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
