import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { App } from 'aws-cdk-lib/core';
import type { Template } from 'aws-cdk-lib/assertions';

/**
 * The CDK apps of the stack's tests. An App without `outdir` synthesizes into a new folder under the
 * OS temp dir that CDK never removes (about 1 MB each, some 25 per `npm test`), so every app here
 * gets its folder inside one per test file, removed after the file's tests.
 *
 * aws-cdk-lib and the stack are loaded only when a synthesis is needed (about 10 s of CPU per test
 * file): a test that only reads the template's JSON (`stackJson`) takes it from the run's cache
 * when another file has synthesized the same context already.
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
  const cdk = require('aws-cdk-lib/core') as typeof import('aws-cdk-lib/core');
  return new cdk.App({ outdir: synthDir(), context: { ...(withCdkJson ? cdkJsonContext() : {}), 'aws:cdk:bundling-stacks': [], ...extraContext } });
}

const contextId = (extraContext: Record<string, unknown>) => JSON.stringify(Object.entries(extraContext).sort(([a], [b]) => a.localeCompare(b)));
const templates = new Map<string, Template>();

/** The stack's template, synthesized by `testApp(extraContext)`, once per context in this module registry. */
export function stackTemplate(extraContext: Record<string, unknown> = {}): Template {
  const id = contextId(extraContext);
  const known = templates.get(id);
  if (known) return known;
  const { Template: T } = require('aws-cdk-lib/assertions') as typeof import('aws-cdk-lib/assertions');
  const { SocialDataApiStack } = require('../../infra/stack') as typeof import('../../infra/stack');
  const template = T.fromStack(new SocialDataApiStack(testApp(extraContext), 'SocialDataApi'));
  templates.set(id, template);
  const file = cacheFile(extraContext);
  if (file) {
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(template.toJSON()));
    renameSync(partial, file);
  }
  return template;
}

/** Where the run keeps the template of a context (STACK_TEMPLATE_CACHE, made by test/support/global-setup.ts). */
const cacheFile = (extraContext: Record<string, unknown>) => {
  const dir = process.env.STACK_TEMPLATE_CACHE;
  return dir ? path.join(dir, `${createHash('sha256').update(contextId(extraContext)).digest('hex').slice(0, 16)}.json`) : undefined;
};

/**
 * The template's JSON for `extraContext`, synthesized once per `npm test` run: any test file's
 * synthesis leaves it in the run's folder (written whole or not at all, removed at the run's end),
 * where the others find it. Without that folder (outside jest's set-up), synthesized here.
 */
export function stackJson(extraContext: Record<string, unknown> = {}): { Resources: Record<string, any>; Outputs?: Record<string, any> } { // eslint-disable-line @typescript-eslint/no-explicit-any
  const file = cacheFile(extraContext);
  if (file && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  return stackTemplate(extraContext).toJSON() as ReturnType<typeof stackJson>;
}
