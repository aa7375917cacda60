import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The command line run as its users run it: `node cli/bin.mjs …` (the package's bin) in a child
 * process, with the key and the address in its environment, and what it writes collected. The
 * same program, cli/main.ts, bundled once per jest run by esbuild (CLI_BUNDLE: test/support/global-setup.ts)
 * and run by plain node: cli/bin.mjs loads tsx and compiles the TypeScript again in every process
 * (about 0.35 s of CPU more a run). `source: true` runs cli/bin.mjs itself (so does a jest run without the bundle).
 */
const ROOT = path.join(__dirname, '..', '..', '..');
export const BIN = path.join(ROOT, 'cli', 'bin.mjs');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function cliEnv(apiUrl: string, apiKey?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, SOCIAL_DATA_API_URL: apiUrl };
  if (apiKey) env.SOCIAL_DATA_API_KEY = apiKey;
  else delete env.SOCIAL_DATA_API_KEY;
  return env;
}

type CliOptions = { cwd?: string; nodeArgs?: string[]; source?: boolean };

export function spawnCli(args: string[], env: NodeJS.ProcessEnv, opts: CliOptions = {}): { child: ChildProcess; result: Promise<CliResult> } {
  const bin = (!opts.source && process.env.CLI_BUNDLE) || BIN;
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), bin, ...args], { env, cwd: opts.cwd ?? tmpdir(), stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const result = new Promise<CliResult>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, result };
}

export const runCli = (args: string[], env: NodeJS.ProcessEnv, opts?: CliOptions) => spawnCli(args, env, opts).result;

export const tempDir = () => mkdtempSync(path.join(tmpdir(), 'social-data-cli-'));

/** The records of a JSON Lines text. */
export const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any -- records are arbitrary JSON

export const readJsonLines = (file: string) => jsonLines(readFileSync(file, 'utf8'));

/** Waits for `check` to hold (polling), failing with `what` after a long guard: a synchronisation, not a timing assertion. */
export async function until(check: () => boolean | Promise<boolean>, what: string, guardMs = 60_000): Promise<void> {
  const end = Date.now() + guardMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface Answered {
  path: string;
  status: number;
  /** When the request reached the proxy (ms). */
  at: number;
}

export interface Proxy {
  url: string;
  answered: Answered[];
  close(): Promise<void>;
}

/**
 * A proxy in front of the gateway that notes every answer's status. `deployed: true` drops the
 * RateLimit-* headers, as API Gateway does (the usage plan enforces the limit without telling it).
 */
export async function countingProxy(target: string, opts: { deployed?: boolean } = {}): Promise<Proxy> {
  const answered: Answered[] = [];
  const server = http.createServer((req, res) => {
    const at = Date.now();
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && k !== 'host') headers[k] = v;
    void fetch(target + (req.url ?? '/'), { headers, redirect: 'manual' })
      .then(async (answer) => {
        const out: Record<string, string> = {};
        answer.headers.forEach((value, name) => {
          if (['content-length', 'content-encoding', 'transfer-encoding'].includes(name)) return;
          if (opts.deployed && name.startsWith('ratelimit-')) return;
          out[name] = value;
        });
        const body = Buffer.from(await answer.arrayBuffer());
        answered.push({ path: new URL(req.url ?? '/', 'http://x').pathname, status: answer.status, at });
        res.writeHead(answer.status, out);
        res.end(body);
      })
      .catch((err: unknown) => {
        res.writeHead(502);
        res.end(String(err));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answered,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
