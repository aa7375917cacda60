/**
 * The examples of the OpenAPI document: real answers of the local API on the recorded data, captured
 * by test/contract/openapi-examples-capture.ts (`npm run docs` runs it first) into docs/openapi-examples.json,
 * which is committed. scripts/openapi.ts reads that file and puts each example beside its schema, so
 * rendering the document stays a pure function of committed files and the staleness test
 * (test/contract/openapi.test.ts) needs no capture; test/contract/openapi-examples.test.ts captures
 * again and fails when the committed file is not what the code answers today.
 *
 * Here: the file's shape, the two ways an answer is made readable and stable (`trim`, `Stabilizer`),
 * and `applyExamples`, which puts the examples into the document.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ERROR_STATUS, type ErrorCode } from '../shared/http/errors';

type Json = Record<string, unknown>;

export const EXAMPLES_FILE = path.join(__dirname, '..', 'docs', 'openapi-examples.json');

export interface Examples {
  /** `<method> <path>` (the document's path template) -> status -> the answer's body (2xx). */
  responses: Record<string, Record<string, unknown>>;
  /** `<method> <path>` -> error code -> the answer's body: the message the service answers for that case. */
  errors: Record<string, Record<string, unknown>>;
  /** Webhook event type -> the body a local receiver was sent. */
  webhooks: Record<string, unknown>;
}

export const readExamples = (file = EXAMPLES_FILE): Examples =>
  existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Examples) : { responses: {}, errors: {}, webhooks: {} };

export const renderExamples = (ex: Examples) => `${JSON.stringify(ex, null, 2)}\n`;

/** A list is cut to this many items, a long text to this many characters (plus an ellipsis). */
export const LIST_ITEMS = 2;
export const TEXT_CHARS = 160;

/**
 * A readable size: every list cut to its first LIST_ITEMS items, every long text shortened. A URL or
 * a token is never cut (it would stop being one); nothing is added, so the schema still holds.
 */
export function trim(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, LIST_ITEMS).map(trim);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, trim(v)]));
  if (typeof value === 'string' && value.length > TEXT_CHARS + 40 && /\s/.test(value) && !/^[a-z]+:\/\//i.test(value)) {
    return `${value.slice(0, TEXT_CHARS).trimEnd()}…`;
  }
  return value;
}

/** Where the captured answers' times are moved to: the run's start becomes this instant. */
export const STABLE_START = Date.parse('2026-01-15T09:00:00.000Z');
const HOUR = 3_600_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** Fields whose value is an id, a secret or a cursor the run made up (never a recorded one). */
const MADE_UP = /^(requestId|keyId|teamId|memberId|sessionId|monitorId|eventId|id|secret|cursor)$/;
/** Durations the run measured. */
const MEASURED = /^(ms|latencyMs|p50|p95)$/;
export const STABLE_MS = 120;

/**
 * Makes what differs from run to run stable, and nothing else: the ids, secrets and cursors the run
 * made up (each replaced, wherever it appears, by a stand-in of the same length and characters,
 * numbered by first appearance), its times (moved by whole hours relative to the run's start, so
 * "expires in 24 h" still reads so), today's date and the durations it measured. Recorded data inside
 * an operation's `data` (`recorded`) keeps its values: only the capture's `fetchedAt` and a cursor
 * there are the run's.
 */
/**
 * The prefixes of the service's made-up ids, kept in their stand-ins. Only these: a random value
 * (a session id is 9 random bytes in base64url) may itself begin with letters and `_`.
 */
const ID_PREFIXES = ['mon_', 'msg_', 'ep_', 'evt_', 'job_', 'upl_', 'whsec_'];

export class Stabilizer {
  private readonly tokens = new Map<string, string>();
  constructor(private readonly runStart: number) {}

  /** Every later mention of `from` (a port the run was given) reads `to`. */
  alias(from: string, to: string): void {
    this.tokens.set(from, to);
  }

  /** Registers a made-up value (a key's secret, a session id) so that every later mention of it is replaced too. */
  token(value: string): string {
    let stand = this.tokens.get(value);
    if (!stand) {
      const n = this.tokens.size + 1;
      // Characters from the token's number and position only (never from the value, which is random).
      const pick = (alphabet: string, i: number) => alphabet[(n * 7919 + i * 104_729 + ((n * i) % 31)) % alphabet.length]!;
      const HEX = '0123456789abcdef';
      if (UUID.test(value)) {
        stand = [...value].map((c, i) => (c === '-' ? c : i === 14 ? '4' : pick(HEX, i))).join('');
      } else {
        const prefix = ID_PREFIXES.find((p) => value.startsWith(p)) ?? '';
        const body = value.slice(prefix.length);
        const alphabet = /^[0-9a-f]+$/.test(body) ? HEX : /^[0-9]+$/.test(body) ? '0123456789' : 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
        const padding = /=*$/.exec(body)![0].length;
        stand = prefix + [...body].map((c, i) => (c === '.' || i >= body.length - padding ? c : pick(alphabet, i))).join('');
      }
      this.tokens.set(value, stand);
    }
    return stand;
  }

  private time(s: string): string {
    const t = Date.parse(s);
    if (t < this.runStart - 60_000) return s;
    return new Date(STABLE_START + Math.round((t - this.runStart) / HOUR) * HOUR).toISOString();
  }

  private day(s: string): string {
    const t = Date.parse(`${s}T00:00:00.000Z`);
    const today = Date.parse(`${new Date(this.runStart).toISOString().slice(0, 10)}T00:00:00.000Z`);
    if (Math.abs(t - today) > 400 * 24 * HOUR) return s;
    return new Date(Date.parse(new Date(STABLE_START).toISOString().slice(0, 10)) + (t - today)).toISOString().slice(0, 10);
  }

  /** `recorded`: the subtrees of recorded data (an operation's `data`, a webhook's items). */
  stable(value: unknown, recorded = false, key = ''): unknown {
    if (Array.isArray(value)) return value.map((v) => this.stable(v, recorded, key));
    if (value && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.stable(v, recorded && k !== 'fetchedAt' && k !== 'cursor', k)]));
    }
    if (typeof value === 'number' && MEASURED.test(key) && !recorded) return STABLE_MS;
    if (typeof value !== 'string') return value;
    if (recorded) return this.replaceKnown(value);
    if (MADE_UP.test(key) && value.length >= 8) return this.token(value);
    if (ISO.test(value)) return this.time(value);
    if (key === 'day' && DAY.test(value)) return this.day(value);
    return this.replaceKnown(value);
  }

  /** Every made-up value already seen, inside a longer text (a path, a message). */
  private replaceKnown(s: string): string {
    let out = s;
    for (const [from, to] of this.tokens) if (out.includes(from)) out = out.split(from).join(to);
    return out;
  }
}

const methodsOf = (item: Json) => Object.entries(item).filter(([m]) => ['get', 'post', 'put', 'patch', 'delete'].includes(m)) as [string, Json][];

/**
 * The document with its examples: each 2xx JSON response gets `example` (its captured answer), each
 * error response `examples` by error code, each webhook its captured body. A response without a
 * captured answer is left without one (never a made-up example).
 */
export function applyExamples(doc: Json, ex: Examples): Json {
  const paths = doc.paths as Record<string, Json>;
  for (const [p, item] of Object.entries(paths)) {
    for (const [method, op] of methodsOf(item)) {
      const at = `${method} ${p}`;
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const media = (response.content as Record<string, Json> | undefined)?.['application/json'];
        if (!media) continue;
        if (/^2/.test(status)) {
          const value = ex.responses[at]?.[status];
          if (value !== undefined) media.example = value;
          continue;
        }
        const codes = (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => String(ERROR_STATUS[c]) === status);
        const found = codes.filter((c) => ex.errors[at]?.[c] !== undefined);
        if (found.length) media.examples = Object.fromEntries(found.map((c) => [c, { value: ex.errors[at]![c] }]));
      }
    }
  }
  for (const [type, item] of Object.entries((doc.webhooks ?? {}) as Record<string, Json>)) {
    const value = ex.webhooks[type];
    const media = ((item.post as Json | undefined)?.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
    if (value !== undefined && media?.['application/json']) media['application/json'].example = value;
  }
  return doc;
}
