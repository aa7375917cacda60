import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { App, IPolicyValidationPluginBeta1 } from 'aws-cdk-lib/core';
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
 * bundling (the tests read templates, never the code), plus `extraContext`. Without the stack trace
 * CDK captures for every construct it creates and every annotation (metadata of the cloud assembly,
 * never of a template: the same templates, byte for byte; CDK reads them only to point a validation
 * finding at a line of code): under jest each trace goes through its source maps, about an eighth
 * of the stack tests' CPU.
 *
 * CDK's built-in CloudFormation validation (a WebAssembly rule engine run in every synthesis) only
 * where a test reads its verdict (`validate`: the checked syntheses, `checkSynthesis`, where CDK's
 * strict validation makes its findings fail as cdk-nag's do). Elsewhere it checked nothing: without
 * strict validation CDK turns its findings into warnings no test reads, and it took about half of
 * a synthesis's CPU.
 */
export function testApp(extraContext: Record<string, unknown> = {}, withCdkJson = true, validate = false): App {
  const cdk = require('aws-cdk-lib/core') as typeof import('aws-cdk-lib/core');
  const noTraces = { 'aws:cdk:disable-creation-stack-traces': true, 'aws:cdk:disable-stack-trace': true };
  const strict = validate ? { '@aws-cdk/core:strictCfnValidateErrors': true } : {};
  return new cdk.App({ outdir: synthDir(), builtinCloudFormationValidation: validate, context: { ...(withCdkJson ? cdkJsonContext() : {}), 'aws:cdk:bundling-stacks': [], ...noTraces, ...strict, ...extraContext } });
}

const contextId = (extraContext: Record<string, unknown>) => JSON.stringify(Object.entries(extraContext).sort(([a], [b]) => a.localeCompare(b)));
/** A context's templates: the root stack's, and each nested stack's by its construct id (infra/jobs.ts: `JobsEngine`). */
type Templates = { root: Template; nested: Map<string, Template> };
const templates = new Map<string, Templates>();
/** The validation plugins of a context's synthesis (`checkSynthesis`), and what that synthesis threw. */
type Checks = (app: App) => IPolicyValidationPluginBeta1[];
const checks = new Map<string, Checks>();
const failures = new Map<string, unknown>();

/**
 * Validation plugins (cdk-nag's pack: test/infra/nag.ts) to run in the synthesis of each of `contexts`,
 * so that one synthesis of a context serves both its checks and its templates' tests. Registered
 * before any of them is synthesized (a later registration throws: it would check nothing).
 */
export function checkSynthesis(contexts: Record<string, unknown>[], plugins: Checks): void {
  for (const context of contexts) {
    const id = contextId(context);
    if (templates.has(id) || failures.has(id)) throw new Error(`checkSynthesis: the context ${id} was synthesized before its checks were registered`);
    checks.set(id, plugins);
  }
}

/** What the synthesis of `extraContext` with its registered checks threw (undefined: it succeeded). */
export function synthesisFailure(extraContext: Record<string, unknown> = {}): unknown {
  synthesized(extraContext);
  return failures.get(contextId(extraContext));
}

/**
 * The root stack's and its nested stacks' templates, synthesized by `testApp(extraContext)`, once per
 * context in this module registry. With the context's checks (`checkSynthesis`), if any: when they
 * fail the synthesis, the failure is kept for `synthesisFailure` and the templates come from an app
 * without them.
 */
function synthesized(extraContext: Record<string, unknown>): Templates {
  const id = contextId(extraContext);
  const known = templates.get(id);
  if (known) return known;
  const { NestedStack, Validations } = require('aws-cdk-lib/core') as typeof import('aws-cdk-lib/core');
  const { Template: T } = require('aws-cdk-lib/assertions') as typeof import('aws-cdk-lib/assertions');
  const { SocialDataApiStack } = require('../../infra/stack') as typeof import('../../infra/stack');
  const plugins = checks.get(id);
  // With checks, a warning fails the synthesis as an error does (CDK's strict validation: testApp's `validate`).
  let stack = new SocialDataApiStack(testApp(extraContext, true, plugins !== undefined), 'SocialDataApi');
  if (plugins) {
    const app = stack.node.root as App;
    Validations.of(app).addPlugins(...plugins(app));
    try {
      app.synth();
    } catch (err) {
      failures.set(id, err);
      stack = new SocialDataApiStack(testApp(extraContext), 'SocialDataApi');
    }
  }
  const root = T.fromStack(stack);
  const nested = new Map(stack.node.findAll().filter(NestedStack.isNestedStack).map((n) => [n.node.id, T.fromStack(n)] as const));
  const made = { root, nested };
  templates.set(id, made);
  const cache = (file: string | undefined, template: Template) => {
    if (!file) return;
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, JSON.stringify(template.toJSON()));
    renameSync(partial, file);
  };
  for (const [name, template] of nested) cache(cacheFile(extraContext, name), template);
  cache(cacheFile(extraContext), root);
  return made;
}

/** The root stack's template for `extraContext` (synthesized once per context in this module registry). */
export function stackTemplate(extraContext: Record<string, unknown> = {}): Template {
  return synthesized(extraContext).root;
}

/** The ids of the root stack's nested stacks (infra/jobs.ts: `JobsEngine`). */
export const nestedStackIds = (extraContext: Record<string, unknown> = {}): string[] => [...synthesized(extraContext).nested.keys()];

/** A nested stack's template (`Template.fromStack(nested)`), by its construct id, from the same synthesis as `stackTemplate`. */
export function nestedTemplate(nestedId: string, extraContext: Record<string, unknown> = {}): Template {
  const template = synthesized(extraContext).nested.get(nestedId);
  if (!template) throw new Error(`no nested stack ${nestedId} (there are: ${nestedStackIds(extraContext).join(', ')})`);
  return template;
}

/** Where the run keeps the template of a context, the root's or a nested stack's (STACK_TEMPLATE_CACHE, made by test/support/global-setup.ts). */
const cacheFile = (extraContext: Record<string, unknown>, nestedId?: string) => {
  const dir = process.env.STACK_TEMPLATE_CACHE;
  return dir ? path.join(dir, `${createHash('sha256').update(contextId(extraContext)).digest('hex').slice(0, 16)}${nestedId ? `.${nestedId}` : ''}.json`) : undefined;
};

type TemplateJson = { Resources: Record<string, any>; Outputs?: Record<string, any>; Parameters?: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The template's JSON for `extraContext`, synthesized once per `npm test` run: any test file's
 * synthesis leaves it in the run's folder (written whole or not at all, the nested stacks' before the
 * root's, removed at the run's end), where the others find it. Without that folder (outside jest's
 * set-up), synthesized here.
 */
export function stackJson(extraContext: Record<string, unknown> = {}): TemplateJson {
  const file = cacheFile(extraContext);
  if (file && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  return stackTemplate(extraContext).toJSON() as TemplateJson;
}

/** A nested stack's template JSON, as `stackJson` (from the run's folder when another file synthesized it). */
export function nestedJson(nestedId: string, extraContext: Record<string, unknown> = {}): TemplateJson {
  const file = cacheFile(extraContext, nestedId);
  if (file && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  return nestedTemplate(nestedId, extraContext).toJSON() as TemplateJson;
}

/**
 * How a nested stack sees the root stack (CDK turns every value of the root's it uses into a
 * parameter of the nested template; the root reads no output of it: infra/jobs.ts): `inRoot`
 * rewrites a value of the nested template with each parameter's `Ref` replaced by what the root stack
 * passes for it (so a nested policy's `{Ref: referenceto…JobsTable…Arn}` reads
 * `{Fn::GetAtt: [JobsTable…, Arn]}`, as in the root template).
 */
export function nestedWiring(nestedId: string, extraContext: Record<string, unknown> = {}) {
  const root = stackJson(extraContext);
  const found = Object.entries(root.Resources).filter(([id, r]) => r.Type === 'AWS::CloudFormation::Stack' && id.startsWith(`${nestedId}NestedStack`));
  if (found.length !== 1) throw new Error(`${found.length} nested stack resources named ${nestedId} in the root template`);
  const [resourceId, resource] = found[0]!;
  const parameters = (resource.Properties.Parameters ?? {}) as Record<string, unknown>;
  const inRoot = <T>(value: T): T =>
    JSON.parse(JSON.stringify(value), (_k, v) => (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 1 && typeof v.Ref === 'string' && v.Ref in parameters ? parameters[v.Ref] : v));
  return { resourceId, resource, parameters, inRoot };
}
