import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { entryPoint } from '../http/entry';
import { ApiError } from '../http/errors';
import type { Asset, Assets } from './dashboard-assets';

/**
 * GET /docs: the API reference page, rendered in the browser from the OpenAPI document
 * (GET /v1/openapi.json) by Scalar's API reference, bundled into the page's own assets
 * (reference/build.ts): index.html at /docs, every script and stylesheet under /docs/assets/. Nothing
 * is loaded from another origin (the CSP below says so to the browser too), and its "Test Request"
 * sends a request with the reader's own key to this deployment. Public, the same for every caller:
 * cacheable like the dashboard's assets.
 */
export const REFERENCE_PATH = '/docs';
/** In index.html, replaced by the path before /docs (an API Gateway stage such as /prod). */
export const BASE_MARKER = '%BASE%';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** The built page (reference/build.ts wrote it there): index.html and assets/*. */
export function referenceAssetsFromDir(dir: string): Assets {
  const out: Assets = {};
  const walk = (rel: string): void => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const file = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(file);
      else if (TYPES[path.extname(e.name)]) out[file] = { type: TYPES[path.extname(e.name)]!, body: readFileSync(path.join(dir, file), 'utf8') };
    }
  };
  walk('');
  return out;
}

export const assetType = (file: string): string | undefined => TYPES[path.extname(file)];

const HEADERS = {
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  // Scalar sets inline styles (its components' style attributes and one <style> element): style-src
  // needs 'unsafe-inline'; scripts, documents and the requests "Test Request" sends stay on this origin.
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
  'cache-control': 'public, max-age=300',
};

export function referenceHandler(load: () => Assets | Promise<Assets>) {
  let assets: Promise<Assets> | undefined;
  return entryPoint('api-reference', async (event) => {
    const all = await (assets ??= Promise.resolve(load()));
    const full = event.requestContext?.path ?? event.path;
    const base = full.slice(0, Math.max(0, full.indexOf(REFERENCE_PATH)));
    const rest = event.path.slice(event.path.indexOf(REFERENCE_PATH) + REFERENCE_PATH.length).replace(/^\/+|\/+$/g, '');
    const page = all['index.html']!;
    if (rest === '') return { statusCode: 200, headers: { ...HEADERS, 'content-type': page.type }, body: page.body.replaceAll(BASE_MARKER, base) };
    // Own entries only: `constructor` or `__proto__` are names of Object.prototype, not assets.
    const asset: Asset | undefined = rest.startsWith('assets/') && Object.hasOwn(all, rest) ? all[rest] : undefined;
    if (asset) return { statusCode: 200, headers: { ...HEADERS, 'content-type': asset.type }, body: asset.body };
    throw new ApiError('NOT_FOUND', 'No such page of the API reference');
  });
}
