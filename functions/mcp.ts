import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { createMcpHandler } from '../shared/mcp/http';

// POST /mcp: the MCP server over Streamable HTTP. A tool call runs its operation's own entry,
// functions/<id>.ts, loaded on the first call of that tool. Every id starts with its platform, so
// the template below names exactly the files functions/*-*.ts, which esbuild bundles: the
// operations' entries and no other (test/mcp/bundle.test.ts holds it to that).
type Entry = { handler: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult> };

export const handler = createMcpHandler(async (op, event) => {
  const entry = (await import(`./${op.platform}-${op.id.slice(op.platform.length + 1)}.ts`)) as Entry;
  return entry.handler(event);
});
