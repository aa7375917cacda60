import type { DeliveryRecord, Endpoint } from './store';

/** An endpoint as the webhooks API shows it (never its secret): the handler, the OpenAPI document, the client and the dashboard. */
export const publicEndpoint = (e: Endpoint) => ({
  id: e.endpointId,
  url: e.url,
  types: e.types,
  description: e.description ?? null,
  status: e.status,
  createdAt: e.createdAt,
  updatedAt: e.updatedAt,
  previousSecretExpiresAt: e.previousSecret && (e.previousSecretExpiresAt ?? 0) > Date.now() ? new Date(e.previousSecretExpiresAt!).toISOString() : null,
});

/** A delivery as the APIs show it, whoever its sender (a monitor, an endpoint, a job's own webhook). */
export const publicDelivery = (d: DeliveryRecord) => ({
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
export const publicDeliveryWithAttempts = (d: DeliveryRecord) => ({
  ...publicDelivery(d),
  recentAttempts: (d.log ?? []).map((a) => ({ at: new Date(a.at).toISOString(), status: a.status, latencyMs: a.ms, error: a.error ?? null })),
});
