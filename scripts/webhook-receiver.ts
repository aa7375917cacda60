/**
 * `npm run webhook-receiver`: a small local receiver for monitors' webhooks. Listens on
 * http://127.0.0.1:4000/ (PORT), verifies each delivery's Standard Webhooks signature against every
 * secret it knows, skips a webhook-id already seen, and prints the event. Answers 204 (401 when no
 * known secret verifies it). RECEIVER_FAIL_FIRST=n answers 500 to the first n deliveries, to watch
 * the retries.
 *
 * The secrets (the whsec_… a monitor's creation shows once): WEBHOOK_SECRET (one, or several
 * separated by commas or spaces), and the file .local/webhook-secrets (WEBHOOK_SECRETS_FILE), one a
 * line, read again on every delivery, so that a monitor created after the receiver started needs no
 * restart. `npm run -s webhook-receiver -- add-secret` adds one to that file (mode 0600): it reads a
 * monitor's creation answer (or a bare whsec_…) on standard input and prints the answer back, so the
 * creating curl can be piped into it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { appendFileSync, chmodSync, mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export const DEFAULT_SECRETS_FILE = path.join(__dirname, '..', '.local', 'webhook-secrets');
const secretsFile = (env: NodeJS.ProcessEnv = process.env) => env.WEBHOOK_SECRETS_FILE || DEFAULT_SECRETS_FILE;
const WHSEC = /whsec_[A-Za-z0-9+/=]+/g;

/** The few lines docs/monitors.md shows: HMAC-SHA256 of `id.timestamp.body`, keyed by the base64 after whsec_. */
export function verify(whsec: string, headers: http.IncomingHttpHeaders, body: string, now = Date.now()): boolean {
  const id = String(headers['webhook-id'] ?? '');
  const ts = String(headers['webhook-timestamp'] ?? '');
  if (!id || !ts || Math.abs(now / 1000 - Number(ts)) > 300) return false;
  const expected = Buffer.from(createHmac('sha256', Buffer.from(whsec.replace(/^whsec_/, ''), 'base64')).update(`${id}.${ts}.${body}`).digest('base64'));
  return String(headers['webhook-signature'] ?? '')
    .split(' ')
    .some((s) => {
      const given = Buffer.from(s.replace(/^v1,/, ''));
      return s.startsWith('v1,') && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** Every secret known now: WEBHOOK_SECRET's and the file's (read again on each call; a missing file is none). */
export function knownSecrets(env: NodeJS.ProcessEnv = process.env): string[] {
  let file = '';
  try {
    file = readFileSync(secretsFile(env), 'utf8');
  } catch {
    /* no file yet: no secret from it */
  }
  return [...new Set([...(env.WEBHOOK_SECRET ?? '').matchAll(WHSEC), ...file.matchAll(WHSEC)].map((m) => m[0]))];
}

/** Adds the secrets found in `text` (a monitor's creation answer, or a bare whsec_…) to the file, mode 0600; returns how many were new. */
export function addSecrets(text: string, env: NodeJS.ProcessEnv = process.env): number {
  const known = new Set(knownSecrets({ ...env, WEBHOOK_SECRET: '' }));
  const fresh = [...new Set([...text.matchAll(WHSEC)].map((m) => m[0]))].filter((s) => !known.has(s));
  if (!fresh.length) return 0;
  const file = secretsFile(env);
  mkdirSync(path.dirname(file), { recursive: true });
  appendFileSync(file, fresh.map((s) => `${s}\n`).join(''), { mode: 0o600 });
  chmodSync(file, 0o600);
  return fresh.length;
}

function addSecretFromStdin(): void {
  const chunks: Buffer[] = [];
  process.stdin.on('data', (c: Buffer) => chunks.push(c));
  process.stdin.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    process.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
    const added = addSecrets(text);
    const file = path.relative(process.cwd(), secretsFile()) || secretsFile();
    if (added) process.stderr.write(`webhook-receiver: ${added === 1 ? 'the signing secret' : `${added} signing secrets`} added to ${file}; a running receiver verifies with it from its next delivery\n`);
    else if (/whsec_/.test(text)) process.stderr.write(`webhook-receiver: that signing secret is in ${file} already\n`);
    else {
      process.stderr.write('webhook-receiver: no whsec_… secret on standard input (pipe the monitor creation answer, or echo the secret)\n');
      process.exitCode = 1;
    }
  });
}

function serve(): void {
  const port = Number(process.env.PORT || 4000);
  let failFirst = Number(process.env.RECEIVER_FAIL_FIRST || 0);
  const seen = new Set<string>();
  http
    .createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const id = String(req.headers['webhook-id'] ?? '');
        if (failFirst > 0) {
          failFirst--;
          process.stdout.write(`${new Date().toISOString()}  ${id}  answered 500 on purpose (RECEIVER_FAIL_FIRST)\n`);
          return void res.writeHead(500).end();
        }
        const secrets = knownSecrets();
        const checked = secrets.length ? secrets.some((s) => verify(s, req.headers, body)) : undefined;
        if (checked === false) {
          process.stdout.write(`${new Date().toISOString()}  ${id}  BAD SIGNATURE (none of ${secrets.length} known secrets): refused (401)\n`);
          return void res.writeHead(401).end();
        }
        const duplicate = seen.has(id);
        seen.add(id);
        let event: { type?: string; data?: { monitorId?: string; items?: unknown[] } } = {};
        try {
          event = JSON.parse(body);
        } catch {
          /* printed raw below */
        }
        const monitor = typeof event.data?.monitorId === 'string' ? ` ${event.data.monitorId}` : '';
        const items = Array.isArray(event.data?.items) ? ` (${event.data!.items!.length} items)` : '';
        const mark = checked ? 'signature ok' : 'signature NOT checked: no secret yet (add-secret, or WEBHOOK_SECRET)';
        process.stdout.write(`${new Date().toISOString()}  ${id}  ${event.type ?? '?'}${items}${monitor}  [${mark}]${duplicate ? '  duplicate, skipped' : ''}\n`);
        if (!duplicate) process.stdout.write(`${JSON.stringify(event, null, 2).slice(0, 2000)}\n`);
        res.writeHead(204).end();
      });
    })
    .listen(port, '127.0.0.1', () => {
      const n = knownSecrets().length;
      const file = path.relative(process.cwd(), secretsFile()) || secretsFile();
      process.stdout.write(`Webhook receiver on http://127.0.0.1:${port}/ (verifying signatures with the secrets of WEBHOOK_SECRET and ${file}, read at each delivery: ${n} now)\n`);
    });
}

if (require.main === module) {
  if (process.argv[2] === 'add-secret') addSecretFromStdin();
  else if (process.argv[2] === undefined) serve();
  else {
    process.stderr.write(`webhook-receiver: unknown command ${process.argv[2]} (none: listen; add-secret: add the secret piped in)\n`);
    process.exitCode = 2;
  }
}
