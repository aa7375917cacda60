import { COST } from '../accounting/teams';
import { RATE_LIMIT, config } from '../runtime/config';
import { entryPoint } from '../http/entry';
import { MCP_PATH } from '../api/agent-routes';
import { OPENAPI_ROUTE, configuredBase } from './openapi-document';
import { REFERENCE_PATH } from './reference-page';

export { configuredBase };
import { tools } from '../api/mcp-tools';
import { routedOperations } from '../operations';
import { parameters } from '../api/parameter-schema';

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
    `- [MCP server](${base}${MCP_PATH}): Streamable HTTP (stateless, JSON answers); POST JSON-RPC with the same API-key header. Tools: ${tools().map((t) => t.name).join(', ')}. Each operation tool takes the operation's parameters below; monitors-create takes \`{operation, params, intervalSeconds, webhookUrl}\` (the /v1/monitors body) and shows the signing secret once; an answer is a compact text plus the full \`{data, meta}\` as structured content; \`response_format: "full"\` writes it all as text.`,
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
  out.push(
    '',
    '## Docs',
    '',
    `- [OpenAPI 3.1 document](${base}${OPENAPI_ROUTE}): every operation, parameter, response schema and error, with examples that are real answers, without a key.`,
    `- [API reference](${base}${REFERENCE_PATH}): the same document to read in a browser, with a "try it" panel that calls this API with your own key.`,
    '',
  );
  return out.join('\n');
}

/** GET /llms.txt for the API at `base()` (the configured public address; the local gateway's own URL). */
export function llmsTxtHandler(base: () => string | undefined = () => config.publicBaseUrl) {
  return entryPoint('llms', async () => ({
    statusCode: 200,
    headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'public, max-age=300' },
    body: renderLlmsTxt(configuredBase(base())),
  }));
}

export const llmsHandler = llmsTxtHandler();
