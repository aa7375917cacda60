import { DEFAULT_MONITOR_MIN_INTERVAL_SECONDS } from '../runtime/config';
import { MONITORABLE_IDS } from './monitor-kinds';

export const MAX_INTERVAL_SECONDS = 86_400;
/** The floor of a monitor's interval, but where MONITOR_MIN_INTERVAL_SECONDS lowers it (local runs and tests; config.monitorMinIntervalSeconds). */
export const MIN_INTERVAL_SECONDS = DEFAULT_MONITOR_MIN_INTERVAL_SECONDS;

/**
 * The fields of a monitor a caller sets, as JSON Schema: the OpenAPI document's request bodies of
 * POST and PATCH /v1/monitors (scripts/openapi-monitors.ts) and the MCP tool monitors-create
 * (shared/api/mcp-tools.ts) describe them with these. The API checks them itself (shared/monitors/api.ts).
 */
export const MONITOR_FIELDS = {
  operation: { type: 'string', enum: [...MONITORABLE_IDS], description: 'The operation to poll (docs/monitors.md lists what each reports)' },
  params: {
    type: 'object',
    additionalProperties: { type: 'string' },
    description: "The operation's query parameters, checked by its own rules (no `cursor`, no `cache_max_age`)",
  },
  intervalSeconds: {
    type: 'integer',
    minimum: MIN_INTERVAL_SECONDS,
    maximum: MAX_INTERVAL_SECONDS,
    description: `Seconds between polls, ${MIN_INTERVAL_SECONDS} to ${MAX_INTERVAL_SECONDS} (MONITOR_MIN_INTERVAL_SECONDS lowers the floor for local runs and tests only)`,
  },
  webhookUrl: {
    type: 'string',
    format: 'uri',
    description:
      'Where events are POSTed: https on a public address (no private, loopback, link-local or metadata address, checked after name resolution; plain http to a loopback address only in local runs with WEBHOOK_ALLOW_LOOPBACK=1)',
  },
  status: { type: 'string', enum: ['active', 'paused'], description: 'paused: no polls until resumed; active: resumes (polls at once)' },
} as const;

/** What POST /v1/monitors requires (params may be left out when the operation needs none). */
export const MONITOR_REQUIRED = ['operation', 'intervalSeconds', 'webhookUrl'] as const;
