import type { APIGatewayProxyResult } from 'aws-lambda';
import document from '../docs/openapi.json';

// GET /v1/openapi.json, without a key: the generated OpenAPI 3.1 document (npm run docs).
const body = JSON.stringify(document);

export const handler = async (): Promise<APIGatewayProxyResult> => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' },
  body,
});
