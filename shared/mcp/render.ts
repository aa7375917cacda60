import type { ErrorCode, ValidationDetail } from '../http/errors';
import type { ResponseFormat, ToolDef } from '../api/mcp-tools';

/**
 * A tool's answer as MCP returns it. The structured content is the API's own envelope, whole:
 * `{data, meta}` on success, `{error}` (with `retryAfter`, the Retry-After header's seconds) on an
 * error. The text is written for a model to read: compact by default (lists trimmed with a count of
 * what was left out, long texts cut, empty fields dropped, the cursor of the next page spelt out),
 * or the whole envelope as JSON with response_format "full".
 */
export interface ErrorAnswer {
  code: ErrorCode;
  message: string;
  requestId: string;
  details?: ValidationDetail[];
  /** Seconds to wait before trying again (429 and 503). */
  retryAfter?: number;
}

export type Answer = { data: Record<string, unknown>; meta: Record<string, unknown> } | { error: ErrorAnswer };

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/** How much of an answer the compact text shows. */
export const COMPACT = {
  /** Items shown of a list that is not inside another list (posts, comments, following, replies, blocks). */
  listItems: 10,
  /** Items shown of a list inside a list's item (media, mentions, hashtags of one post). */
  nestedItems: 3,
  /** Objects nested deeper than this show only their name (handle, id, ...) and how many fields they have. */
  depth: 3,
  /** Characters shown of one text. */
  chars: 280,
  /** A URL longer than this is left to the structured content (cut, it would be a broken link). */
  urlChars: 160,
  /** Short fields share a line up to this width. */
  width: 160,
} as const;

export function toolResult(tool: ToolDef, answer: Answer, format: ResponseFormat = 'compact'): ToolResult {
  if ('error' in answer) return errorResult(answer.error, format);
  return { content: [{ type: 'text', text: format === 'full' ? JSON.stringify(answer) : compactText(tool, answer) }], structuredContent: answer };
}

export function errorResult(error: ErrorAnswer, format: ResponseFormat = 'compact'): ToolResult {
  return { isError: true, content: [{ type: 'text', text: format === 'full' ? JSON.stringify({ error }) : errorText(error) }], structuredContent: { error } };
}

export function errorText(e: ErrorAnswer): string {
  return [
    `${e.code}: ${e.message}`,
    ...(e.details ?? []).map((d) => `- ${d.path}: ${d.message}`),
    ...(e.retryAfter !== undefined ? [`Retry after ${e.retryAfter} s.`] : []),
    `(request ${e.requestId}; no credits charged)`,
  ].join('\n');
}

interface Trimmed {
  /** Per list name, the items left out (over every list of that name). */
  items: Map<string, number>;
  texts: number;
  urls: number;
  /** Objects already written (by their JSON), with the label that refers to them. */
  seen: Map<string, string>;
}

function compactText(tool: ToolDef, answer: { data: Record<string, unknown>; meta: Record<string, unknown> }): string {
  const { meta } = answer;
  const { data, secret } = withoutSecret(answer.data);
  const trimmed: Trimmed = { items: new Map(), texts: 0, urls: 0, seen: new Map() };
  const lines = [headline(tool, meta), ...(secret ? secretLines(secret, 'job' in answer.data ? JOB_LOST : MONITOR_LOST) : []), ...block(data, 0, '', false, trimmed)];
  if ('cursor' in data) {
    lines.push(
      typeof data.cursor === 'string' && data.cursor
        ? `Next page: call ${tool.name} again with the same arguments and cursor "${data.cursor}".`
        : 'This is the last page.',
    );
  }
  const parts = [
    ...[...trimmed.items].map(([list, left]) => `${left} more ${list}`),
    ...(trimmed.texts ? [`${trimmed.texts} long text${trimmed.texts > 1 ? 's' : ''} cut`] : []),
    ...(trimmed.urls ? [`${trimmed.urls} long URL${trimmed.urls > 1 ? 's' : ''} left out`] : []),
  ];
  if (parts.length) {
    const again = 'operation' in tool.target ? ' and cache_max_age "1d" (0 credits)' : '';
    lines.push(`Trimmed for reading (${parts.join(', ')}): the structured content has everything; or call again with response_format "full"${again} to read it all as JSON.`);
  }
  return lines.join('\n');
}

/**
 * A signing secret shown in that answer only (monitors-create's monitor.secret, jobs-submit's
 * job.webhook.secret): taken out of the fields, so it is never cut or left for a "more" line, and
 * written whole on lines of its own.
 */
function withoutSecret(data: Record<string, unknown>): { data: Record<string, unknown>; secret?: string } {
  const monitor = data.monitor;
  if (isObject(monitor) && typeof monitor.secret === 'string') {
    const { secret, ...rest } = monitor;
    return { data: { ...data, monitor: rest }, secret };
  }
  const job = data.job;
  const hook = isObject(job) ? job.webhook : undefined;
  if (isObject(job) && isObject(hook) && typeof hook.secret === 'string') {
    const { secret, ...rest } = hook;
    return { data: { ...data, job: { ...job, webhook: rest } }, secret };
  }
  return { data };
}

const MONITOR_LOST = 'Lost, it can only be replaced (POST /v1/monitors/{id}/rotate-secret).';
const JOB_LOST = "Lost, a job's webhook secret cannot be read again: submit a new job.";
const secretLines = (secret: string, lost: string) => [
  `SIGNING SECRET (shown this once; it cannot be read again): ${secret}`,
  `Store it with the webhook receiver now: it verifies the webhook-signature header of every delivery (Standard Webhooks). ${lost}`,
];

function headline(tool: ToolDef, meta: Record<string, unknown>): string {
  const charged = Number(meta.creditsCharged ?? 0);
  const how = meta.cached === true ? `cached result of ${String(meta.cachedAt)}` : meta.cached === false ? 'live result' : 'result';
  const left = typeof meta.creditsRemaining === 'number' ? `, ${meta.creditsRemaining} left` : '';
  return `${tool.name}: ${how}; ${charged} credit${charged === 1 ? '' : 's'} charged${left} (request ${String(meta.requestId)}).`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmpty = (v: unknown): boolean =>
  v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.values(v).every(isEmpty));
const isScalar = (v: unknown) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
/** Numbers, flags and one-word texts (ids, handles, dates) share a line; prose gets its own. */
const isShort = (v: unknown) => typeof v === 'number' || typeof v === 'boolean' || (typeof v === 'string' && v.length <= 40 && !/\s/.test(v));

function scalar(v: unknown, trimmed: Trimmed): string {
  if (typeof v !== 'string') return String(v);
  let s = v;
  if (/^https?:\/\//.test(s) && s.length > COMPACT.urlChars) {
    trimmed.urls++;
    return `(URL of ${s.length} characters)`;
  }
  if (s.length > COMPACT.chars) {
    trimmed.texts++;
    s = `${s.slice(0, COMPACT.chars)}…(+${s.length - COMPACT.chars} chars)`;
  }
  // One line per text: one with line breaks, or that would read as something else, is quoted.
  return /[\n\r]|^\s|\s$|^[-[{("'#]|, /.test(s) ? JSON.stringify(s) : s;
}

/** What names an object in one line (written before, or too deep): its first naming field and its size. */
function label(obj: Record<string, unknown>): string {
  const fields = `${Object.values(obj).filter((v) => !isEmpty(v)).length} fields`;
  for (const key of ['handle', 'username', 'name', 'title', 'id', 'did', 'url']) {
    if (typeof obj[key] === 'string' || typeof obj[key] === 'number') return `${key}: ${String(obj[key])}, ${fields}`;
  }
  return fields;
}

/** An object's fields at `pad`: empty ones left out, short ones sharing lines. `inList`: within a list's item. */
function block(obj: Record<string, unknown>, depth: number, pad: string, inList: boolean, trimmed: Trimmed): string[] {
  const lines: string[] = [];
  let line = '';
  const flush = () => {
    if (line) lines.push(pad + line);
    line = '';
  };
  for (const [key, value] of Object.entries(obj)) {
    if (isEmpty(value)) continue;
    if (isShort(value)) {
      const piece = `${key}: ${scalar(value, trimmed)}`;
      if (line && line.length + piece.length + 2 > COMPACT.width) flush();
      line = line ? `${line}, ${piece}` : piece;
      continue;
    }
    flush();
    lines.push(...field(key, value, depth, pad, inList, trimmed));
  }
  flush();
  return lines;
}

function field(key: string, value: unknown, depth: number, pad: string, inList: boolean, trimmed: Trimmed): string[] {
  if (Array.isArray(value)) return list(key, value, depth, pad, inList, trimmed);
  if (!isObject(value)) return [`${pad}${key}: ${scalar(value, trimmed)}`];
  const inline = inlineObject(value, trimmed);
  if (inline) return [`${pad}${key}: ${inline}`];
  const known = trimmed.seen.get(JSON.stringify(value));
  if (known) return [`${pad}${key}: (as above, ${known})`];
  if (depth + 1 > COMPACT.depth) return [`${pad}${key}: {${label(value)}}`];
  trimmed.seen.set(JSON.stringify(value), label(value));
  return [`${pad}${key}:`, ...block(value, depth + 1, `${pad}  `, inList, trimmed)];
}

/** A small object of short fields on one line, `{a: 1, b: x}`; null when it does not fit. */
function inlineObject(obj: Record<string, unknown>, trimmed: Trimmed): string | null {
  const entries = Object.entries(obj).filter(([, v]) => !isEmpty(v));
  if (!entries.every(([, v]) => isShort(v))) return null;
  const text = `{${entries.map(([k, v]) => `${k}: ${scalar(v, trimmed)}`).join(', ')}}`;
  return text.length <= COMPACT.width ? text : null;
}

function list(key: string, items: unknown[], depth: number, pad: string, inList: boolean, trimmed: Trimmed): string[] {
  const limit = inList ? COMPACT.nestedItems : COMPACT.listItems;
  const shown = items.slice(0, limit).filter((i) => !isEmpty(i));
  const left = items.length - Math.min(items.length, limit);
  if (left > 0) trimmed.items.set(key, (trimmed.items.get(key) ?? 0) + left);
  if (shown.every(isScalar)) {
    return [`${pad}${key}: [${shown.map((i) => scalar(i, trimmed)).join(', ')}]${left > 0 ? ` … ${left} more not shown` : ''}`];
  }
  const out = [`${pad}${key}: (${items.length})`];
  for (const item of shown) {
    let lines: string[];
    if (!isObject(item)) lines = [Array.isArray(item) ? `[${item.length} items]` : scalar(item, trimmed)];
    else lines = inlineObject(item, trimmed) !== null ? [inlineObject(item, trimmed)!] : depth + 1 > COMPACT.depth ? [`{${label(item)}}`] : block(item, depth + 1, '', true, trimmed);
    const [first = '{}', ...rest] = lines;
    out.push(`${pad}- ${first}`, ...rest.map((l) => `${pad}  ${l}`));
  }
  if (left > 0) out.push(`${pad}… ${left} more ${key} not shown`);
  return out;
}
