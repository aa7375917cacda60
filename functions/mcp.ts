import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createMcpHandler } from '../shared/mcp/http';

// POST /mcp: the MCP server over Streamable HTTP. A tool call runs its operation's own handler,
// functions/<id>.ts, loaded on the first call of that tool (esbuild bundles every file this
// template can name; only the called ones are evaluated).
type Entry = { handler: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult> };

export const handler = createMcpHandler(async (op, event) => ((await import(`./${op.id}`)) as Entry).handler(event));
