import type { Endpoint } from './store';

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
