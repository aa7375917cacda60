/**
 * Builds the API reference page (GET /docs, shared/public/reference-page.ts) with esbuild, as
 * dashboard/build.ts builds the dashboard: reference/app.ts with RapiDoc's prebuilt web component
 * (rapidoc, MIT) into one script, reference/reference.css, plus index.html (whose %BASE% the
 * function fills in). Every asset stays under API Gateway's cache entry (1 MB), or the build fails.
 *   - in memory for the local gateway (`buildReference()`);
 *   - to a folder when run as a script (`tsx reference/build.ts OUT_DIR`): the CDK stack does this
 *     while bundling the reference function, so the page ships inside that function.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import type { Assets } from '../shared/public/dashboard-assets';
import { MAX_ASSET_BYTES, REFERENCE_FILES } from '../shared/public/reference-page';

const HERE = __dirname;

export async function buildReference(): Promise<Assets> {
  const result = await esbuild.build({
    entryPoints: [
      { in: path.join(HERE, 'app.ts'), out: 'reference' },
      { in: path.join(HERE, 'reference.css'), out: 'reference' },
    ],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome100', 'firefox100', 'safari15'],
    outdir: '/out',
    write: false,
    legalComments: 'eof',
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  const text = (name: string) => {
    const file = result.outputFiles.find((f) => f.path === `/out/${name}`);
    if (!file) throw new Error(`reference build: ${name} missing`);
    return file.text;
  };
  const assets: Assets = {
    'index.html': { type: REFERENCE_FILES['index.html'], body: readFileSync(path.join(HERE, 'index.html'), 'utf8') },
    'assets/reference.js': { type: REFERENCE_FILES['assets/reference.js'], body: text('reference.js') },
    'assets/reference.css': { type: REFERENCE_FILES['assets/reference.css'], body: text('reference.css') },
  };
  for (const [name, asset] of Object.entries(assets)) {
    const bytes = Buffer.byteLength(asset.body);
    if (bytes >= MAX_ASSET_BYTES) throw new Error(`reference build: ${name} is ${bytes} bytes, over API Gateway's cache entry (${MAX_ASSET_BYTES})`);
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
