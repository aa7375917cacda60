import type { ProxyHandler } from '../shared/http/entry';
import { isWebhooksPath } from '../shared/api/webhook-routes';
import { monitorsHandler } from '../shared/monitors/api';
import { webhooksHandler } from '../shared/monitors/webhooks-api';

/**
 * The event engine's API: every /v1/monitors route (shared/monitors/api.ts) and every /v1/webhooks
 * route (shared/monitors/webhooks-api.ts), one function, each path to its route table's router.
 */
export const handler: ProxyHandler = (event) => (isWebhooksPath(event.path ?? '') ? webhooksHandler : monitorsHandler)(event);
