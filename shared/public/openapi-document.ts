import { entryPoint } from '../http/entry';

/** Where the OpenAPI document is served, without a key: the stack, the local gateway and the document itself use this path. */
export const OPENAPI_ROUTE = '/v1/openapi.json';

/** GET /v1/openapi.json: the generated OpenAPI 3.1 document (docs/openapi.json, `npm run docs`), cacheable for 5 minutes. */
export function openApiHandler(document: object) {
  let body: string | undefined;
  return entryPoint('openapi', async () => ({
    statusCode: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' },
    body: (body ??= JSON.stringify(document)),
  }));
}
