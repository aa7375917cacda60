import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * The layers read straight down (README, "How it works"): functions -> shared/pipeline ->
 * shared/operations -> shared/platforms/* -> shared/scrape, over the base modules; and nothing Lambda
 * runs imports what only runs locally (dev/, scripts/, test/, infra/, client/, mcp/). Locally too:
 * tests use the scripts and the local stack, never the other way round (scripts -> dev -> shared),
 * and the MCP server is a client of the API, not of the build scripts.
 */
const ROOT = path.join(__dirname, '..', '..');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every module a file imports (static, type-only, for its side effects alone, dynamic, or required), as a path relative to the project root. */
function importsOf(file: string): string[] {
  const src = readFileSync(file, 'utf8');
  const specs = [...src.matchAll(/(?:from\s+|\bimport\s+|\bimport\(\s*|\brequire\(\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!);
  return specs.filter((s) => s.startsWith('.')).map((s) => path.relative(ROOT, path.resolve(path.dirname(file), s)));
}

const within = (rel: string, dir: string) => rel === dir || rel.startsWith(`${dir}/`);
const violations = (dir: string, forbidden: string[]) =>
  files(path.join(ROOT, dir)).flatMap((f) => importsOf(f).filter((i) => forbidden.some((x) => within(i, x))).map((i) => `${path.relative(ROOT, f)} imports ${i}`));

/**
 * Every module of shared/ and functions/ has a layer (docs/architecture.md), and imports only its own
 * layer or those below it: the entry points, what they share (shared/api: the router, the route
 * tables, the schemas and tool catalogue the documents describe), the table, the platforms, the
 * scraping core, the accounting (money, usage, history, outcome counts) beside the keys, members and
 * sessions, the result cache and the team events' outbox (shared/webhooks: what a change writes beside itself), then the HTTP base (entry, envelope, errors, validation, cursor
 * seal), the database, the runtime.
 */
const ENTRY_POINTS = ['shared/pipeline.ts', 'shared/mcp', 'shared/account', 'shared/status', 'shared/public', 'shared/monitors', 'shared/jobs'] as const;
const LAYERS: readonly (readonly string[])[] = [
  ['functions'],
  ENTRY_POINTS,
  ['shared/api'],
  ['shared/operations.ts', 'shared/operations'],
  ['shared/platforms'],
  ['shared/scrape'],
  ['shared/accounting', 'shared/auth', 'shared/result-cache.ts', 'shared/webhooks'],
  ['shared/http'],
  ['shared/db'],
  ['shared/runtime'],
];
const layerOf = (rel: string) => LAYERS.findIndex((layer) => layer.some((d) => within(rel, d) || within(`${rel}.ts`, d)));
const entryPointOf = (rel: string) => ENTRY_POINTS.find((d) => within(rel, d) || within(`${rel}.ts`, d));

test('every module of shared/ and functions/ has a layer, and imports only its own layer or those below', () => {
  const all = [...files(path.join(ROOT, 'shared')), ...files(path.join(ROOT, 'functions'))];
  expect(all.length).toBeGreaterThan(100);
  const unplaced = all.map((f) => path.relative(ROOT, f)).filter((rel) => layerOf(rel) < 0);
  expect(unplaced).toEqual([]);
  const upward = all.flatMap((f) => {
    const rel = path.relative(ROOT, f);
    return importsOf(f)
      .filter((i) => !i.startsWith('docs/'))
      .filter((i) => layerOf(i) < 0 || layerOf(i) < layerOf(rel))
      .map((i) => `${rel} imports ${i}`);
  });
  expect(upward).toEqual([]);
});

test('each entry point is a layer of its own: none imports another (what two share lives below them, in shared/api or lower)', () => {
  const sideways = ENTRY_POINTS.flatMap((entry) =>
    files(path.join(ROOT, entry.endsWith('.ts') ? path.dirname(entry) : entry))
      .filter((f) => entryPointOf(path.relative(ROOT, f)) === entry)
      .flatMap((f) => importsOf(f).filter((i) => entryPointOf(i) !== undefined && entryPointOf(i) !== entry).map((i) => `${path.relative(ROOT, f)} imports ${i}`)),
  );
  expect(sideways).toEqual([]);
});

test('no import circle anywhere in shared/, not even a type-only one', () => {
  const graph = new Map(files(path.join(ROOT, 'shared')).map((f) => [path.relative(ROOT, f).replace(/\.ts$/, ''), importsOf(f).filter((i) => within(i, 'shared')).map((i) => i.replace(/\.ts$/, ''))]));
  const circles = new Set<string>();
  const done = new Set<string>();
  const visit = (node: string, trail: string[]) => {
    if (trail.includes(node)) return void circles.add([...trail.slice(trail.indexOf(node)), node].join(' -> '));
    if (done.has(node)) return;
    for (const next of graph.get(node) ?? []) visit(next, [...trail, node]);
    done.add(node);
  };
  for (const node of graph.keys()) visit(node, []);
  expect([...circles]).toEqual([]);
});

test('the authorizer imports no platform module and no query validation', () => {
  const seen = new Set<string>();
  const walk = (rel: string) => {
    if (seen.has(rel)) return;
    seen.add(rel);
    const file = path.join(ROOT, `${rel}.ts`);
    for (const i of importsOf(file)) if (within(i, 'shared')) walk(i.replace(/\.ts$/, ''));
  };
  walk('functions/authorizer');
  expect(seen.size).toBeGreaterThan(3);
  expect([...seen].filter((m) => within(m, 'shared/platforms') || within(m, 'shared/scrape') || m === 'shared/http/validation' || m === 'shared/operations')).toEqual([]);
});

test('shared/ (what Lambda runs) never imports local-only code', () => {
  expect(violations('shared', ['dev', 'scripts', 'test', 'infra', 'client', 'mcp', 'functions'])).toEqual([]);
});

test('the scraping core imports no platform, no table and no pipeline', () => {
  expect(violations('shared/scrape', ['shared/platforms', 'shared/operations', 'shared/pipeline'])).toEqual([]);
});

test('platforms import neither the table nor the pipeline, nor each other', () => {
  const platforms = readdirSync(path.join(ROOT, 'shared/platforms'));
  for (const p of platforms) {
    const others = platforms.filter((o) => o !== p).map((o) => `shared/platforms/${o}`);
    expect(violations(`shared/platforms/${p}`, ['shared/operations', 'shared/pipeline', ...others])).toEqual([]);
  }
});

test('the table does not import the pipeline', () => {
  expect(importsOf(path.join(ROOT, 'shared/operations.ts')).filter((i) => within(i, 'shared/pipeline'))).toEqual([]);
  expect(violations('shared/operations', ['shared/pipeline'])).toEqual([]);
});

test('the scraping core has no import circle, not even a type-only one', () => {
  const dir = path.join(ROOT, 'shared/scrape');
  const graph = new Map(files(dir).map((f) => [path.relative(ROOT, f).replace(/\.ts$/, ''), importsOf(f).filter((i) => within(i, 'shared/scrape'))]));
  const circles: string[] = [];
  const visit = (node: string, trail: string[]) => {
    if (trail.includes(node)) return void circles.push([...trail.slice(trail.indexOf(node)), node].join(' -> '));
    for (const next of graph.get(node) ?? []) visit(next, [...trail, node]);
  };
  for (const node of graph.keys()) visit(node, []);
  expect(circles).toEqual([]);
});

test('scripts and the local stack never import the tests', () => {
  expect(violations('scripts', ['test'])).toEqual([]);
  expect(violations('dev', ['test', 'scripts'])).toEqual([]);
});

test('the MCP server never imports the scripts', () => {
  expect(violations('mcp', ['scripts'])).toEqual([]);
});

test('the command line is a client of the API: it never imports the scripts, the tests, the local stack or the functions', () => {
  expect(violations('cli', ['scripts', 'test', 'dev', 'infra', 'functions', 'mcp'])).toEqual([]);
});

test('the entry points and shared/api read no setting themselves: every environment variable goes through shared/runtime/config.ts', () => {
  const reads = [...ENTRY_POINTS, 'shared/api'].flatMap((entry) =>
    files(path.join(ROOT, entry.endsWith('.ts') ? path.dirname(entry) : entry))
      .filter((f) => within(path.relative(ROOT, f), entry))
      .filter((f) => /process\.env/.test(readFileSync(f, 'utf8')))
      .map((f) => path.relative(ROOT, f)),
  );
  expect(reads).toEqual([]);
});
