import { loaded } from './secrets';

/**
 * Every setting comes from the environment with a safe default; the configuration tables (README,
 * docs/configuration.md) list each of them. Read lazily so tests and the local gateway can set the
 * environment first.
 */
const num = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const n = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
};

/**
 * The whole scrape, retries included, must end by then: the functions time out at 28 s (API Gateway
 * gives up at 29 s), which leaves 8 s to settle or refund and answer. The stack sets it explicitly.
 */
export const DEFAULT_SCRAPE_DEADLINE_MS = 20_000;

/** The shortest interval of a monitor unless MONITOR_MIN_INTERVAL_SECONDS lowers it (local runs and tests). */
export const DEFAULT_MONITOR_MIN_INTERVAL_SECONDS = 60;

export const config = {
  get accountsTable() {
    return process.env.ACCOUNTS_TABLE || 'social-data-accounts';
  },
  get cacheTable() {
    return process.env.CACHE_TABLE || 'social-data-cache';
  },
  /** The event engine's table: monitors, their state, events and deliveries (shared/db/tables.ts EVENTS). */
  get eventsTable() {
    return process.env.EVENTS_TABLE || 'social-data-events';
  },
  /** Set for DynamoDB Local; unset in AWS. */
  get dynamoEndpoint() {
    return process.env.DYNAMODB_ENDPOINT || undefined;
  },
  get region() {
    return process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || 'us-east-1';
  },
  /** DEFAULT_SCRAPE_DEADLINE_MS unless set. */
  get scrapeDeadlineMs() {
    return num('SCRAPE_DEADLINE_MS', DEFAULT_SCRAPE_DEADLINE_MS);
  },
  /** One upstream attempt. */
  get upstreamTimeoutMs() {
    return num('UPSTREAM_TIMEOUT_MS', 8_000);
  },
  /** Extra attempts after a network error or a 5xx. */
  get upstreamRetries() {
    return num('UPSTREAM_RETRIES', 2);
  },
  /**
   * The first wait before an upstream attempt is repeated (jittered to 50–100%, doubling per
   * further attempt). The tests shorten it: they prove how many attempts are made, not how long
   * the service waits between them.
   */
  get upstreamRetryBaseMs() {
    return num('UPSTREAM_RETRY_BASE_MS', 150);
  },
  /**
   * One DynamoDB attempt (the SDK makes 3); without it a hung connection would hold the request until
   * Lambda's timeout. DynamoDB answers in milliseconds; the 8 s between the scrape deadline and the
   * function's timeout must hold a settle, its check and a refund even when DynamoDB hangs.
   */
  get dynamoTimeoutMs() {
    return num('DYNAMODB_TIMEOUT_MS', 1_000);
  },
  /** Opening a connection to DynamoDB, per attempt. */
  get dynamoConnectTimeoutMs() {
    return num('DYNAMODB_CONNECT_TIMEOUT_MS', 500);
  },
  /** lastUsedAt on a key is written at most this often. */
  get keyTouchIntervalMs() {
    return num('KEY_TOUCH_INTERVAL_S', 60) * 1000;
  },
  /**
   * The API's public address (scheme, host, stage or base path), as links to it are written
   * (GET /llms.txt): the stack sets the stage's URL, or context publicUrl. Never taken from a request.
   */
  get publicBaseUrl() {
    return process.env.PUBLIC_BASE_URL || undefined;
  },
  /** A dashboard session ends this long after sign-in (or at sign-out). */
  get sessionTtlSeconds() {
    return num('SESSION_TTL_S', 8 * 3600);
  },
  /**
   * Dashboard sign-in throttling (shared/account/throttle.ts): attempts per e-mail from one client
   * address before a backoff starts; the first wait, doubling per further attempt, up to the longest;
   * attempts per client address, whatever the e-mail, in a 15-minute window; and evaluated attempts
   * per e-mail, whatever the address, in a 1-hour window (not counted from an address the e-mail
   * signed in from within 30 days).
   */
  get signInAttemptsPerPair() {
    return num('SIGN_IN_ATTEMPTS_PER_PAIR', 10);
  },
  get signInBackoffSeconds() {
    return num('SIGN_IN_BACKOFF_S', 60);
  },
  get signInBackoffMaxSeconds() {
    return num('SIGN_IN_BACKOFF_MAX_S', 3600);
  },
  get signInAttemptsPerAddress() {
    return num('SIGN_IN_ATTEMPTS_PER_ADDRESS', 50);
  },
  get signInAttemptsPerEmail() {
    return num('SIGN_IN_ATTEMPTS_PER_EMAIL', 30);
  },
  /**
   * Items each minute of an operation's outcome counts is spread over (shared/accounting/outcome-counts.ts):
   * one item takes about 1,000 writes/s, so 2 hold 1,000 answers/s of one operation at half that
   * (docs/status.md); GET /v1/status reads every shard.
   */
  get outcomeShards() {
    return Math.max(1, Math.min(64, Math.floor(num('OUTCOME_SHARDS', 2))));
  },
  /** GET /v1/status is kept in the function and cacheable this long (the stack sets 30; at most 30). */
  get statusMaxAgeSeconds() {
    return Math.min(30, num('STATUS_MAX_AGE_S', 5));
  },
  /** The dashboard's origin, when it is not the API's own host (state-changing session requests must come from it). */
  get dashboardOrigin() {
    return process.env.DASHBOARD_ORIGIN || undefined;
  },
  /** The shortest interval of a monitor (DEFAULT_MONITOR_MIN_INTERVAL_SECONDS); local runs and tests only lower it. */
  get monitorMinIntervalSeconds() {
    return Math.max(1, num('MONITOR_MIN_INTERVAL_SECONDS', 0) || DEFAULT_MONITOR_MIN_INTERVAL_SECONDS);
  },
  /** Monitors a team may have. */
  get monitorsPerTeam() {
    return num('MONITORS_PER_TEAM', 0) || 100;
  },
  /** Plain http webhooks to a loopback address too (`1`: local runs and tests; never the stack). */
  get webhookAllowLoopback() {
    return process.env.WEBHOOK_ALLOW_LOOPBACK === '1';
  },
  /** The AWS monitor workers' poll queues (JSON: platform -> queue URL; set by the stack). */
  get monitorPollQueues(): Record<string, string> {
    return JSON.parse(process.env.MONITOR_POLL_QUEUES || '{}') as Record<string, string>;
  },
  /** The AWS delivery worker's queue (set by the stack). */
  get monitorDeliveryQueueUrl() {
    return process.env.MONITOR_DELIVERY_QUEUE_URL || undefined;
  },
  /** The monitorable operations' function names (JSON: operation id -> function name; set by the stack). */
  get monitorFunctions(): Record<string, string> {
    return JSON.parse(process.env.MONITOR_FUNCTIONS || '{}') as Record<string, string>;
  },
  /** Whether this process is a deployed Lambda function (the runtime sets AWS_LAMBDA_FUNCTION_NAME): local keys are refused there. */
  get onLambda() {
    return Boolean(process.env.AWS_LAMBDA_FUNCTION_NAME);
  },
  /** The stack's KMS key the monitors' signing secrets are sealed under on AWS (envelope encryption: shared/webhooks/secret.ts). */
  get monitorKmsKeyId() {
    return process.env.MONITOR_KMS_KEY_ID || undefined;
  },
  /** Locally (npm start, the demo, the tests): the key monitors' signing secrets are sealed under (.local/monitor-key). */
  get monitorKey() {
    return process.env.MONITOR_KEY || undefined;
  },
  /**
   * Tests only: scrypt's N lowered to 2^value (PASSWORD_HASH_TEST_LOG2N), read only under NODE_ENV=test;
   * undefined anywhere else, whatever the environment says.
   */
  get passwordHashTestLog2n() {
    const raw = process.env.PASSWORD_HASH_TEST_LOG2N;
    return process.env.NODE_ENV === 'test' && raw && /^\d{1,2}$/.test(raw) ? Number(raw) : undefined;
  },
  /** The canaries' inputs over their defaults (JSON; the stack sets it from context `canaryInputs`). */
  get canaryInputs() {
    return process.env.CANARY_INPUTS || undefined;
  },
  get jobsTable() {
    return process.env.JOBS_TABLE || 'social-data-jobs';
  },
  /** The bucket of job inputs and result files (set by the stack); unset, files live under JOB_FILES_DIR (local runs). */
  get jobsBucket() {
    return process.env.JOBS_BUCKET || undefined;
  },
  /** Local runs: where job files are kept (default .local/jobs under the working directory). */
  get jobFilesDir() {
    return process.env.JOB_FILES_DIR || `${process.cwd()}/.local/jobs`;
  },
  /** The AWS job worker's input queues (JSON: platform -> that platform's own input queue's URL; set by the stack, infra/jobs.ts). Unset: inputs run in process. */
  get jobQueues(): Record<string, string> {
    return JSON.parse(process.env.JOB_QUEUES || '{}') as Record<string, string>;
  },
  /** The operations' function names for the job worker (JSON: operation id -> function name; set by the stack). */
  get jobFunctions(): Record<string, string> {
    return JSON.parse(process.env.JOB_FUNCTIONS || '{}') as Record<string, string>;
  },
  /** Inputs of one team in flight at once, over all its jobs. */
  get jobInputsPerTeam() {
    return num('JOB_INPUTS_PER_TEAM', 0) || 20;
  },
  /** How long a signed URL of a job file (or an upload) is valid. */
  get jobUrlTtlSeconds() {
    return num('JOB_URL_TTL_S', 0) || 900;
  },
  /**
   * Delivery to a customer's bucket (shared/jobs/destination.ts) off AWS: the S3 endpoint to write to
   * (e.g. a local moto_server); unset, and not deployed (no JOBS_BUCKET), a destination is refused with 422.
   */
  get jobsS3Endpoint() {
    return process.env.JOBS_S3_ENDPOINT || undefined;
  },
  /** The STS endpoint the job worker assumes a customer's role with off AWS (default: JOBS_S3_ENDPOINT, as moto_server serves both). */
  get jobsStsEndpoint() {
    return process.env.JOBS_STS_ENDPOINT || this.jobsS3Endpoint;
  },
  /** The roles that end jobs (the worker's and the jobs API's, comma-separated; set by the stack): the principals a customer's role trusts (GET /v1/jobs/destination). */
  get jobsDeliveryPrincipals(): string[] {
    return (process.env.JOBS_DELIVERY_PRINCIPALS || '').split(',').filter(Boolean);
  },
  /** The local gateway's address, for the signed URLs of local job files (set by the local stack). */
  get localFilesBaseUrl() {
    return process.env.LOCAL_FILES_BASE_URL || undefined;
  },
  /** The cache keeps an entry this long (TTL attribute), whatever cache_max_age callers use. */
  cacheTtlSeconds: 30 * 24 * 3600,
};

/**
 * The spec's per-team rate limit: 100 requests per 60 s, enforced as a token bucket of `requests`
 * refilled at requests/windowSeconds per second (API Gateway's usage-plan semantics; the local
 * gateway applies the same bucket).
 */
export const RATE_LIMIT = { requests: 100, windowSeconds: 60 } as const;

/** Whether a setting another module names is set (an operation's source, Operation.sourceVariable). */
export const isSet = (name: string): boolean => !!process.env[name];

/** `microblog-a` -> `MICROBLOG_A` */
export const envName = (platform: string) => platform.toUpperCase().replace(/[^A-Z0-9]+/g, '_');

/**
 * UPSTREAM_<PLATFORM>_URL replaces every origin of a platform (api, web, CDN hosts alike), keeping
 * the path: one fake upstream (or mirror) serves the whole platform.
 */
export function upstreamOverride(platform: string): string | undefined {
  return process.env[`UPSTREAM_${envName(platform)}_URL`] || undefined;
}

/**
 * SCRAPER_PROXY_URL_<PLATFORM>_<SCOPE> (when a scope is given), else SCRAPER_PROXY_URL_<PLATFORM>, else SCRAPER_PROXY_URL,
 * else the one read at cold start from the secret SCRAPER_PROXY_SECRET_ARN names (shared/runtime/secrets.ts; deployed functions), else none.
 */
export function proxyUrl(platform: string, scope?: string): string | undefined {
  return (
    (scope ? process.env[`SCRAPER_PROXY_URL_${envName(platform)}_${envName(scope)}`] : undefined) ||
    process.env[`SCRAPER_PROXY_URL_${envName(platform)}`] ||
    process.env.SCRAPER_PROXY_URL ||
    loaded.proxyUrl ||
    undefined
  );
}
