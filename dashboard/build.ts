/**
 * Builds the dashboard's single-page app with esbuild: dashboard/app.ts (the shell) with its pages
 * (dashboard/pages/), Preact, htm and chart.js into one script (with the monitorable operations'
 * parameters: MONITOR_FORMS), dashboard/app.css into one stylesheet, plus index.html (whose
 * %BASE% and %MONITOR_MIN_INTERVAL% the dashboard function fills in when it serves a page).
 *   - in memory for the local gateway (`buildDashboard()`);
 *   - to a folder when run as a script (`tsx dashboard/build.ts OUT_DIR`): the CDK stack does this
 *     while bundling the dashboard function, so the assets ship inside that function.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { ASSET_FILES, type Assets } from '../shared/public/dashboard-assets';
import { monitorForms } from '../shared/monitors/forms';

const HERE = __dirname;

export async function buildDashboard(): Promise<Assets> {
  const result = await esbuild.build({
    entryPoints: [
      { in: path.join(HERE, 'app.ts'), out: 'app' },
      { in: path.join(HERE, 'app.css'), out: 'app' },
    ],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2022', 'chrome100', 'firefox100', 'safari15'],
    outdir: '/out',
    write: false,
    legalComments: 'eof',
    // The Monitors page's form per operation, from the operation table (shared/monitors/forms.ts).
    define: { MONITOR_FORMS: JSON.stringify(monitorForms()) },
    logLevel: 'warning',
  });
  const text = (name: string) => {
    const file = result.outputFiles.find((f) => f.path === `/out/${name}`);
    if (!file) throw new Error(`dashboard build: ${name} missing`);
    return file.text;
  };
  return {
    'index.html': { type: ASSET_FILES['index.html'], body: readFileSync(path.join(HERE, 'index.html'), 'utf8') },
    'assets/app.js': { type: ASSET_FILES['assets/app.js'], body: text('app.js') },
    'assets/app.css': { type: ASSET_FILES['assets/app.css'], body: text('app.css') },
  };
}

export async function writeDashboard(outDir: string): Promise<void> {
  const assets = await buildDashboard();
  for (const [file, asset] of Object.entries(assets)) {
    mkdirSync(path.dirname(path.join(outDir, file)), { recursive: true });
    writeFileSync(path.join(outDir, file), asset.body);
  }
}

if (require.main === module) {
  const out = process.argv[2];
  if (!out) throw new Error('usage: tsx dashboard/build.ts OUT_DIR');
  writeDashboard(out).catch((err) => {
    process.stderr.write(`dashboard build failed: ${String(err)}\n`);
    process.exit(1);
  });
}
