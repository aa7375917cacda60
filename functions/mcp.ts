import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { type InvokeJobs, type InvokeMonitors, createMcpHandler } from '../shared/mcp/http';
import { invokeProxy } from '../shared/runtime/invoke';

// POST /mcp: the MCP server over Streamable HTTP. A tool call runs its operation's own entry,
// functions/<id>.ts, loaded on the first call of that tool. Every id starts with its platform, so
// the template below names exactly the files functions/*-*.ts, which esbuild bundles: the
// operations' entries and no other (test/infra/mcp-bundle.test.ts holds it to that).
type Entry = { handler: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult> };

//
// The monitor tools run the monitors API's own function (MONITORS_FUNCTION, set by the stack),
// invoked with the caller's key: this function, which scrapes, is never
// granted the writes a monitor's items need. Without it, this deployment runs no monitors.
const monitorsFunction = process.env.MONITORS_FUNCTION;
const invokeMonitors: InvokeMonitors | undefined = monitorsFunction ? (event) => invokeProxy(monitorsFunction, event) : undefined;
// The job tools, the same way: the jobs API's own function (JOBS_FUNCTION).
const jobsFunction = process.env.JOBS_FUNCTION;
const invokeJobs: InvokeJobs | undefined = jobsFunction ? (event) => invokeProxy(jobsFunction, event) : undefined;

export const handler = createMcpHandler(async (op, event) => {
  const entry = (await import(`./${op.platform}-${op.id.slice(op.platform.length + 1)}.ts`)) as Entry;
  return entry.handler(event);
}, invokeMonitors, invokeJobs);
