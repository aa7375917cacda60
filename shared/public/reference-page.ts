import { readFileSync } from 'node:fs';
import path from 'node:path';
import { entryPoint } from '../http/entry';
import { ApiError } from '../http/errors';
import type { Assets } from './dashboard-assets';

/**
 * GET /docs: the API reference page, rendered in the browser from the OpenAPI document
 * (GET /v1/openapi.json) by RapiDoc's web component, bundled into the page's own assets
 * (reference/build.ts): index.html at /docs, its script and stylesheet under /docs/assets/. Nothing
 * is loaded from another origin (the CSP below says so to the browser too), and its "Try" sends a
 * request with the reader's own key to this deployment. Public, the same for every caller: cached at
 * the gateway like the dashboard's page and assets (infra/edge.ts, route group `reference`).
 */
export const REFERENCE_PATH = '/docs';
/** In index.html, replaced by the path before /docs (an API Gateway stage such as /prod). */
export const BASE_MARKER = '%BASE%';
/** API Gateway's cache keeps no answer of 1 MB or more: every asset stays under it (reference/build.ts checks). */
export const MAX_ASSET_BYTES = 1_048_576;

export const REFERENCE_FILES = {
  'index.html': 'text/html; charset=utf-8',
  'assets/reference.js': 'text/javascript; charset=utf-8',
  'assets/reference.css': 'text/css; charset=utf-8',
} as const;

/** The built page (reference/build.ts wrote it there). */
export function referenceAssetsFromDir(dir: string): Assets {
  const out: Assets = {};
  for (const [file, type] of Object.entries(REFERENCE_FILES)) out[file] = { type, body: readFileSync(path.join(dir, file), 'utf8') };
  return out;
}

/** With the headers every answer has (shared/http/envelope.ts baseHeaders: nosniff, x-request-id). */
export const REFERENCE_HEADERS = {
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  // RapiDoc's templates set style attributes: style-src needs 'unsafe-inline'. Scripts, fonts, images
  // and the requests "Try" sends stay on this origin.
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
  // The gateway keeps each answer 60 s (infra/edge.ts); a browser revalidates.
  'cache-control': 'public, max-age=60',
} as const;

export function referenceHandler(load: () => Assets | Promise<Assets>) {
  let assets: Promise<Assets> | undefined;
  return entryPoint('api-reference', async (event) => {
    const all = await (assets ??= Promise.resolve(load()));
    const full = event.requestContext?.path ?? event.path;
    const base = full.slice(0, Math.max(0, full.indexOf(REFERENCE_PATH)));
    const rest = event.path.slice(event.path.indexOf(REFERENCE_PATH) + REFERENCE_PATH.length).replace(/^\/+|\/+$/g, '');
    if (rest === '') {
      const page = all['index.html']!;
      return { statusCode: 200, headers: { ...REFERENCE_HEADERS, 'content-type': page.type }, body: page.body.replaceAll(BASE_MARKER, base) };
    }
    // Own entries only: `constructor` or `__proto__` are names of Object.prototype, not assets.
    const asset = rest.startsWith('assets/') && Object.hasOwn(all, rest) ? all[rest] : undefined;
    if (asset) return { statusCode: 200, headers: { ...REFERENCE_HEADERS, 'content-type': asset.type }, body: asset.body };
    throw new ApiError('NOT_FOUND', 'No such page of the API reference');
  });
}
