/**
 * The routes for agents in the OpenAPI document: POST /mcp (the MCP server over Streamable HTTP,
 * described as the JSON-RPC it carries; its tools are listed by tools/list: one per operation
 * above, the account tools and the monitor tools) and GET /llms.txt. Merged in by scripts/openapi.ts; test/gateway/mcp.test.ts checks the
 * answers of /mcp against the generated document.
 */
import { RATE_LIMIT } from '../shared/runtime/config';
import { LLMS_PATH, MCP_PATH } from '../shared/api/agent-routes';

type Json = Record<string, unknown>;

const requestId = { 'x-request-id': { $ref: '#/components/headers/RequestId' } };
const errorResponse = (description: string, retryAfter = false): Json => ({
  description,
  headers: { ...requestId, ...(retryAfter ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}) },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});
const jsonRpcError = (description: string): Json => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcResponse' } } } });

const id = { type: ['string', 'integer', 'null'] };

export const agentSchemas: Json = {
  JsonRpcMessage: {
    type: 'object',
    description: 'A JSON-RPC 2.0 request or notification of the Model Context Protocol (initialize, notifications/initialized, tools/list, tools/call, ping, ...)',
    required: ['jsonrpc', 'method'],
    properties: { jsonrpc: { const: '2.0' }, id, method: { type: 'string' }, params: { type: 'object' } },
  },
  JsonRpcResponse: {
    type: 'object',
    required: ['jsonrpc'],
    properties: {
      jsonrpc: { const: '2.0' },
      id,
      result: { type: 'object', description: 'For tools/call: `content` (a compact text), `structuredContent` (the operation\'s `{data, meta}`, or `{error}` with `retryAfter`) and `isError`' },
      error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} } },
    },
  },
};

export function agentPaths(): Json {
  const notPost = (method: string) => ({
    operationId: `mcp${method}`,
    summary: `Not offered: the server is stateless (no ${method === 'Get' ? 'server-to-client stream' : 'session to end'})`,
    tags: ['agents'],
    responses: { 401: errorResponse('Missing, invalid or revoked API key (UNAUTHORIZED)'), 405: jsonRpcError('Method not allowed (Allow: POST)') },
  });
  return {
    [MCP_PATH]: {
      post: {
        operationId: 'mcp',
        summary: 'The MCP server: Streamable HTTP transport, stateless, JSON answers',
        description: `One tool per operation (named by the operation's id, its parameters as arguments, \`cache_max_age\` included) the read-only account tools account-credits, account-usage and account-requests, and the monitor tools monitors-create (its answer shows the signing secret once), monitors-list and monitors-delete, which run the /v1/monitors routes with the caller's key. A tool call runs the operation itself: the same validation, cache, credits and ledger; an error is a tool result with \`isError\` and the error's code. Every POST counts against the team's ${RATE_LIMIT.requests} requests per ${RATE_LIMIT.windowSeconds} s, and carries at most one tools/call. Send \`Accept: application/json, text/event-stream\`.`,
        tags: ['agents'],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcMessage' } } } },
        responses: {
          200: { description: 'The JSON-RPC response', headers: requestId, content: { 'application/json': { schema: { $ref: '#/components/schemas/JsonRpcResponse' } } } },
          202: { description: 'A notification, accepted (no body)' },
          400: jsonRpcError('Not a JSON-RPC message, an unsupported protocol version, or a batch with more than one tools/call or more than 10 messages (one tool call per POST)'),
          401: errorResponse('Missing, invalid or revoked API key (UNAUTHORIZED)'),
          406: jsonRpcError('The Accept header lacks application/json or text/event-stream'),
          413: jsonRpcError('The message is too large'),
          415: jsonRpcError('The body is not application/json'),
          429: errorResponse(`Over the rate limit of ${RATE_LIMIT.requests} requests per ${RATE_LIMIT.windowSeconds} s per team (RATE_LIMITED)`, true),
          503: errorResponse('The service is at capacity (SERVICE_UNAVAILABLE)', true),
        },
      },
      get: notPost('Get'),
      delete: notPost('Delete'),
    },
    [LLMS_PATH]: {
      get: {
        operationId: 'llmsTxt',
        summary: 'The API for agents (llms.txt): the operations, their parameters and the MCP URL',
        tags: ['agents'],
        security: [],
        responses: { 200: { description: 'Markdown, in the llms.txt form', content: { 'text/plain': { schema: { type: 'string' } } } } },
      },
    },
  };
}
