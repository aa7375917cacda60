import { randomUUID } from 'node:crypto';

// The environment is set before any project module loads: the logger reads its level when it is
// created (shared/runtime/log.ts), so an import above these lines would log every request at INFO.
// Each test file works on its own tables in the shared DynamoDB Local, so files never see each other's data.
const suffix = randomUUID().slice(0, 8);
process.env.ACCOUNTS_TABLE = `accounts-${suffix}`;
process.env.CACHE_TABLE = `cache-${suffix}`;
process.env.JOBS_TABLE = `jobs-${suffix}`;
// Job result files of this file's jobs (shared/jobs/files.ts): a directory of its own.
process.env.JOB_FILES_DIR = require('node:path').join(require('node:os').tmpdir(), `jobs-${suffix}`);
process.env.EVENTS_TABLE = `events-${suffix}`;
process.env.AWS_REGION = 'us-east-1';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.POWERTOOLS_LOG_LEVEL = process.env.TEST_LOG_LEVEL || 'SILENT';
// The service's own time limits (shared/runtime/config.ts): a healthy request must never fail because the
// machine is busy. The tests of the limits themselves (upstream-faults, database-faults, the
// scrape-foundation deadline case) set short ones of their own.
process.env.SCRAPE_DEADLINE_MS = process.env.SCRAPE_DEADLINE_MS || '20000';
process.env.UPSTREAM_TIMEOUT_MS = process.env.UPSTREAM_TIMEOUT_MS || '8000';
// Upstream retries wait 150 ms, then 300 ms, in the service; the tests count attempts, not waits
// (test/unit/scrape-foundation.test.ts checks the service's own waits).
process.env.UPSTREAM_RETRY_BASE_MS = process.env.UPSTREAM_RETRY_BASE_MS || '5';
// DynamoDB Local on a busy machine can take far longer than DynamoDB (1 s in production).
process.env.DYNAMODB_TIMEOUT_MS = process.env.DYNAMODB_TIMEOUT_MS || '10000';
process.env.DYNAMODB_CONNECT_TIMEOUT_MS = process.env.DYNAMODB_CONNECT_TIMEOUT_MS || '5000';
// Password hashing at the recommended cost (128 MiB, ~0.5 s each) would dominate the suites; only
// test/unit/account/passwords.test.ts hashes at the default. Honoured under NODE_ENV=test alone.
process.env.PASSWORD_HASH_TEST_LOG2N = process.env.PASSWORD_HASH_TEST_LOG2N || '10';
// The tests' own key for monitors' signing secrets (shared/webhooks/secret.ts has no fallback).
process.env.MONITOR_KEY = process.env.MONITOR_KEY || `test-monitor-key-${suffix}`;
// Never let a test reach a real proxy or a real site by accident.
delete process.env.SCRAPER_PROXY_URL;
// Loaded only now, for the reason above.
const { envName } = require('../../shared/runtime/config') as typeof import('../../shared/runtime/config');
const { operations } = require('../../shared/operations') as typeof import('../../shared/operations');
// Every upstream defaults to a closed local port; a test that wants one points it at its fake upstream.
for (const op of operations) process.env[`UPSTREAM_${envName(op.platform)}_URL`] = 'http://127.0.0.1:9';
