/**
 * The OpenAPI document's `webhooks`: the body of every event a monitor sends (docs/monitors.md),
 * with the Standard Webhooks headers. Merged in by scripts/openapi.ts.
 */
type Json = Record<string, unknown>;

const about = {
  monitorId: { type: 'string' },
  operation: { type: 'string', description: 'The monitored operation' },
  params: { type: 'object', additionalProperties: { type: 'string' }, description: 'Its query parameters' },
};
const headers = {
  'webhook-id': { description: 'The event id; the same on every retry: de-duplicate on it', schema: { type: 'string' }, required: true },
  'webhook-timestamp': { description: 'This attempt, in seconds since the epoch', schema: { type: 'string' }, required: true },
  'webhook-signature': { description: '`v1,` + base64 HMAC-SHA256 of `id.timestamp.body`, keyed by the base64-decoded secret after `whsec_`', schema: { type: 'string' }, required: true },
};

const EVENTS: Record<string, { summary: string; data: Json; required?: string[] }> = {
  'monitor.ready': { summary: 'The first poll set the baseline', data: {} },
  'monitor.test': { summary: 'Sent on request (POST /v1/monitors/{id}/test)', data: {} },
  'monitor.paused': { summary: 'The monitor stopped: no credit, the watched thing gone, or deliveries failing for 3 days', data: { reason: { enum: ['no_credits', 'not_found', 'deliveries_failing'] } }, required: ['reason'] },
  'items.new': { summary: 'New items (posts, notes, replies, comments, videos, followed accounts) as the operation returns them; a batch over 256 KB is split', data: { items: { type: 'array', items: { type: 'object' }, minItems: 1 } }, required: ['items'] },
  'live.started': { summary: 'The user went live', data: { isLive: { const: true }, user: { type: 'object' }, live: { type: ['object', 'null'] }, lastLive: { type: ['object', 'null'] } }, required: ['isLive', 'live'] },
  'live.ended': { summary: 'The live ended', data: { isLive: { const: false }, user: { type: 'object' }, live: { type: ['object', 'null'] }, lastLive: { type: ['object', 'null'] } }, required: ['isLive'] },
  'bulletin.new': { summary: "Another day's bulletin", data: { bulletin: { type: 'object' } }, required: ['bulletin'] },
};

export function monitorWebhooks(): Json {
  return Object.fromEntries(
    Object.entries(EVENTS).map(([type, e]) => [
      type,
      {
        post: {
          summary: e.summary,
          parameters: Object.entries(headers).map(([name, h]) => ({ name, in: 'header', ...h })),
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['type', 'timestamp', 'data'],
                  properties: {
                    type: { const: type },
                    timestamp: { type: 'string', format: 'date-time' },
                    data: { type: 'object', required: ['monitorId', 'operation', 'params', ...(e.required ?? [])], properties: { ...about, ...e.data } },
                  },
                },
              },
            },
          },
          responses: { '2XX': { description: 'Received (any other answer, or none within 10 s, is retried for up to 24 h)' } },
        },
      },
    ]),
  );
}
