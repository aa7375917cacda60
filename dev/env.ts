import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The environment of a local run, set before any project module is loaded: the logger and metrics
 * read it when they are created. No import here loads the project.
 */

/** `npm start` and `npm run demo`: what the caller did not set (logs at `logLevel`, no metrics). */
export function localEnvironment(logLevel: string): void {
  // The AWS SDK's multi-line notice about future Node versions helps no one here (see scripts/admin.ts).
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  process.env.POWERTOOLS_LOG_LEVEL ??= logLevel;
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.MONITOR_KEY ||= localMonitorKey();
}

/**
 * The key monitors' signing secrets are sealed under in local runs (shared/webhooks/secret.ts has
 * no fallback): made once, kept in .local/monitor-key, readable by its owner only (0600).
 */
export function localMonitorKey(dir = path.resolve(__dirname, '..', '.local')): string {
  const file = path.join(dir, 'monitor-key');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err; // another local run made it first
    }
  }
  chmodSync(file, 0o600);
  return readFileSync(file, 'utf8').trim();
}

/**
 * A measuring run (`npm run bench`, `npm run load`): silent logs, tables of its own (`<name>-accounts`,
 * `<name>-cache`) in a DynamoDB Local of its own in memory (DYNAMODB_ENDPOINT is ignored), no proxy:
 * the figures are of an empty local stack, and no other data is touched.
 */
export function measuringEnvironment(name: string): void {
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  process.env.POWERTOOLS_SERVICE_NAME ||= 'social-data-api';
  process.env.AWS_REGION ||= 'us-east-1';
  process.env.ACCOUNTS_TABLE = `${name}-accounts`;
  process.env.CACHE_TABLE = `${name}-cache`;
  process.env.JOBS_TABLE = `${name}-jobs`;
  process.env.EVENTS_TABLE = `${name}-events`;
  // Lambda runs node 22, where the AWS SDK has nothing to warn about; on node 20 it would print a notice mid-report.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  delete process.env.DYNAMODB_ENDPOINT;
  delete process.env.SCRAPER_PROXY_URL;
  // The JVM's own compilers for a measured DynamoDB Local (dev/dynamo.ts trades steady-state speed
  // for less CPU in the tests), unless the caller chose.
  process.env.DYNAMODB_LOCAL_JAVA_OPTS ??= '';
  // Its own monitors' secrets, in its own tables: a key of this process.
  process.env.MONITOR_KEY ||= randomBytes(32).toString('base64url');
}
