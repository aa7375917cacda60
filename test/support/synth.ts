import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { SocialDataApiStack } from '../../infra/stack';

/**
 * The CDK apps of the stack's tests. An App without `outdir` synthesizes into a new folder under the
 * OS temp dir that CDK never removes (about 1 MB each, some 25 per `npm test`), so every app here
 * gets its folder inside one per test file, removed after the file's tests.
 */
let root: string | undefined;
afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A new empty folder for one synthesis, removed with the others after this file's tests. */
export function synthDir(): string {
  root ??= mkdtempSync(path.join(os.tmpdir(), 'sdapi-cdk-'));
  return mkdtempSync(path.join(root, 'out-'));
}

/** cdk.json's context: what `cdk synth` builds with (feature flags, defaults). */
export const cdkJsonContext = (): Record<string, unknown> => JSON.parse(readFileSync(path.join(__dirname, '../../cdk.json'), 'utf8')).context;

/**
 * An app as `cdk synth` builds it (cdk.json's context unless `withCdkJson` is false), minus esbuild
 * bundling (the tests read templates, never the code), plus `extraContext`.
 */
export function testApp(extraContext: Record<string, unknown> = {}, withCdkJson = true): App {
  return new App({ outdir: synthDir(), context: { ...(withCdkJson ? cdkJsonContext() : {}), 'aws:cdk:bundling-stacks': [], ...extraContext } });
}

/** The stack's template, synthesized by `testApp(extraContext)`. */
export function stackTemplate(extraContext: Record<string, unknown> = {}): Template {
  return Template.fromStack(new SocialDataApiStack(testApp(extraContext), 'SocialDataApi'));
}
