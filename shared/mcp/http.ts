import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { creditsReport, requestsReport, usageReport } from '../api/account-reads';
import { type ProxyHandler, entryPoint } from '../http/entry';
import { failure, jsonAnswer } from '../http/envelope';
import { ApiError, GATEWAY_MESSAGES, type ValidationDetail, atCapacity, toApiError } from '../http/errors';
import { operationGetEvent, proxyEvent } from '../http/proxy-event';
import { boundedDetails } from '../http/validation';
import type { Log } from '../runtime/log';
import type { Operation } from '../operations';
import type { Answer, ErrorAnswer } from './render';
import { MCP_PATH } from '../api/agent-routes';
import { type Executor, createMcpServer } from './server';
import { type AccountRead, EVENT_ID, type JobRoute, MONITOR_ID, type MonitorRoute, RESPONSE_FORMAT, type ToolDef } from '../api/mcp-tools';

/**
 * POST /mcp: the MCP Streamable HTTP transport, stateless. Each POST builds its own server and
 * transport and answers in JSON (no stream, no session id), so any container answers any message.
 * The caller is the team the API key belongs to: API Gateway's REQUEST authorizer (or the local
 * gateway's) has put it in the request context, and the usage plan has counted the request, before
 * this runs. A tool of an operation runs that operation's own handler with a GET proxy event for
 * the same team: the same validation, cache, credit, ledger and usage counter as over plain HTTP.
 */

/** Runs an operation's handler (functions/<id>.ts) on an event. */
export type InvokeOperation = (op: Operation, event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
/**
 * Runs the monitors API's handler (functions/monitors.ts) on an event: in process locally; on AWS
 * the MCP function invokes the monitors API's function (MONITORS_FUNCTION), so that it never holds
 * the table rights a monitor's items need (no PutItem or DeleteItem for a function that scrapes).
 * Absent: this deployment runs no monitors.
 */
export type InvokeMonitors = (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;

/** JSON-RPC messages are small; a tool call's arguments are a few query parameters. */
const MAX_BODY_BYTES = 256 * 1024;

/**
 * What one POST may carry. The usage plan counts a POST once, so a JSON-RPC batch of tool calls
 * would run many operations (live scrapes, account reads) for one token of the team's rate limit,
 * all at once in one function. A batch (protocol versions before 2025-06-18 allow them) therefore
 * carries at most one tools/call and at most MAX_BATCH messages in all: each tool call is its own
 * POST, counted like the HTTP request it stands for.
 */
export const MAX_BATCH = 10;
export const ONE_TOOL_CALL_PER_POST = `A POST carries at most one tools/call (each tool call counts against the team's rate limit like the HTTP request it stands for) and a batch at most ${MAX_BATCH} messages: send one POST per tool call`;

/** Why this body may not be run, or null (a body that is not JSON is the transport's to refuse). */
export function batchRefusal(body: string | undefined): string | null {
  if (!body) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const calls = parsed.filter((m) => !!m && typeof m === 'object' && (m as { method?: unknown }).method === 'tools/call').length;
  return parsed.length > MAX_BATCH || calls > 1 ? ONE_TOOL_CALL_PER_POST : null;
}

/** Runs the jobs API's handler (functions/jobs.ts), as InvokeMonitors does the monitors API's (JOBS_FUNCTION on AWS). Absent: no jobs. */
export type InvokeJobs = InvokeMonitors;

export function createMcpHandler(invoke: InvokeOperation, invokeMonitors?: InvokeMonitors, invokeJobs?: InvokeJobs): ProxyHandler {
  return entryPoint('mcp', async (event, { requestId, log }) => {
    const teamId = event.requestContext?.authorizer?.teamId as string | undefined;
    if (!teamId) throw new ApiError('UNAUTHORIZED', GATEWAY_MESSAGES.UNAUTHORIZED);
    if (event.httpMethod !== 'POST') {
      // Stateless: no server-to-client stream to open (GET) and no session to end (DELETE).
      const refusal = { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP server is stateless and takes POST only' }, id: null };
      return jsonAnswer(405, refusal, requestId, { allow: 'POST' });
    }
    const refusal = batchRefusal(event.body && event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : (event.body ?? undefined));
    if (refusal) {
      log.info('batch refused', { teamId });
      return jsonAnswer(400, { jsonrpc: '2.0', error: { code: -32600, message: refusal }, id: null }, requestId);
    }
    const server = createMcpServer(inProcess(event, teamId, invoke, invokeMonitors, log, invokeJobs));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_BODY_BYTES });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(webRequest(event));
      const headers: Record<string, string> = { 'cache-control': 'no-store' };
      response.headers.forEach((value, name) => (headers[name] = value));
      return { statusCode: response.status, headers, body: await response.text() };
    } finally {
      await server.close().catch(() => undefined);
    }
  });
}

/** The proxy event as the web Request the SDK's transport reads (the URL's host is never used). */
function webRequest(event: APIGatewayProxyEvent): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined && !/^(host|content-length|connection|transfer-encoding)$/i.test(name)) headers.set(name, value);
  }
  const body = event.body ? (event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body) : undefined;
  return new Request(`https://localhost${MCP_PATH}`, { method: event.httpMethod, headers, body });
}

/**
 * The executor of POST /mcp. Each tool call has its own request id (the ledger's key for its
 * charge), logged beside the id of the MCP request that carried it.
 */
function inProcess(parent: APIGatewayProxyEvent, teamId: string, invoke: InvokeOperation, invokeMonitors: InvokeMonitors | undefined, log: Log, invokeJobs?: InvokeJobs): Executor {
  return async (tool, query, args) => {
    const requestId = randomUUID();
    log.info('tool call', { tool: tool.name, toolRequestId: requestId, teamId });
    if ('account' in tool.target) return accountAnswer(tool.target, teamId, query, requestId);
    if ('monitors' in tool.target) return monitorAnswer(parent, tool, tool.target.monitors, args, invokeMonitors, requestId, log);
    if ('jobs' in tool.target) return monitorAnswer(parent, tool, tool.target.jobs, args, invokeJobs, requestId, log, 'This deployment runs no jobs');
    const { operation: op } = tool.target;
    try {
      return answerOf(await invoke(op, operationEvent(parent, op, query, requestId)), requestId);
    } catch (err) {
      // The handler answers every error itself; a throw is its entry failing to load.
      const e = toApiError(err);
      log.error('tool call failed', { tool: tool.name, toolRequestId: requestId, cause: e.internal ?? e.message });
      return answerOf(failure(e, requestId), requestId);
    }
  };
}

/** The stage's prefix of the MCP request's path (`/prod`), which an in-service call's path keeps. */
const stagePrefixOf = (parent: APIGatewayProxyEvent) => {
  const full = parent.requestContext?.path ?? '';
  return full.endsWith(MCP_PATH) ? full.slice(0, -MCP_PATH.length) : '';
};

/** The credential headers of the MCP request (x-api-key, or Authorization: Bearer), as sent. */
const KEY_HEADERS = new Set(['x-api-key', 'authorization']);

/**
 * A monitor tool's call: the request of its route of the monitors API, with the tool's arguments
 * as the JSON body (`id` in the path), run by the monitors API's own handler. That handler checks
 * its caller itself (the API key, or a session), so the event carries the MCP request's own key
 * header, and nothing else of it: the call is the caller's, on the caller's team, exactly as over
 * HTTP (another team's monitor is 404; bad arguments are its 422 with details).
 */
export function monitorEvent(parent: APIGatewayProxyEvent, route: MonitorRoute | JobRoute, args: Record<string, unknown>, requestId: string): APIGatewayProxyEvent {
  const { [MONITOR_ID]: id, [EVENT_ID]: eventId, ...body } = args;
  // The path's ids from the tool's arguments: the monitor's or endpoint's (`id`), an event's (`eventId`).
  const pathParameters: Record<string, string> = {};
  const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent((pathParameters[name] = String(name === 'eventId' ? eventId : id))));
  const headers = Object.fromEntries(Object.entries(parent.headers ?? {}).filter((e): e is [string, string] => KEY_HEADERS.has(e[0].toLowerCase()) && typeof e[1] === 'string'));
  const withBody = route.method === 'POST' || route.method === 'PATCH';
  if (withBody) headers['content-type'] = 'application/json';
  return proxyEvent(
    { method: route.method, path, resource: route.path, pathParameters: Object.keys(pathParameters).length ? pathParameters : null, headers, body: withBody ? JSON.stringify(body) : null },
    // The MCP request's context (stage, source address), not what its authorizer said: the monitors handler reads the key itself.
    { ...parent.requestContext, authorizer: undefined, requestId, httpMethod: route.method, path: `${stagePrefixOf(parent)}${path}`, resourcePath: route.path },
    parent.stageVariables ?? null,
  );
}

async function monitorAnswer(parent: APIGatewayProxyEvent, tool: ToolDef, route: MonitorRoute | JobRoute, args: Record<string, unknown>, invokeMonitors: InvokeMonitors | undefined, requestId: string, log: Log, absent = 'This deployment runs no monitors'): Promise<Answer> {
  try {
    const takes = Object.keys(tool.inputSchema.properties).filter((name) => name !== RESPONSE_FORMAT);
    const problems = argumentProblems(Object.keys(args), takes);
    if (/\{(monitorId|endpointId|jobId)\}/.test(route.path) && (typeof args[MONITOR_ID] !== 'string' || !args[MONITOR_ID])) problems.push({ path: MONITOR_ID, message: route.path.includes('{endpointId}') ? 'Required: the endpoint id (ep_…)' : route.path.includes('{jobId}') ? 'Required: the job id (job_…)' : 'Required: the monitor id (mon_…)' });
    if (route.path.includes('{eventId}') && (typeof args[EVENT_ID] !== 'string' || !args[EVENT_ID])) problems.push({ path: EVENT_ID, message: 'Required: the event id (evt_…), as webhooks-deliveries shows it' });
    if (problems.length) throw new ApiError('VALIDATION_ERROR', 'Invalid arguments', { details: boundedDetails(problems) });
    if (!invokeMonitors) throw new ApiError('NOT_FOUND', absent);
    return answerOf(await invokeMonitors(monitorEvent(parent, route, args, requestId)), requestId);
  } catch (err) {
    // The monitors handler answers every error itself; a throw here is a refusal above, or its invocation failing.
    const e = toApiError(err);
    if (e.status >= 500) log.error('tool call failed', { tool: tool.name, toolRequestId: requestId, cause: e.internal ?? e.message });
    return answerOf(failure(e, requestId), requestId);
  }
}

/** An argument the tool does not take, as a VALIDATION_ERROR detail. */
function argumentProblems(given: string[], takes: string[]): ValidationDetail[] {
  const message = takes.length ? `Unknown argument; this tool takes ${takes.join(', ')}` : 'Unknown argument; this tool takes none';
  return given.filter((name) => !takes.includes(name)).map((path) => ({ path, message }));
}

/**
 * The GET proxy event API Gateway would hand the operation's function for this query: the caller's
 * team and key (and principal) from the authorizer's context, its source address, no headers (the
 * key stays with the MCP request). Nothing else of the authorizer's context: what it said of the
 * POST (the team's balance hint, a 422 recorded ahead) is not true of a tool call. Without a hint,
 * each tool call's scrape waits for its own conditional reservation, so a team without credit
 * causes no upstream request through MCP either.
 */
export function operationEvent(parent: APIGatewayProxyEvent, op: Operation, query: Record<string, string>, requestId: string): APIGatewayProxyEvent {
  const stagePrefix = stagePrefixOf(parent);
  const caller = parent.requestContext?.authorizer ?? {};
  const authorizer = Object.fromEntries(TOOL_CALL_CONTEXT.filter((name) => caller[name] !== undefined).map((name) => [name, caller[name]]));
  return operationGetEvent(op.path, query, { ...parent.requestContext, authorizer, requestId, httpMethod: 'GET', path: `${stagePrefix}${op.path}`, resourcePath: op.path }, parent.stageVariables ?? null);
}

/** The authorizer's context a tool call keeps: who is calling, nothing the authorizer read or wrote for the POST. */
const TOOL_CALL_CONTEXT = ['teamId', 'keyId', 'principalId'] as const;

/** An operation's HTTP answer as the tool's answer: the envelope, with Retry-After in the error. */
export function answerOf(result: APIGatewayProxyResult, requestId: string): Answer {
  type Body = { data?: Record<string, unknown>; meta?: Record<string, unknown>; error?: ErrorAnswer };
  let body: Body | null = null;
  try {
    body = JSON.parse(result.body) as Body;
  } catch {
    /* below */
  }
  // The operations answer 200 with data and meta; the monitors API 200, 201 or 202 with data alone (free).
  if (result.statusCode >= 200 && result.statusCode < 300 && body?.data) return { data: body.data, meta: body.meta ?? { requestId, creditsCharged: 0 } };
  if (body?.error) {
    const header = Object.entries(result.headers ?? {}).find(([name]) => name.toLowerCase() === 'retry-after')?.[1];
    const retryAfter = Number(header);
    return { error: { ...body.error, ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfter } : {}) } };
  }
  const e = atCapacity(`operation answered ${result.statusCode} without an envelope`);
  return { error: { code: e.code, message: e.message, requestId, retryAfter: e.retryAfter } };
}

const ACCOUNT_READS: Record<AccountRead, (teamId: string, query: Record<string, string>) => Promise<object>> = {
  credits: (teamId) => creditsReport(teamId),
  usage: (teamId, query) => usageReport(teamId, query.days),
  requests: (teamId, query) => requestsReport(teamId, query),
};

async function accountAnswer(target: Extract<ToolDef['target'], { account: AccountRead }>, teamId: string, query: Record<string, string>, requestId: string): Promise<Answer> {
  try {
    const unknown = argumentProblems(Object.keys(query), Object.keys(target.params));
    if (unknown.length) throw new ApiError('VALIDATION_ERROR', 'Invalid arguments', { details: boundedDetails(unknown) });
    const data = (await ACCOUNT_READS[target.account](teamId, query)) as Record<string, unknown>;
    return { data, meta: { requestId, creditsCharged: 0 } };
  } catch (err) {
    // As the account API: anything but a refusal is the database failing (our capacity).
    return answerOf(failure(toApiError(err), requestId), requestId);
  }
}
