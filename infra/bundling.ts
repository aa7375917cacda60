// Types only: scripts/bench.ts reads these options without loading aws-cdk-lib.
import type { BundlingOptions, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';

/**
 * How every function is bundled (NodejsFunction's esbuild options, infra/node-function.ts): the one
 * statement of them. scripts/bench.ts bundles with the same options (ESBUILD_OPTIONS) to measure
 * what a deployed function loads.
 */
export const BUNDLING = {
  minify: true,
  sourceMap: true,
  // File and line numbers in stack traces without shipping the sources a second time.
  sourcesContent: false,
  target: 'node22',
  format: 'cjs' as OutputFormat.CJS,
  // Bundle the AWS SDK too: it imports faster than the runtime's copy.
  externalModules: [] as string[],
} as const satisfies BundlingOptions;

/** BUNDLING as esbuild's own build options (what NodejsFunction passes to esbuild for it). */
export const ESBUILD_OPTIONS = {
  bundle: true,
  platform: 'node',
  target: BUNDLING.target,
  format: `${BUNDLING.format}` as const,
  minify: BUNDLING.minify,
  sourcemap: BUNDLING.sourceMap,
  sourcesContent: BUNDLING.sourcesContent,
  external: BUNDLING.externalModules,
} as const;
