import { readFileSync } from 'node:fs';
import path from 'node:path';
import { entryPoint } from '../http/entry';
import { ApiError } from '../http/errors';
import { DASHBOARD_PATH } from '../api/account-routes';
import { config } from '../runtime/config';

/**
 * The dashboard's single-page app: index.html for each page path, and the bundled script and
 * stylesheet (dashboard/build.ts). In Lambda the assets sit next to the function's bundle (copied
 * there at bundling time); the local gateway builds them in memory.
 */
export interface Asset {
  type: string;
  body: string;
}
export type Assets = Record<string, Asset>;

export const ASSET_FILES = { 'index.html': 'text/html; charset=utf-8', 'assets/app.js': 'text/javascript; charset=utf-8', 'assets/app.css': 'text/css; charset=utf-8' } as const;
export const PAGES = ['', 'sign-in', 'set-password', 'keys', 'credits', 'usage', 'requests', 'monitors', 'jobs', 'webhooks', 'members', 'status'];
/** In index.html, replaced by the path before /dashboard (an API Gateway stage such as /prod). */
export const BASE_MARKER = '%BASE%';
/** In index.html, replaced by the floor of a monitor's interval the monitors API applies here (the Monitors page's hint and check). */
export const MIN_INTERVAL_MARKER = '%MONITOR_MIN_INTERVAL%';

export function assetsFromDir(dir: string): Assets {
  const out: Assets = {};
  for (const [file, type] of Object.entries(ASSET_FILES)) out[file] = { type, body: readFileSync(path.join(dir, file), 'utf8') };
  return out;
}

/**
 * The origin of the jobs' results bucket's pre-signed URLs (virtual-hosted style, the SDK's default:
 * shared/jobs/files.ts), which the Jobs page PUTs an input file to and reads errors.jsonl from; none
 * off AWS, where those URLs are this origin's (/local-files/).
 */
export const jobFilesOrigin = () => (config.jobsBucket ? `https://${config.jobsBucket}.s3.${config.region}.amazonaws.com` : null);

/** With the headers every answer has (shared/http/envelope.ts baseHeaders: nosniff, x-request-id). */
const securityHeaders = () => ({
  'referrer-policy': 'no-referrer', // the set-password link carries its token in the query
  'x-frame-options': 'DENY',
  'content-security-policy': `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'${jobFilesOrigin() ? ` ${jobFilesOrigin()}` : ''}; font-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
});

export function dashboardHandler(load: () => Assets | Promise<Assets>) {
  let assets: Promise<Assets> | undefined;
  return entryPoint('dashboard', async (event) => {
    const all = await (assets ??= Promise.resolve(load()));
    const full = event.requestContext?.path ?? event.path;
    const base = full.slice(0, Math.max(0, full.indexOf(DASHBOARD_PATH)));
    const rest = event.path.slice(event.path.indexOf(DASHBOARD_PATH) + DASHBOARD_PATH.length).replace(/^\/+|\/+$/g, '');
    if (PAGES.includes(rest)) {
      return {
        statusCode: 200,
        headers: { ...securityHeaders(), 'content-type': all['index.html']!.type, 'cache-control': 'no-store' },
        body: all['index.html']!.body.replaceAll(BASE_MARKER, base).replaceAll(MIN_INTERVAL_MARKER, String(config.monitorMinIntervalSeconds)),
      };
    }
    // Own entries only: `constructor`, `__proto__` or `toString` are names of Object.prototype, not assets.
    const asset = Object.hasOwn(all, rest) ? all[rest] : undefined;
    if (asset && rest !== 'index.html') {
      return { statusCode: 200, headers: { ...securityHeaders(), 'content-type': asset.type, 'cache-control': 'no-cache' }, body: asset.body };
    }
    throw new ApiError('NOT_FOUND', 'No such dashboard page');
  });
}
