/**
 * `npm run mcp`: the MCP server (shared/mcp) over stdio, for agents that start a local process
 * rather than connect to the API's own POST /mcp. Same tools, same answers: an operation's tool
 * calls the API through the typed client (so it is charged, cached and rate-limited as any HTTP
 * call); the account and monitor tools are asked of the API's /mcp endpoint with the same key, so
 * that their answers are the remote server's own. Configuration:
 *   SOCIAL_DATA_API_KEY  the API key (required)
 *   SOCIAL_DATA_API_URL  the API's base URL (required): the stack's ApiUrl output with its stage
 *                        (https://…/prod; https is assumed without a scheme), or http://localhost:3000
 *                        for `npm start`. No default: a key must not go to whatever answers locally.
 */
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { ApiClientError, SocialDataClient } from '../client';
import { GATEWAY_MESSAGES } from '../shared/http/errors';
import { MCP_PATH } from '../shared/api/agent-routes';
import type { Answer, ErrorAnswer } from '../shared/mcp/render';
import { type Executor, SERVER_INFO, createMcpServer } from '../shared/mcp/server';

export interface Connection {
  baseUrl: string;
  apiKey: string;
}

const unavailable = (message: string): Answer => ({ error: { code: 'SERVICE_UNAVAILABLE', message, requestId: randomUUID(), retryAfter: 5 } });

/** Runs each tool against the API at `baseUrl`. */
export function overHttp(client: SocialDataClient, api: Connection): Executor {
  let remote: Promise<Client> | undefined;
  const connect = () =>
    (remote ??= (async () => {
      const c = new Client({ name: `${SERVER_INFO.name}-stdio`, version: SERVER_INFO.version });
      const url = new URL(MCP_PATH.slice(1), api.baseUrl.replace(/\/*$/, '/'));
      await c.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-api-key': api.apiKey } } }));
      return c;
    })().catch((err: unknown) => {
      remote = undefined; // the next call tries again
      throw err;
    }));

  return async (tool, query, args) => {
    if ('operation' in tool.target) {
      try {
        return await client.call<Answer>(tool.target.operation.path, query);
      } catch (err) {
        if (!(err instanceof ApiClientError)) return unavailable(`The API at ${api.baseUrl} could not be reached: ${(err as Error).message}`);
        const error: ErrorAnswer = { code: err.code, message: err.message, requestId: err.requestId };
        if (err.details) error.details = err.details;
        if (err.retryAfter !== undefined) error.retryAfter = err.retryAfter;
        return { error };
      }
    }
    try {
      // The monitor tools' arguments are JSON (params an object, intervalSeconds a number): sent as given.
      const result = await (await connect()).callTool({ name: tool.name, arguments: 'monitors' in tool.target || 'jobs' in tool.target ? args : query });
      return result.structuredContent as Answer;
    } catch (err) {
      if (err instanceof StreamableHTTPError && err.code === 401) return { error: { code: 'UNAUTHORIZED', message: GATEWAY_MESSAGES.UNAUTHORIZED, requestId: randomUUID() } };
      return unavailable(`The API's MCP endpoint at ${api.baseUrl} did not answer: ${(err as Error).message}`);
    }
  };
}

export function createServer(api: Connection): Server {
  const client = new SocialDataClient({ ...api, retry: { attempts: 2, maxDelayMs: 10_000 } });
  return createMcpServer(overHttp(client, api));
}

if (require.main === module) {
  const apiKey = process.env.SOCIAL_DATA_API_KEY;
  const baseUrl = process.env.SOCIAL_DATA_API_URL;
  if (!apiKey || !baseUrl) {
    process.stderr.write('Set SOCIAL_DATA_API_KEY and SOCIAL_DATA_API_URL (the stack\'s ApiUrl output, https://…/prod; or http://localhost:3000 for `npm start`).\n');
    process.exit(2);
  }
  let server: Server;
  try {
    server = createServer({ baseUrl, apiKey });
  } catch (err) {
    process.stderr.write(`SOCIAL_DATA_API_URL: ${(err as Error).message}\n`);
    process.exit(2);
  }
  server
    .connect(new StdioServerTransport())
    .catch((err: unknown) => {
      process.stderr.write(`mcp server failed: ${String(err)}\n`);
      process.exit(1);
    });
}
