import document from '../docs/openapi.json';
import { openApiHandler } from '../shared/public/openapi-document';

// GET /v1/openapi.json, without a key: the generated OpenAPI 3.1 document (npm run docs).
export const handler = openApiHandler(document);
