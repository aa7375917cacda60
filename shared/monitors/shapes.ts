import type { Delivery, Monitor } from './store';

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

export const publicDelivery = (d: Delivery) => ({
  eventId: d.eventId,
  type: d.type,
  createdAt: new Date(d.createdAt).toISOString(),
  state: d.state,
  attempts: d.attempts,
  lastStatus: d.lastStatus ?? null,
  lastError: d.lastError ?? null,
  latencyMs: d.ms ?? null,
  nextRetryAt: d.state === 'pending' && d.nextAttemptAt !== undefined && !d.held ? new Date(d.nextAttemptAt).toISOString() : null,
  held: Boolean(d.held),
});

/** One delivery with its recent attempts (the last 20), oldest first. */
export const publicDeliveryWithAttempts = (d: Delivery) => ({
  ...publicDelivery(d),
  recentAttempts: (d.log ?? []).map((a) => ({ at: new Date(a.at).toISOString(), status: a.status, latencyMs: a.ms, error: a.error ?? null })),
});
