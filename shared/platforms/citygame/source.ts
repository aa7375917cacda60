import { logger } from '../../runtime/log';
import type { PlatformUpstream } from '../../scrape/upstream';

/**
 * citygame: the deployer's source of the daily bulletin. No public game, scraping API or page whose
 * daily bulletin carries the spec's five fields was found (docs/operations/citygame-daily.md), so
 * the service names none: the deployment does.
 *
 *   CITYGAME_SOURCE_URL  an https URL answering a JSON document or an HTML page (stack context
 *                        `citygameSourceUrl`). Unset: the operation answers 503 PLATFORM_UNAVAILABLE.
 *   CITYGAME_FIELDS      JSON: for each of date, weekday, weather, headline, tip, where the source
 *                        carries it: a JSON Pointer ("/bulletin/weather") for a JSON source, or a CSS
 *                        selector ("#bulletin .weather") for an HTML page (stack context
 *                        `citygameFields`). Default: the five names at the top level of a JSON document.
 *
 * The source's host is the only host the operation may reach. A deployment requires https; tests
 * and local runs may name a plain-http loopback source (http://127.0.0.1:<port>/…), as every
 * platform's UPSTREAM_<PLATFORM>_URL may.
 */
export const BULLETIN_FIELDS = ['date', 'weekday', 'weather', 'headline', 'tip'] as const;
export type BulletinField = (typeof BULLETIN_FIELDS)[number];

export const SOURCE_URL_VARIABLE = 'CITYGAME_SOURCE_URL';
export const FIELDS_VARIABLE = 'CITYGAME_FIELDS';

export interface CitygameSource {
  /** The URL the bulletin is read from, as configured. */
  url: string;
  /** Its path and query: what is asked of `upstream` (on the source's host, or its loopback override). */
  path: string;
  /** 'json': every field is a JSON Pointer; 'html': every field is a CSS selector. */
  kind: 'json' | 'html';
  fields: Record<BulletinField, string>;
  /** The upstream description the HTTP client gets: the source's host and nothing else. */
  upstream: PlatformUpstream;
}

/** A configuration the service cannot use; the message says what is wrong (never the URL's query). */
export class SourceConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceConfigError';
  }
}

const DEFAULT_FIELDS: Record<BulletinField, string> = { date: '/date', weekday: '/weekday', weather: '/weather', headline: '/headline', tip: '/tip' };

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Reads and checks the source configuration: undefined when no source is named; a SourceConfigError
 * when one is named but unusable. `deployment: true` (the stack at synth time) refuses plain http
 * even on a loopback host.
 */
export function parseSource(rawUrl: string | undefined, rawFields: string | undefined, opts: { deployment?: boolean } = {}): CitygameSource | undefined {
  const urlText = rawUrl?.trim();
  if (!urlText) {
    if (rawFields?.trim()) throw new SourceConfigError(`${FIELDS_VARIABLE} is set but ${SOURCE_URL_VARIABLE} is not`);
    return undefined;
  }
  const url = parseUrl(urlText, opts.deployment === true);
  const fields = parseFields(rawFields);
  return {
    url: url.toString(),
    path: url.pathname + url.search,
    kind: kindOf(fields),
    fields,
    upstream: upstreamOf(url),
  };
}

/** The source this process is configured with (environment variables, read on every call). */
export const configuredSource = (env: NodeJS.ProcessEnv = process.env) => parseSource(env[SOURCE_URL_VARIABLE], env[FIELDS_VARIABLE]);

/**
 * At a function's cold start: a deployment without a source, or with one it cannot use, says so in
 * its log once, before any request (each request then answers 503 PLATFORM_UNAVAILABLE).
 */
export function checkSourceAtColdStart(env: NodeJS.ProcessEnv = process.env): void {
  try {
    const source = configuredSource(env);
    if (!source) logger.warn('citygame: no source configured (CITYGAME_SOURCE_URL); /v1/citygame/daily answers 503 PLATFORM_UNAVAILABLE');
  } catch (err) {
    logger.error('citygame: the configured source is unusable; /v1/citygame/daily answers 503 PLATFORM_UNAVAILABLE', { cause: (err as Error).message });
  }
}

/**
 * The source's host is the only host the operation may reach, over https on the default port like
 * every platform's. A plain-http loopback source (tests, local runs) is reached as an override of
 * that host, as UPSTREAM_<PLATFORM>_URL would be (its loopback address allowed on purpose).
 */
function upstreamOf(url: URL): PlatformUpstream {
  const host = { platform: 'citygame', defaultBaseUrl: `https://${url.hostname}`, hosts: [url.hostname], headers: {} };
  return url.protocol === 'https:' ? host : { ...host, override: url.origin };
}

function parseUrl(text: string, deployment: boolean): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SourceConfigError(`${SOURCE_URL_VARIABLE} is not an absolute URL`);
  }
  if (url.username || url.password) throw new SourceConfigError(`${SOURCE_URL_VARIABLE} must not carry credentials`);
  if (url.protocol === 'https:') {
    if (url.port) throw new SourceConfigError(`${SOURCE_URL_VARIABLE} must be on https's default port (no port in the URL)`);
    return url;
  }
  if (url.protocol === 'http:' && !deployment && LOOPBACK_HOSTS.has(url.hostname)) return url;
  throw new SourceConfigError(
    deployment
      ? `${SOURCE_URL_VARIABLE} (context citygameSourceUrl) must be an https URL in a deployment; it is ${url.protocol}`
      : `${SOURCE_URL_VARIABLE} must be an https URL (plain http only on a loopback host, for tests and local runs); it is ${url.protocol}//${url.host}`,
  );
}

function parseFields(raw: string | undefined): Record<BulletinField, string> {
  if (raw === undefined || raw.trim() === '') return { ...DEFAULT_FIELDS };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new SourceConfigError(`${FIELDS_VARIABLE} is not JSON`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SourceConfigError(`${FIELDS_VARIABLE} must be a JSON object naming ${BULLETIN_FIELDS.join(', ')}`);
  }
  const given = parsed as Record<string, unknown>;
  const unknown = Object.keys(given).filter((k) => !(BULLETIN_FIELDS as readonly string[]).includes(k));
  if (unknown.length) throw new SourceConfigError(`${FIELDS_VARIABLE} names fields the bulletin does not have: ${unknown.join(', ')}`);
  const fields = {} as Record<BulletinField, string>;
  for (const name of BULLETIN_FIELDS) {
    const where = given[name];
    if (typeof where !== 'string' || where.trim() === '') {
      throw new SourceConfigError(`${FIELDS_VARIABLE} must give every field a JSON Pointer or a CSS selector; ${name} has none`);
    }
    fields[name] = where.trim();
  }
  return fields;
}

const JSON_POINTER = /^(\/([^~]|~[01])*)+$/;

/** A JSON Pointer starts with "/"; a CSS selector never does. All five must be of one kind. */
function kindOf(fields: Record<BulletinField, string>): 'json' | 'html' {
  const pointers = BULLETIN_FIELDS.filter((f) => fields[f].startsWith('/'));
  if (pointers.length === BULLETIN_FIELDS.length) {
    const bad = BULLETIN_FIELDS.filter((f) => !JSON_POINTER.test(fields[f]));
    if (bad.length) throw new SourceConfigError(`${FIELDS_VARIABLE}: not a JSON Pointer (RFC 6901: "~" only as ~0 or ~1): ${bad.join(', ')}`);
    return 'json';
  }
  if (pointers.length === 0) return 'html';
  throw new SourceConfigError(
    `${FIELDS_VARIABLE} mixes JSON Pointers (${pointers.join(', ')}) and CSS selectors: a source answers either JSON (all pointers) or HTML (all selectors)`,
  );
}
