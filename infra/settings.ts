import type { Construct } from 'constructs';
import { FIELDS_VARIABLE, SOURCE_URL_VARIABLE, parseSource } from '../shared/platforms/citygame/source';
import { configuredBase } from '../shared/public/llms-txt';

/**
 * What a deployment chooses, read once from the CDK context (cdk.json or `-c key=value`) and handed
 * to the stack's parts as typed props. docs/deployment.md's table explains each one.
 *
 *   scraperProxySecretArn  a Secrets Manager secret holding the scraper proxy URL (its complete ARN, or its
 *                          name): the functions get only that and read the value at cold start
 *                          (shared/runtime/secrets.ts), so the URL never enters git, cdk.out or the Lambda configuration.
 *   scraperProxyUrl        the proxy URL itself, as plain text in the template. For a proxy without
 *                          credentials only (refused with them); scraperProxySecretArn wins when both are given.
 *   stageRateLimit, stageBurstLimit  the stage's default throttle, which API Gateway applies to each key-authorised
 *                          method (all teams together), default 100 rps / 1200: at least the share of a method
 *                          of that route group (infra/edge.ts), else the synthesis fails.
 *   gatewayCache           false: no API Gateway cache; default: a 0.5 GB cache for the dashboard's
 *                          page and assets and the public documents (the same answer for every caller).
 *   publicUrl              the API's public address when it is not the stage's execute-api URL (a custom
 *                          domain and base path, https): the links of GET /llms.txt are written with it.
 *   dashboardOrigin        the origin browsers see the dashboard at (https://host), when it is not the
 *                          API's own host (a CDN or proxy in front that rewrites Host); the account API
 *                          checks the Origin of state-changing requests against it.
 *   shortvideoSignerUrl    SHORTVIDEO_SIGNER_URL of the shortvideo functions (an external signing
 *                          service); unset: the built-in X-Bogus signer.
 *   citygameSourceUrl, citygameFields  the citygame source (checked here: an unusable one fails the synthesis).
 *   wafRateLimit           false: no WAFv2 web ACL in front of the stage (a deployer with their own);
 *                          default: a web ACL that blocks an address above wafRateLimitPer5Min.
 *   wafRateLimitPer5Min    requests per address per 5 minutes (WAF's window), default 2000.
 *   kmsKey                 true: one customer-managed KMS key (rotated, retained) encrypts both
 *                          tables and the secrets; default: AWS-owned keys.
 *   outcomeShards          shards of the status page's outcome counters (writers and reader agree on it), default 2.
 *   canary, canaryIntervalMinutes, canaryInputs, canaryFailuresToAlarm, errorSharePercentToAlarm,
 *   alarmEmail             the canaries and alarms (infra/status.ts).
 */
export interface Settings {
  gatewayCache: boolean;
  kmsKey: boolean;
  outcomeShards: number;
  stageRateLimit: number;
  stageBurstLimit: number;
  /** The web ACL's overall per-address limit per 5 minutes; undefined: no web ACL (wafRateLimit=false). */
  wafRateLimitPer5Min?: number;
  /** The scraper proxy: the Secrets Manager secret holding its URL (a complete ARN or a name), or a URL without credentials. */
  scraperProxy?: { secret: string } | { url: string };
  shortvideoSignerUrl?: string;
  /** The citygame function's source variables (empty: none configured). */
  citygame: Record<string, string>;
  /** The API's public base URL, when it is not the stage's execute-api URL. */
  publicUrl?: string;
  dashboardOrigin?: string;
  status: StatusSettings;
}

export interface StatusSettings {
  /** false: no canary function, schedule or canary alarms. */
  canary: boolean;
  canaryIntervalMinutes: number;
  /** JSON {"<operation>": {…query}} over the defaults of shared/status/canary-inputs.ts. */
  canaryInputs?: string;
  canaryFailuresToAlarm: number;
  errorSharePercentToAlarm: number;
  alarmEmail?: string;
}

/** The stage's default throttle, applied to each key-authorised method: at least their route group's share (infra/edge.ts). */
export const STAGE_RATE_LIMIT = 100;
export const STAGE_BURST_LIMIT = 1200;
export const CANARY_INTERVAL_MINUTES = 10;

export function readSettings(scope: Construct): Settings {
  const context = (key: string) => scope.node.tryGetContext(key) as unknown;
  const canaryInputs = context('canaryInputs');
  const alarmEmail = context('alarmEmail');
  return {
    gatewayCache: booleanContext(scope, 'gatewayCache', true),
    kmsKey: booleanContext(scope, 'kmsKey', false),
    outcomeShards: numberContext(scope, 'outcomeShards', 2),
    stageRateLimit: numberContext(scope, 'stageRateLimit', STAGE_RATE_LIMIT),
    stageBurstLimit: numberContext(scope, 'stageBurstLimit', STAGE_BURST_LIMIT),
    ...(booleanContext(scope, 'wafRateLimit', true) ? { wafRateLimitPer5Min: numberContext(scope, 'wafRateLimitPer5Min', 2000) } : {}),
    ...optional('scraperProxy', scraperProxy(context('scraperProxySecretArn') as string | undefined, context('scraperProxyUrl') as string | undefined)),
    ...optional('shortvideoSignerUrl', context('shortvideoSignerUrl') as string | undefined),
    citygame: citygameEnvironment(context('citygameSourceUrl'), context('citygameFields')),
    ...optional('publicUrl', publicUrl(context('publicUrl'))),
    ...optional('dashboardOrigin', context('dashboardOrigin') as string | undefined),
    status: {
      canary: booleanContext(scope, 'canary', true),
      canaryIntervalMinutes: numberContext(scope, 'canaryIntervalMinutes', CANARY_INTERVAL_MINUTES),
      ...(canaryInputs ? { canaryInputs: typeof canaryInputs === 'string' ? canaryInputs : JSON.stringify(canaryInputs) } : {}),
      canaryFailuresToAlarm: numberContext(scope, 'canaryFailuresToAlarm', 3),
      errorSharePercentToAlarm: numberContext(scope, 'errorSharePercentToAlarm', 20),
      ...(typeof alarmEmail === 'string' && alarmEmail ? { alarmEmail } : {}),
    },
  };
}

const optional = <K extends string, V>(key: K, value: V | undefined) => (value ? { [key]: value } : {}) as { [k in K]?: V };

/** A context flag: true/false as JSON or as the `-c key=value` string. */
function booleanContext(scope: Construct, key: string, fallback: boolean): boolean {
  const raw = scope.node.tryGetContext(key) as unknown;
  if (raw === undefined || raw === '') return fallback;
  return !(raw === false || String(raw).toLowerCase() === 'false');
}

/** A positive number, as JSON or as the `-c key=value` string. */
function numberContext(scope: Construct, key: string, fallback: number): number {
  const raw = scope.node.tryGetContext(key) as unknown;
  const n = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(n) && n > 0 ? n : fallback;
}

/** scraperProxySecretArn wins; a plain URL with credentials is refused (they belong in a secret). */
function scraperProxy(secret: string | undefined, url: string | undefined): Settings['scraperProxy'] {
  if (secret) return { secret: proxySecret(secret) };
  if (!url) return undefined;
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(url)) {
    throw new Error('scraperProxyUrl carries credentials: put the URL in a Secrets Manager secret and name it with scraperProxySecretArn');
  }
  return { url };
}

/**
 * The proxy secret as the functions' role is granted it: a complete ARN (the six characters Secrets
 * Manager appends to the name included: the policy names exactly that secret) or a secret name
 * (infra/operations.ts grants the name's ARN pattern). A partial ARN would match no secret in IAM.
 */
function proxySecret(given: string): string {
  if (given.startsWith('arn:')) {
    if (/^arn:aws[\w-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[\w/+=.@-]+-[A-Za-z0-9]{6}$/.test(given)) return given;
    throw new Error('context scraperProxySecretArn: not the complete ARN of a Secrets Manager secret (arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>); give that, or the secret\'s name');
  }
  if (/^[\w/+=.@-]{1,512}$/.test(given)) return given;
  throw new Error('context scraperProxySecretArn: neither a Secrets Manager secret ARN nor a secret name (letters, digits and /_+=.@-)');
}

/** context publicUrl: an https base (a custom domain and its base path), else the synthesis fails. */
function publicUrl(given: unknown): string | undefined {
  if (given === undefined || given === '') return undefined;
  const base = typeof given === 'string' ? configuredBase(given) : '';
  if (!base.startsWith('https://')) throw new Error('context publicUrl must be an https URL without credentials, query or fragment (https://api.example.com or https://example.com/api)');
  return base;
}

/**
 * The citygame source the deployer names (context `citygameSourceUrl`, `citygameFields`), checked
 * here so that a synth with an unusable one (not https, fields that are not JSON) fails instead of
 * deploying a function that can only answer 503.
 */
function citygameEnvironment(url: unknown, rawFields: unknown): Record<string, string> {
  // Given as JSON in cdk.json, or as a JSON string with -c citygameFields='{…}'.
  const fields = rawFields === undefined || typeof rawFields === 'string' ? rawFields : JSON.stringify(rawFields);
  if (url !== undefined && typeof url !== 'string') throw new Error('context citygameSourceUrl must be a string (an https URL)');
  let source: ReturnType<typeof parseSource>;
  try {
    source = parseSource(url, fields, { deployment: true });
  } catch (err) {
    throw new Error(`context citygameSourceUrl / citygameFields: ${(err as Error).message}`);
  }
  if (!source) return {};
  return { [SOURCE_URL_VARIABLE]: source.url, ...(fields?.trim() ? { [FIELDS_VARIABLE]: fields } : {}) };
}
