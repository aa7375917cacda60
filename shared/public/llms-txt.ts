import type { APIGatewayProxyEvent } from 'aws-lambda';
import { COST } from '../accounting/teams';
import { RATE_LIMIT } from '../runtime/config';
import { entryPoint } from '../http/entry';
import { LLMS_PATH, MCP_PATH } from '../mcp/routes';
import { OPENAPI_ROUTE } from './openapi-document';
import { tools } from '../mcp/tools';
import { routedOperations } from '../operations';
import { parameters } from './parameter-schema';

/**
 * GET /llms.txt, without a key: the API for agents, in the llms.txt form (markdown: a title, a
 * summary, then sections of links), generated from the operation table: every routed operation with
 * its parameters, the MCP endpoint and its tools, and where the OpenAPI document is.
 */

export function renderLlmsTxt(base: string): string {
  const ops = routedOperations();
  const out = [
    '# Social data API',
    '',
    `> A read-only HTTP API: ${ops.length} GET operations fetch publicly visible data from social, video, live-stream and link-page sites and return clean JSON in one envelope, \`{data, meta}\` (errors: \`{error: {code, message, requestId, details?}}\`). A live scrape costs ${COST} credit; errors and cache hits cost 0.`,
    '',
    `Authentication: send your API key as \`x-api-key: <key>\` or \`Authorization: Bearer <key>\` (keys come from the account dashboard). Each team may send ${RATE_LIMIT.requests} requests per ${RATE_LIMIT.windowSeconds} s; a 429 or 503 carries Retry-After.`,
    '',
    '## MCP',
    '',
    `- [MCP server](${base}${MCP_PATH}): Streamable HTTP (stateless, JSON answers); POST JSON-RPC with the same API-key header. Tools: ${tools().map((t) => t.name).join(', ')}. Each operation tool takes the operation's parameters below; an answer is a compact text plus the full \`{data, meta}\` as structured content; \`response_format: "full"\` writes it all as text.`,
    '',
    '## Operations',
    '',
  ];
  for (const op of ops) {
    out.push(`- [GET ${op.path}](${base}${op.path}) (tool \`${op.id}\`): ${op.summary}${op.pageSize ? ` Pages of about ${op.pageSize}; \`cursor\` is null on the last page.` : ''}`);
    for (const p of parameters(op)) {
      const values = Array.isArray(p.schema.enum) ? ` One of ${(p.schema.enum as string[]).join(', ')}.` : '';
      const example = p.example !== undefined && !values ? ` Example: \`${p.example}\`.` : '';
      out.push(`  - \`${p.name}\`${p.required ? ' (required)' : ''}: ${p.description}${values}${example}`);
    }
  }
  out.push('', '## Docs', '', `- [OpenAPI 3.1 document](${base}${OPENAPI_ROUTE}): every operation, parameter, response schema and error, without a key.`, '');
  return out.join('\n');
}

/**
 * The base URL the caller reached: scheme and host from the request, and the stage (or a custom
 * domain's base path) that precedes /llms.txt. A host that is not a plain host name gives relative links.
 */
export function baseUrl(event: APIGatewayProxyEvent): string {
  const header = (name: string) => Object.entries(event.headers ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
  const host = header('host');
  const proto = (header('x-forwarded-proto') ?? 'https').split(',')[0]!.trim();
  const prefix = withoutSuffix(event.requestContext?.path ?? event.path, LLMS_PATH);
  if (!host || !/^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(host) || !/^https?$/.test(proto) || !/^(\/[A-Za-z0-9._~-]+)*$/.test(prefix)) return prefix;
  return `${proto}://${host}${prefix}`;
}

const withoutSuffix = (path: string, suffix: string) => (path.endsWith(suffix) ? path.slice(0, -suffix.length) : path);

export const llmsHandler = entryPoint('llms', async (event) => ({
  statusCode: 200,
  headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'public, max-age=300' },
  body: renderLlmsTxt(baseUrl(event)),
}));
