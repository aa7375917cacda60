/**
 * shortvideo: the spec's resources as valibot schemas (see shared/scrape/resource.ts for the
 * conventions), with the values each cannot be built without (`*_REQUIRED`, issue 31). One module
 * per operation, resources/<operation>.ts (what they share: resources/common.ts), because valibot
 * builds every schema when its module is evaluated: an operation's entry
 * (shared/operations/shortvideo/<operation>.ts) imports its own module, so its function builds only
 * its own schemas at cold start. This module gathers them for the mappers' and the scraper's types
 * and for the tests; no function imports it (test/infra/bundle.test.ts).
 */
export * from './resources/following';
export * from './resources/comments';
export * from './resources/live';
export * from './resources/hashtag';
