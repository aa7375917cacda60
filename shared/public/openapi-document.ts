import { entryPoint } from '../http/entry';
import { config } from '../runtime/config';

/** Where the OpenAPI document is served, without a key: the stack, the local gateway and the document itself use this path. */
export const OPENAPI_ROUTE = '/v1/openapi.json';

/**
 * The API's public address as configured (PUBLIC_BASE_URL: the stack sets the stage's URL, or the
 * deployer's own with context publicUrl), never the request's Host or X-Forwarded-* headers: the
 * answer is cacheable and names the MCP URL agents send their keys to, so nothing a caller sends may
 * change a link. Without a usable configured address the links are relative.
 */
export function configuredBase(raw: string | undefined): string {
  if (!raw) return '';
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return '';
  }
  if (!/^https?:$/.test(u.protocol) || u.username || u.password || u.search || u.hash) return '';
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/**
 * GET /v1/openapi.json: the generated OpenAPI 3.1 document (docs/openapi.json, `npm run docs`),
 * cacheable for 5 minutes, its `servers` this deployment: the configured public address
 * (PUBLIC_BASE_URL, as llms.txt's links), else the path before the document (an API Gateway stage
 * such as /prod, relative to the document's own origin). So a reader's "try it" (GET /docs) and a
 * client generated from the served document call this deployment, never the file's `npm start` server.
 */
export function openApiHandler(document: object, base: () => string | undefined = () => config.publicBaseUrl) {
  const bodies = new Map<string, string>();
  return entryPoint('openapi', async (event) => {
    const full = event.requestContext?.path ?? event.path ?? OPENAPI_ROUTE;
    const here = configuredBase(base()) || full.slice(0, Math.max(0, full.indexOf(OPENAPI_ROUTE))) || '/';
    let body = bodies.get(here);
    if (body === undefined) bodies.set(here, (body = JSON.stringify({ ...document, servers: [{ url: here, description: 'This deployment' }] })));
    return { statusCode: 200, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' }, body };
  });
}
