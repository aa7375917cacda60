/**
 * Builds the API reference page (GET /docs, shared/public/reference-page.ts) with esbuild, as
 * dashboard/build.ts builds the dashboard: reference/app.ts with Scalar's API reference
 * (@scalar/api-reference, MIT) and its stylesheet into ES modules split in chunks (each under API
 * Gateway's 1 MB cache entry), plus index.html.
 *   - in memory for the local gateway (`buildReference()`);
 *   - to a folder when run as a script (`tsx reference/build.ts OUT_DIR`), for the function's bundle.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import type { Assets } from '../shared/public/dashboard-assets';
import { assetType } from '../shared/public/reference-page';

const HERE = __dirname;

export async function buildReference(): Promise<Assets> {
  const result = await esbuild.build({
    entryPoints: [{ in: path.join(HERE, 'app.ts'), out: 'reference' }],
    bundle: true,
    minify: true,
    format: 'esm',
    splitting: true,
    target: ['es2022', 'chrome100', 'firefox100', 'safari15'],
    outdir: '/out/assets',
    write: false,
    legalComments: 'eof',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  const assets: Assets = { 'index.html': { type: assetType('index.html')!, body: readFileSync(path.join(HERE, 'index.html'), 'utf8') } };
  for (const f of result.outputFiles) {
    const name = path.relative('/out', f.path).split(path.sep).join('/');
    const type = assetType(name);
    if (type) assets[name] = { type, body: f.text };
  }
  return assets;
}

export async function writeReference(outDir: string): Promise<void> {
  for (const [file, asset] of Object.entries(await buildReference())) {
    mkdirSync(path.dirname(path.join(outDir, file)), { recursive: true });
    writeFileSync(path.join(outDir, file), asset.body);
  }
}

if (require.main === module) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: tsx reference/build.ts OUT_DIR');
  writeReference(out).catch((err) => {
    process.stderr.write(`reference build failed: ${String(err)}\n`);
    process.exit(1);
  });
}
