/**
 * `npm run docs`: writes docs/api.md from the operation table (shared/operations.ts), the error
 * codes (shared/errors.ts) and the cache ages (shared/validation.ts). Nothing about an operation is
 * written here by hand: change the table and regenerate. test/contract/docs.test.ts fails when
 * docs/api.md is not what `renderDocs()` gives.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { RATE_LIMIT } from '../shared/config';
import { ERROR_STATUS, type ErrorCode } from '../shared/errors';
import { answeredStatuses, operations, type Operation, type Status } from '../shared/operations';
import { CACHE_MAX_AGE_SECONDS } from '../shared/validation';
import { CLIENT_TABLE_PATH, OPENAPI_FILE, renderClientTable, renderOpenApi } from './openapi';

export const DOCS_PATH = path.join(__dirname, '..', 'docs', 'api.md');


const CONDITIONS: Record<ErrorCode, string> = {
  BAD_REQUEST: 'Request invalid; for paged operations, an invalid or expired cursor.',
  UNAUTHORIZED: 'API key missing, invalid or revoked.',
  INSUFFICIENT_CREDITS: 'Balance lower than the cost (1 credit).',
  NOT_FOUND: 'Content does not exist, was deleted, or is private, suspended, hidden or deactivated; also hidden following lists; also a hashtag unavailable in the region.',
  VALIDATION_ERROR: 'Invalid query parameters: a required one missing, neither or both of an either-or pair, an unknown or repeated parameter, or a malformed value. `details` lists `{path, message}`.',
  RATE_LIMITED: `Over the per-team rate limit (${RATE_LIMIT.requests} requests per ${RATE_LIMIT.windowSeconds} seconds); honour \`Retry-After\`.`,
  UPSTREAM_BLOCKED: 'The source blocked the request.',
  EXTRACTION_FAILED: 'The source returned unexpected data.',
  PLATFORM_UNAVAILABLE: 'The source is down.',
  SERVICE_UNAVAILABLE: 'The service is at capacity.',
};

const STATUS_TEXT: Record<Status, string> = {
  200: 'success envelope',
  400: 'invalid or expired cursor',
  401: 'missing, invalid or revoked key',
  402: 'not enough credits',
  404: 'not found or not public',
  422: 'invalid query parameters',
  429: 'rate limited',
  503: 'source blocked, unexpected data, source down, or service at capacity (with `Retry-After`)',
};

/** Markdown table cell: no pipes or line breaks. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
/** Prose: `<name>` placeholders must not read as HTML tags. */
const prose = (s: string) => cell(s).replace(/</g, '&lt;').replace(/>/g, '&gt;');

const codesFor = (status: number) => (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => ERROR_STATUS[c] === status);

function curlExample(op: Operation): string {
  const paired = new Set((op.oneOf ?? []).map(([, b]) => b));
  const shown = Object.entries(op.params).filter(([name, def]) => def.required || (op.oneOf ?? []).some(([a]) => a === name) || (!paired.has(name) && def.example !== undefined && !def.cursor));
  const lines = [`curl -sG "$API_URL${op.path}" \\`, `  -H "x-api-key: $API_KEY"${shown.length ? ' \\' : ''}`];
  shown.forEach(([name, def], i) => {
    const value = def.example ?? `<${name}>`;
    lines.push(`  --data-urlencode '${name}=${value.replace(/'/g, "'\\''")}'${i < shown.length - 1 ? ' \\' : ''}`);
  });
  return lines.join('\n');
}

function renderOperation(op: Operation): string[] {
  const out: string[] = [];
  const names = Object.keys(op.params);
  out.push(`## ${op.number}. \`GET ${op.path}\``, '');
  out.push(`- Status: **${op.status}**${op.status === 'planned' ? ' (parameters are defined; the operation is not deployed yet)' : ''}`);
  out.push(`- Platform: \`${op.platform}\``);
  out.push(`- ${prose(op.summary)}`, '');

  out.push('### Parameters', '');
  out.push('| Name | Required | Description | Example |', '|---|---|---|---|');
  for (const name of names) {
    const def = op.params[name]!;
    const either = (op.oneOf ?? []).find((pair) => pair.includes(name));
    const required = def.required ? 'yes' : either ? `one of \`${either[0]}\` / \`${either[1]}\`` : 'no';
    const description = def.cursor ? `${def.description}. An invalid or expired cursor gives 400.` : def.description;
    out.push(`| \`${name}\` | ${required} | ${prose(description)} | ${def.example !== undefined ? `\`${cell(def.example)}\`` : '—'} |`);
  }
  out.push(`| \`cache_max_age\` | no | Serve a cached result at most this old, for 0 credits: ${Object.keys(CACHE_MAX_AGE_SECONDS).map((k) => `\`${k}\``).join(', ')} | \`1d\` |`);
  out.push('');

  if (op.oneOf?.length) {
    out.push('Either-or rules:', '');
    for (const [a, b] of op.oneOf) out.push(`- Exactly one of \`${a}\` or \`${b}\` must be given; neither or both gives 422.`);
    out.push('');
  }
  out.push(`Page size: ${op.pageSize !== undefined ? `${op.pageSize} per page` : 'not paged'}.`, '');

  out.push('### Responses', '');
  for (const status of answeredStatuses(op)) {
    const codes = codesFor(status);
    const extra = op.responses.includes(status) ? '' : ' (not in the spec\'s list for this operation; its common rule applies)';
    out.push(`- **${status}**${extra}${codes.length ? ` ${codes.map((c) => `\`${c}\``).join(', ')}` : ''}: ${STATUS_TEXT[status]}`);
  }
  out.push('');

  out.push('### Example', '', '```sh', curlExample(op), '```', '');
  return out;
}

/** The whole of docs/api.md. */
export function renderDocs(): string {
  const out: string[] = [];
  out.push(
    '# API reference',
    '',
    '<!-- Generated by `npm run docs` (scripts/docs.ts) from shared/operations.ts, shared/errors.ts and shared/validation.ts. Do not edit by hand. -->',
    '',
    'A read-only HTTP API returning publicly visible social data as JSON. Every operation is a `GET` on `$API_URL` with the API key in the `x-api-key` header (or `Authorization: Bearer <key>`).',
    '',
    '## Operations',
    '',
    '| # | Path | Status | Summary |',
    '|---|---|---|---|',
  );
  const ordered = [...operations].sort((a, b) => a.number - b.number) as Operation[];
  for (const op of ordered) out.push(`| ${op.number} | \`${op.path}\` | ${op.status} | ${prose(op.summary)} |`);
  out.push('');

  out.push(
    '## Response envelope',
    '',
    'Success: HTTP 200 with',
    '',
    '```json',
    '{',
    '  "data": { "…": "operation-specific", "fetchedAt": "2026-01-01T00:00:00.000Z" },',
    '  "meta": { "requestId": "…", "creditsCharged": 1, "creditsRemaining": 99, "cached": false }',
    '}',
    '```',
    '',
    '| Field | Type | Notes |',
    '|---|---|---|',
    '| `data` | object | Operation-specific payload; always contains `fetchedAt` (ISO 8601 date-time, UTC). |',
    '| `meta.requestId` | string | Also sent as the `x-request-id` header. |',
    '| `meta.creditsCharged` | integer | 1 for a live scrape, 0 for a cache hit. |',
    '| `meta.creditsRemaining` | integer | The team balance after this request. |',
    '| `meta.cached` | boolean | True when the result came from the cache. |',
    '| `meta.cachedAt` | string, date-time | Only on a cache hit: when the cached result was fetched. |',
    '',
    'Each successful live scrape costs 1 credit; errors and cache hits cost 0.',
    '',
  );

  out.push('## Caching: `cache_max_age`', '', 'Every operation accepts `cache_max_age`. When a cached result of that age or newer exists it is returned with `meta.cached=true` and `meta.cachedAt`, for 0 credits; otherwise a fresh scrape runs (1 credit) and refreshes the cache. Without the parameter a fresh scrape always runs.', '');
  out.push('| Value | Maximum age |', '|---|---|');
  for (const [k, seconds] of Object.entries(CACHE_MAX_AGE_SECONDS)) out.push(`| \`${k}\` | ${seconds} s (${seconds / 86_400} day${seconds === 86_400 ? '' : 's'}) |`);
  out.push('');

  out.push('## Errors', '', 'Error body, with a matching HTTP status:', '', '```json', '{ "error": { "code": "VALIDATION_ERROR", "message": "Invalid query parameters", "requestId": "…", "details": [{ "path": "handle", "message": "Required" }] } }', '```', '');
  out.push('`details` is sent only with `VALIDATION_ERROR`. All 503 responses (and 429) carry a `Retry-After` header (seconds). Errors cost 0 credits.', '');
  out.push('| HTTP status | `error.code` | Condition |', '|---|---|---|');
  for (const [code, status] of Object.entries(ERROR_STATUS) as [ErrorCode, number][]) out.push(`| ${status} | \`${code}\` | ${prose(CONDITIONS[code])} |`);
  out.push('');

  out.push(
    '## Rate limit',
    '',
    `${RATE_LIMIT.requests} requests per ${RATE_LIMIT.windowSeconds} seconds per team (all keys of a team share it). Over the limit the answer is 429 \`RATE_LIMITED\` with a \`Retry-After\` header.`,
    '',
  );

  for (const op of ordered) out.push(...renderOperation(op));
  return `${out.join('\n').trimEnd()}\n`;
}

if (require.main === module) {
  mkdirSync(path.dirname(DOCS_PATH), { recursive: true });
  writeFileSync(DOCS_PATH, renderDocs());
  console.log(`wrote ${path.relative(process.cwd(), DOCS_PATH)}`);
  writeFileSync(OPENAPI_FILE, renderOpenApi());
  console.log(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}`);
  writeFileSync(CLIENT_TABLE_PATH, renderClientTable());
  console.log(`wrote ${path.relative(process.cwd(), CLIENT_TABLE_PATH)}`);
}
