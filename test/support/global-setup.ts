import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startDynamoLocal, type LocalDynamo } from '../../dev/dynamo';

/**
 * One DynamoDB Local for the whole run, shared by the jest workers; each test file gets tables of
 * its own (per-file-env.ts). One per worker was measured too (two clients of 9,000 calls each, on
 * one instance or on one each): no faster on two cores, and a second Java process to start.
 */
export default async function globalSetup() {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const dynamo = await startDynamoLocal();
  // Whatever ends jest, the Java process does not outlive it.
  process.once('exit', () => dynamo.process.kill('SIGKILL'));
  (globalThis as { __DYNAMO__?: LocalDynamo }).__DYNAMO__ = dynamo;
  process.env.DYNAMODB_ENDPOINT = dynamo.endpoint;
  // The synthesized stack's templates, shared by the test files that only read them (test/support/synth.ts).
  process.env.STACK_TEMPLATE_CACHE = mkdtempSync(path.join(tmpdir(), 'sdapi-templates-'));
  // The command line, bundled once (test/gateway/cli/support.ts): each run of cli/bin.mjs loads tsx and
  // its TypeScript again, about 0.35 s of CPU more than the bundle per process, several dozen per run.
  // A program esbuild cannot bundle fails no other file: the CLI tests then run cli/bin.mjs, which reports it.
  const cliDir = mkdtempSync(path.join(tmpdir(), 'sdapi-cli-'));
  process.env.CLI_BUNDLE_DIR = cliDir;
  const bundle = path.join(cliDir, 'social-data.cjs');
  try {
    require('esbuild').buildSync({ entryPoints: [path.join(__dirname, '../../cli/main.ts')], bundle: true, platform: 'node', target: 'node20', format: 'cjs', outfile: bundle, logLevel: 'silent' });
    process.env.CLI_BUNDLE = bundle;
  } catch {
    delete process.env.CLI_BUNDLE;
  }
}
