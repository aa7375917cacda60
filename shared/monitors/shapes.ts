import type { Monitor } from './store';

/**
 * A monitor and a delivery as the monitors API shows them (never the signing secret): what the
 * handler answers, and what the OpenAPI document, the client and the dashboard type them by, without
 * loading the handler.
 */
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

/** A delivery as every API shows it (a monitor's, an endpoint's, a job's): shared/webhooks/shapes.ts. */
export { publicDelivery, publicDeliveryWithAttempts } from '../webhooks/shapes';
