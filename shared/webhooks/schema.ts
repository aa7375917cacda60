import * as v from 'valibot';
import { TEAM_EVENT_TYPES } from './catalogue';

/**
 * The bodies of POST and PATCH /v1/webhooks, as valibot schemas: the API checks them (every
 * problem at once, as `{path, message}` details), and the OpenAPI document and the MCP tools
 * describe them from the same schemas (@valibot/to-json-schema). The URL's own rule (public https,
 * checked after name resolution: shared/api/webhook-url.ts) is applied by the API after these.
 */
export const MAX_DESCRIPTION = 200;
export const MAX_ENDPOINTS_PER_TEAM = 20;

const url = v.pipe(
  v.string('A webhook URL is required'),
  v.maxLength(2048, 'At most 2048 characters'),
  v.description('Where events are POSTed: https on a public address (checked after name resolution; plain http to a loopback address only in local runs with WEBHOOK_ALLOW_LOOPBACK=1)'),
);
const types = v.pipe(
  v.array(v.picklist(TEAM_EVENT_TYPES, `Each one of ${TEAM_EVENT_TYPES.join(', ')}`), 'A list of event types'),
  v.minLength(1, 'At least one event type'),
  v.maxLength(TEAM_EVENT_TYPES.length, `At most ${TEAM_EVENT_TYPES.length} event types`),
  v.description('The event types this endpoint receives (docs/webhooks.md lists them)'),
);
const description = v.pipe(v.string('A string'), v.maxLength(MAX_DESCRIPTION, `At most ${MAX_DESCRIPTION} characters`), v.description('A note of yours'));
const status = v.pipe(v.picklist(['active', 'disabled'], 'active or disabled'), v.description('disabled: deliveries are held until it is active again (within their 24 h of retries)'));

export const CreateEndpointBody = v.strictObject({ url, types, description: v.optional(description) }, 'Only url, types and description');
export const UpdateEndpointBody = v.strictObject({ url: v.optional(url), types: v.optional(types), description: v.optional(description), status: v.optional(status) }, 'Only url, types, description and status');

export type CreateEndpoint = v.InferOutput<typeof CreateEndpointBody>;
export type UpdateEndpoint = v.InferOutput<typeof UpdateEndpointBody>;

/** The team setting behind credits.low (PATCH /v1/account/settings). */
export const SettingsBody = v.strictObject({
  creditsLowThreshold: v.pipe(
    v.nullable(v.pipe(v.number('An integer, or null'), v.integer('An integer'), v.minValue(1, 'At least 1'), v.maxValue(1_000_000_000, 'At most 1000000000'))),
    v.description('credits.low is sent when the balance falls below this (null: never)'),
  ),
});

/** The body checked by `schema`: its output, or 422 VALIDATION_ERROR with every problem (path, message). */
export function parseBody<S extends v.GenericSchema>(schema: S, body: unknown): { output: v.InferOutput<S> } | { problems: { path: string; message: string }[] } {
  const res = v.safeParse(schema, body, { abortEarly: false });
  if (res.success) return { output: res.output };
  return { problems: res.issues.slice(0, 20).map((i) => ({ path: v.getDotPath(i) ?? (i.type === 'strict_object' ? String((i.path?.at(-1)?.key as string | undefined) ?? 'body') : 'body'), message: i.message })) };
}
