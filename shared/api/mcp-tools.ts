import * as v from 'valibot';
import { RATE_LIMIT } from '../runtime/config';
import { COST } from '../accounting/teams';
import { routedOperations, type Operation } from '../operations';
import { parameter, parameters } from './parameter-schema';
import { REQUESTS_PARAMS, USAGE_DAYS } from './account-reads';
import { HISTORY_PAGE } from '../accounting/request-history';
import type { ParamDef } from '../http/validation';
import { MONITOR_ROUTES } from './monitor-routes';
import { WEBHOOK_ROUTES } from './webhook-routes';
import { MONITOR_FIELDS, MONITOR_REQUIRED } from './monitor-schema';
import { JOB_EVENTS, JOB_ROUTES, MAX_INLINE_INPUTS, MAX_PAGES_PER_INPUT } from './job-routes';

/**
 * The MCP tools, from the operation table: one per routed operation (named by its id, its input
 * schema the operation's query parameters as the API validates them, `cache_max_age` included),
 * plus the read-only account tools and the monitor tools (create, list, delete: the monitors API,
 * shared/monitors/api.ts). Both transports (the stdio server in mcp/, POST /mcp in
 * functions/mcp.ts) list exactly these and render their answers with shared/mcp/render.ts.
 */
export type AccountRead = 'credits' | 'usage' | 'requests';
/** A route of the monitors API or of the webhooks API (both served by the monitors API's function). */
export type MonitorRoute = (typeof MONITOR_ROUTES)[number] | (typeof WEBHOOK_ROUTES)[number];
export type JobRoute = (typeof JOB_ROUTES)[number];

export interface ToolDef {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required: string[]; additionalProperties: false };
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  /**
   * What the tool runs: an operation of the table, a read of the caller's own account, or a route
   * of the monitors API (its arguments the JSON body, `id` the monitor's id in the path).
   */
  target: { operation: Operation } | { account: AccountRead; params: Record<string, ParamDef> } | { monitors: MonitorRoute } | { jobs: JobRoute };
}

/** A tool argument that is not a query parameter: how the answer's text is written. */
export const RESPONSE_FORMAT = 'response_format';
export const RESPONSE_FORMATS = ['compact', 'full'] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];

const responseFormatProperty = {
  type: 'string',
  enum: RESPONSE_FORMATS,
  default: 'compact',
  description:
    'How the text of the answer is written: compact (default; long lists trimmed, with a count of what was left out) or full (the whole answer as JSON). The structured content always holds the full data.',
};

function inputSchema(params: ReturnType<typeof parameters>): ToolDef['inputSchema'] {
  return {
    type: 'object',
    properties: {
      ...Object.fromEntries(params.map((p) => [p.name, { ...p.schema, description: p.description }])),
      [RESPONSE_FORMAT]: responseFormatProperty,
    },
    required: params.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

function operationTool(op: Operation): ToolDef {
  const pairs = (op.oneOf ?? []).map(([a, b]) => `exactly one of ${a} or ${b}`);
  const paged = op.pageSize ? ` About ${op.pageSize} items per page; pass the answer's cursor to get the next page.` : '';
  return {
    name: op.id,
    title: `GET ${op.path}`,
    description: `${op.summary}${pairs.length ? ` Give ${pairs.join('; ')}.` : ''}${paged} Costs ${COST} credit per live call, 0 for an error; cache_max_age accepts a cached result of at most that age for 0 credits.`,
    inputSchema: inputSchema(parameters(op)),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    target: { operation: op },
  };
}

const daysParam: ParamDef = {
  schema: v.pipe(v.string(), v.regex(/^\d+$/, 'A whole number')),
  description: `How many UTC days back, today included: a whole number from 1 to ${USAGE_DAYS.max} (default ${USAGE_DAYS.default})`,
  example: '7',
};

/** The history's filters and paging, as the account API takes them (it validates them again); the dashboard's `source` filter is not a tool argument (yet). */
const requestsParams: Record<Exclude<keyof typeof REQUESTS_PARAMS, 'source'>, ParamDef> = {
  operation: { schema: v.pipe(v.string(), v.minLength(1)), description: REQUESTS_PARAMS.operation, example: 'livestream-clip' },
  status: { schema: v.pipe(v.string(), v.regex(/^([1-5]\d\d|error)$/, REQUESTS_PARAMS.status)), description: REQUESTS_PARAMS.status, example: 'error' },
  limit: { schema: v.pipe(v.string(), v.regex(/^\d+$/, 'A whole number')), description: REQUESTS_PARAMS.limit, example: String(HISTORY_PAGE.default) },
  cursor: { schema: v.pipe(v.string(), v.minLength(1)), description: REQUESTS_PARAMS.cursor },
};

const ACCOUNT_TOOLS: { name: string; title: string; read: AccountRead; description: string; params: Record<string, ParamDef> }[] = [
  {
    name: 'account-credits',
    title: 'Credit balance and latest charges',
    read: 'credits',
    description: "Your team's credit balance and its latest charges (time, operation, request id), newest first. Free.",
    params: {},
  },
  {
    name: 'account-usage',
    title: 'Usage per day and operation',
    read: 'usage',
    description: "Your team's answered requests per UTC day and operation: live scrapes, cache hits, errors by code and credits, with totals by status and code. Free.",
    params: { days: daysParam },
  },
  {
    name: 'account-requests',
    title: 'Request history (7 days)',
    read: 'requests',
    description:
      "Your team's requests of the last 7 days, newest first: time, operation, key, HTTP status, error code, credits, cached, latency, request id. Filter by operation or status (`error`: every error answer); pass the answer's cursor for older ones. Free.",
    params: requestsParams,
  },
];

function accountTool(t: (typeof ACCOUNT_TOOLS)[number]): ToolDef {
  return {
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: inputSchema(Object.entries(t.params).map(([name, def]) => parameter(name, def, {}))),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    target: { account: t.read, params: t.params },
  };
}

/** The id of a monitor, as the monitor tools that name one take it. */
export const MONITOR_ID = 'id';
const monitorId = { type: 'string', description: 'The monitor id (`mon_…`), as monitors-list or monitors-create show it' };
const route = (name: (typeof MONITOR_ROUTES)[number]['name']) => MONITOR_ROUTES.find((r) => r.name === name)!;
const webhookRoute = (name: (typeof WEBHOOK_ROUTES)[number]['name']) => WEBHOOK_ROUTES.find((r) => r.name === name)!;
/** The id of an event, as the delivery tools take it. */
export const EVENT_ID = 'eventId';
const endpointId = { type: 'string', description: 'The webhook endpoint id (`ep_…`), as webhooks-list shows it' };

/** The monitor tools: a route of the monitors API each, free, on the caller's team. */
const MONITOR_TOOLS: ToolDef[] = [
  {
    name: 'monitors-create',
    title: 'Create a monitor (signed webhooks of what is new)',
    description:
      `Watch an operation: it is polled every intervalSeconds and what is new (items.new, live.started / live.ended, bulletin.new; monitor.paused when it stops) is POSTed to webhookUrl as Standard Webhooks events, signed with the monitor's secret. The answer shows that secret once: give it to the receiver to verify webhook-signature (it cannot be read again; rotating makes a new one). Creating is free; each live poll costs ${COST} credit like a call, a cached result no older than half the interval 0.`,
    inputSchema: {
      type: 'object',
      properties: { operation: MONITOR_FIELDS.operation, params: MONITOR_FIELDS.params, intervalSeconds: MONITOR_FIELDS.intervalSeconds, webhookUrl: MONITOR_FIELDS.webhookUrl, [RESPONSE_FORMAT]: responseFormatProperty },
      required: [...MONITOR_REQUIRED],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    target: { monitors: route('create') },
  },
  {
    name: 'monitors-list',
    title: "Your team's monitors",
    description: "Your team's monitors, newest first: id, operation, params, interval, webhook URL, status (active, or paused with its reason), last and next poll. Never their secrets. Free.",
    inputSchema: { type: 'object', properties: { [RESPONSE_FORMAT]: responseFormatProperty }, required: [], additionalProperties: false },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    target: { monitors: route('list') },
  },
  {
    name: 'monitors-delete',
    title: 'Delete a monitor',
    description: "Delete one of your team's monitors: no further polls or deliveries. Another team's monitor, or one already deleted, is NOT_FOUND. Free.",
    inputSchema: { type: 'object', properties: { [MONITOR_ID]: monitorId, [RESPONSE_FORMAT]: responseFormatProperty }, required: [MONITOR_ID], additionalProperties: false },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    target: { monitors: route('remove') },
  },
  {
    name: 'webhooks-list',
    title: "Your team's webhook endpoints",
    description: "Your team's webhook endpoints for account and service events (credits.low, credits.exhausted, key.created, key.revoked, member.removed, operation.degraded, operation.recovered, job.*), newest first: id, URL, the event types each wants, status. Never their secrets. Free.",
    inputSchema: { type: 'object', properties: { [RESPONSE_FORMAT]: responseFormatProperty }, required: [], additionalProperties: false },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    target: { monitors: webhookRoute('list') },
  },
  {
    name: 'webhooks-deliveries',
    title: 'Events sent to a webhook endpoint',
    description: "One of your team's webhook endpoints: its events of the last 7 days, newest first, each with its delivery state (pending, delivered, failed), attempts, last status and next retry. Free.",
    inputSchema: { type: 'object', properties: { [MONITOR_ID]: endpointId, [RESPONSE_FORMAT]: responseFormatProperty }, required: [MONITOR_ID], additionalProperties: false },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    target: { monitors: webhookRoute('deliveries') },
  },
  {
    name: 'webhooks-delivery',
    title: 'One event sent to a webhook endpoint, with its attempts',
    description: 'One event of a webhook endpoint (the last 7 days) with its recent attempts: time, HTTP status, latency, error. Free.',
    inputSchema: {
      type: 'object',
      properties: { [MONITOR_ID]: endpointId, [EVENT_ID]: { type: 'string', description: 'The event id (`evt_…`), as webhooks-deliveries shows it' }, [RESPONSE_FORMAT]: responseFormatProperty },
      required: [MONITOR_ID, EVENT_ID],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    target: { monitors: webhookRoute('delivery') },
  },
];

const jobRoute = (name: JobRoute['name']) => JOB_ROUTES.find((r) => r.name === name)!;

/** The job tools (docs/jobs.md): submit a job of inline inputs, read a job's state; the jobs API's routes, on the caller's team. */
const JOB_TOOLS: ToolDef[] = [
  {
    name: 'jobs-submit',
    title: 'Submit a bulk job',
    description: `Run one operation over many inputs (up to ${MAX_INLINE_INPUTS} here; each a value of its main parameter, such as a handle or a URL, or an object of its query parameters): the service runs them at the platform's pace and writes the results as files. Every input is checked first (VALIDATION_ERROR with line and field), unless skipInvalid. Each live page costs ${COST} credit as a call; inputs that name the same thing run once. Read its progress with jobs-get. With webhook (a public https URL), its events (${JOB_EVENTS.join(', ')}) are also POSTed there, signed with a secret this answer shows once.`,
    inputSchema: {
      type: 'object',
      properties: {
        operation: { type: 'string', enum: routedOperations().map((o) => o.id), description: 'The operation id' },
        inputs: { type: 'array', minItems: 1, maxItems: MAX_INLINE_INPUTS, items: { oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'string' } }] }, description: 'The inputs' },
        pages: { oneOf: [{ type: 'integer', minimum: 1, maximum: MAX_PAGES_PER_INPUT }, { const: 'all' }], description: 'Pages per input (default 1), or all' },
        skipInvalid: { type: 'boolean', description: 'Run the valid inputs, list the invalid ones in the errors file' },
        webhook: { type: 'string', format: 'uri', maxLength: 2048, description: "The job's own webhook: a public https URL its events are POSTed to, signed (the secret is in this answer only)" },
        [RESPONSE_FORMAT]: responseFormatProperty,
      },
      required: ['operation', 'inputs'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    target: { jobs: jobRoute('submit') },
  },
  {
    name: 'jobs-get',
    title: 'A bulk job: state and progress',
    description: 'One of your team\'s jobs: state (queued, running, paused, succeeded, failed, cancelled), inputs done / failed / left, items, credits charged, an estimate of the time left. Free.',
    inputSchema: { type: 'object', properties: { [MONITOR_ID]: { type: 'string', description: 'The job id (`job_…`), as jobs-submit shows it' }, [RESPONSE_FORMAT]: responseFormatProperty }, required: [MONITOR_ID], additionalProperties: false },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    target: { jobs: jobRoute('get') },
  },
  {
    name: 'jobs-deliver',
    title: "Deliver a job's files to your bucket again",
    description: "An ended job whose delivery to your own S3 bucket failed (destination.state failed, with its code: ROLE_NOT_ASSUMABLE, BUCKET_NOT_FOUND, WRITE_DENIED): once your role's trust policy or your bucket is fixed, write its four files there again (the same keys). Answers the job with the new outcome. Free.",
    inputSchema: { type: 'object', properties: { [MONITOR_ID]: { type: 'string', description: 'The job id (`job_…`)' }, [RESPONSE_FORMAT]: responseFormatProperty }, required: [MONITOR_ID], additionalProperties: false },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    target: { jobs: jobRoute('retryDestination') },
  },
];

let built: ToolDef[] | undefined;
/** Every tool, in the table's order, then the account tools, the monitor tools and the job tools (built once: the schemas take a few ms). */
export const tools = (): ToolDef[] => (built ??= [...routedOperations().map(operationTool), ...ACCOUNT_TOOLS.map(accountTool), ...MONITOR_TOOLS, ...JOB_TOOLS]);

export const findTool = (name: string): ToolDef | undefined => tools().find((t) => t.name === name);

/** The part of a tool that tools/list shows. */
export const listed = ({ name, title, description, inputSchema, annotations }: ToolDef) => ({ name, title, description, inputSchema, annotations });

export const INSTRUCTIONS = [
  'Tools read public social data (one tool per API operation) and your own account (account-credits, account-usage, account-requests), and manage your monitors (monitors-create, monitors-list, monitors-delete: an operation polled every interval, what is new POSTed to your webhook, signed), and read your team webhook endpoints and their deliveries (webhooks-list, webhooks-deliveries, webhooks-delivery). Bulk jobs: jobs-submit and jobs-get (many inputs of one operation run by the service, results as files), jobs-deliver (a failed delivery to your own bucket, again).',
  `A live call costs ${COST} credit; an error costs nothing; with cache_max_age (1d, 3d, 7d, 14d, 30d) a cached result of at most that age is served for 0 credits.`,
  'Answers: a compact text (long lists trimmed, with a count of what was left out) and the full data in structured content; response_format "full" writes the whole answer as text.',
  'Paged tools return a cursor: call the same tool again with it for the next page.',
  `Errors come back as tool errors with the API's code (VALIDATION_ERROR with details, NOT_FOUND, INSUFFICIENT_CREDITS, RATE_LIMITED, ...) and, for 429 and 503, retryAfter in seconds. Each team may send ${RATE_LIMIT.requests} requests per ${RATE_LIMIT.windowSeconds} s, MCP messages included; a POST carries at most one tools/call.`,
].join(' ');

/**
 * Tool arguments as query parameters, the form the API validates: strings as given, numbers and
 * booleans as their text, null as absent, anything else as its JSON text (which the parameter's
 * own schema then refuses with its message). `response_format` is the tool's own, not the API's.
 */
export function splitArguments(args: Record<string, unknown> | undefined): { query: Record<string, string>; format: unknown } {
  // A Map, then fromEntries: every name an own property, `__proto__` included.
  const query = new Map<string, string>();
  let format: unknown;
  for (const [name, value] of Object.entries(args ?? {})) {
    if (name === RESPONSE_FORMAT) format = value;
    else if (value === null || value === undefined) continue;
    else query.set(name, typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value));
  }
  return { query: Object.fromEntries(query), format };
}
