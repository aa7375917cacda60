import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { atCapacity } from '../http/errors';
import { type Answer, type ErrorAnswer, errorResult, toolResult } from './render';
import { INSTRUCTIONS, RESPONSE_FORMAT, RESPONSE_FORMATS, type ResponseFormat, type ToolDef, findTool, listed, splitArguments, tools } from '../api/mcp-tools';

/**
 * The one MCP server, whatever carries it: stdio (mcp/server.ts, `npm run mcp`) or the Streamable
 * HTTP transport of POST /mcp (shared/mcp/http.ts). It lists the tools and renders their answers;
 * how a tool runs is the transport's `Executor`: in process through the operation's own handler
 * in Lambda, over the HTTP API from the stdio server. A tool call never fails the protocol: every
 * outcome, a thrown error included, is a tool result.
 */
/** `query`: the arguments as query parameters (operation and account tools); `args`: as given (the monitor tools' JSON body), both without response_format. */
export type Executor = (tool: ToolDef, query: Record<string, string>, args: Record<string, unknown>) => Promise<Answer>;

export const SERVER_INFO = { name: 'social-data-api', version: '1.0.0' } as const;

const refusal = (code: 'NOT_FOUND' | 'VALIDATION_ERROR', message: string, details?: { path: string; message: string }[]): ErrorAnswer => ({
  code,
  message,
  requestId: randomUUID(),
  ...(details ? { details } : {}),
});

export function createMcpServer(execute: Executor): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools().map(listed) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = findTool(request.params.name);
    if (!tool) {
      return errorResult(refusal('NOT_FOUND', `No tool named ${request.params.name}; tools/list names them`));
    }
    const { query, format } = splitArguments(request.params.arguments);
    if (format !== undefined && !RESPONSE_FORMATS.includes(format as ResponseFormat)) {
      return errorResult(refusal('VALIDATION_ERROR', 'Invalid arguments', [{ path: RESPONSE_FORMAT, message: `Must be one of ${RESPONSE_FORMATS.join(', ')}` }]));
    }
    let answer: Answer;
    try {
      const { [RESPONSE_FORMAT]: _format, ...args } = request.params.arguments ?? {};
      answer = await execute(tool, query, args);
    } catch (err) {
      const e = atCapacity(err instanceof Error ? `${err.name}: ${err.message}` : String(err));
      answer = { error: { code: e.code, message: e.message, requestId: randomUUID(), retryAfter: e.retryAfter } };
    }
    return toolResult(tool, answer, format as ResponseFormat | undefined);
  });
  return server;
}
