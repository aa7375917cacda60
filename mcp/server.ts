/**
 * `npm run mcp`: an MCP server (stdio) with one tool per live operation, for AI agents. Input
 * schemas come from the operation table (the same parameter schemas as the API and the OpenAPI
 * document); a tool calls the API through the typed client and returns the operation's `data`;
 * an API error is a tool error carrying the spec's code. Configuration:
 *   SOCIAL_DATA_API_KEY  the API key (required)
 *   SOCIAL_DATA_API_URL  the API's base URL (required): the stack's ApiUrl output with its stage
 *                        (https://…/prod; https is assumed without a scheme), or http://localhost:3000
 *                        for `npm start`. No default: a key must not go to whatever answers locally.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ApiClientError, SocialDataClient } from '../client';
import { routedOperations, type Operation } from '../shared/operations';
import { parameters } from '../shared/parameter-schema';

interface Tool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required: string[]; additionalProperties: false };
  op: Operation;
}

export function tools(): Tool[] {
  return routedOperations().map((op) => {
    const params = parameters(op) as { name: string; required: boolean; description: string; schema: Record<string, unknown> }[];
    const pairs = (op.oneOf ?? []).map(([a, b]) => `exactly one of ${a} or ${b}`);
    return {
      name: op.id,
      description: `${op.summary}${pairs.length ? ` Give ${pairs.join('; ')}.` : ''} Costs 1 credit per live call; cache_max_age accepts a cached result for 0.`,
      inputSchema: {
        type: 'object',
        properties: Object.fromEntries(params.map((p) => [p.name, { ...p.schema, description: p.description }])),
        required: params.filter((p) => p.required).map((p) => p.name),
        additionalProperties: false,
      },
      op,
    };
  });
}

export function createServer(client: SocialDataClient): Server {
  const list = tools();
  const server = new Server({ name: 'social-data-api', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: list.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = list.find((t) => t.name === request.params.name);
    if (!tool) return { isError: true, content: [{ type: 'text', text: `Unknown tool ${request.params.name}` }] };
    const args = (request.params.arguments ?? {}) as Record<string, string | number | boolean>;
    try {
      const result = await client.call<{ data: Record<string, unknown>; meta: unknown }>(tool.op.path, args);
      return { content: [{ type: 'text', text: JSON.stringify(result.data) }], structuredContent: result.data };
    } catch (err) {
      if (err instanceof ApiClientError) {
        const details = err.details?.length ? ` ${err.details.map((d) => `${d.path}: ${d.message}`).join('; ')}` : '';
        return {
          isError: true,
          content: [{ type: 'text', text: `${err.code}: ${err.message}${details} (requestId ${err.requestId})` }],
          structuredContent: { code: err.code, message: err.message, requestId: err.requestId, ...(err.details ? { details: err.details } : {}) },
        };
      }
      return { isError: true, content: [{ type: 'text', text: `SERVICE_UNAVAILABLE: ${(err as Error).message}` }] };
    }
  });
  return server;
}

if (require.main === module) {
  const apiKey = process.env.SOCIAL_DATA_API_KEY;
  const baseUrl = process.env.SOCIAL_DATA_API_URL;
  if (!apiKey || !baseUrl) {
    process.stderr.write('Set SOCIAL_DATA_API_KEY and SOCIAL_DATA_API_URL (the stack\'s ApiUrl output, https://…/prod; or http://localhost:3000 for `npm start`).\n');
    process.exit(2);
  }
  let client: SocialDataClient;
  try {
    client = new SocialDataClient({ baseUrl, apiKey, retry: { attempts: 2, maxDelayMs: 10_000 } });
  } catch (err) {
    process.stderr.write(`SOCIAL_DATA_API_URL: ${(err as Error).message}\n`);
    process.exit(2);
  }
  createServer(client)
    .connect(new StdioServerTransport())
    .catch((err: unknown) => {
      process.stderr.write(`mcp server failed: ${String(err)}\n`);
      process.exit(1);
    });
}
