/**
 * `npm run webhook-receiver`: a small local receiver for monitors' webhooks. Listens on
 * http://127.0.0.1:4000/ (PORT), verifies each delivery's Standard Webhooks signature with
 * WEBHOOK_SECRET (the whsec_… a monitor's creation printed), skips a webhook-id already seen, and
 * prints the event. Answers 204 (401 on a bad signature). RECEIVER_FAIL_FIRST=n answers 500 to the
 * first n deliveries, to watch the retries.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

const secret = process.env.WEBHOOK_SECRET;
const port = Number(process.env.PORT || 4000);
let failFirst = Number(process.env.RECEIVER_FAIL_FIRST || 0);
const seen = new Set<string>();

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

if (require.main === module) {
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
        const checked = secret ? verify(secret, req.headers, body) : undefined;
        if (checked === false) {
          process.stdout.write(`${new Date().toISOString()}  ${id}  BAD SIGNATURE: refused (401)\n`);
          return void res.writeHead(401).end();
        }
        const duplicate = seen.has(id);
        seen.add(id);
        let event: { type?: string; data?: { items?: unknown[] } } = {};
        try {
          event = JSON.parse(body);
        } catch {
          /* printed raw below */
        }
        const items = Array.isArray(event.data?.items) ? ` (${event.data!.items!.length} items)` : '';
        const mark = checked ? 'signature ok' : 'signature NOT checked: set WEBHOOK_SECRET';
        process.stdout.write(`${new Date().toISOString()}  ${id}  ${event.type ?? '?'}${items}  [${mark}]${duplicate ? '  duplicate, skipped' : ''}\n`);
        if (!duplicate) process.stdout.write(`${JSON.stringify(event, null, 2).slice(0, 2000)}\n`);
        res.writeHead(204).end();
      });
    })
    .listen(port, '127.0.0.1', () => process.stdout.write(`Webhook receiver on http://127.0.0.1:${port}/ ${secret ? '(verifying signatures)' : '(set WEBHOOK_SECRET=whsec_... to verify signatures)'}\n`));
}
