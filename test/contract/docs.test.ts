import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { ERROR_STATUS } from '../../shared/http/errors';
import { operations, type Operation } from '../../shared/operations';
import { CACHE_MAX_AGE_SECONDS } from '../../shared/http/validation';
import { BEGIN, END, NOT_WRITTEN, PAGES_WITH_TABLE, deviations, generatedDocs, operationPagePath, renderDocs, renderOperationPage, renderWithTable } from '../../scripts/docs';

const ROOT = path.join(__dirname, '..', '..');
const ordered = [...operations].sort((a, b) => a.number - b.number) as Operation[];
const handWritten = (page: string) => page.slice(page.indexOf(END) + END.length);

test('every generated document is up to date with the operation table (run `npm run docs`)', () => {
  const stale = generatedDocs()
    .filter(({ file, content }) => !existsSync(file) || readFileSync(file, 'utf8') !== content)
    .map(({ file }) => path.relative(ROOT, file));
  // Not toEqual on whole texts: a focused message says what to do.
  if (stale.length) throw new Error(`stale: ${stale.join(', ')}: run \`npm run docs\` and commit the result`);
  expect(generatedDocs().map(({ file }) => path.relative(ROOT, file))).toEqual(expect.arrayContaining(['docs/api.md', 'README.md', 'docs/README.md']));
});

test('docs/api.md covers every error code, every cache age and the rate limit, and links every operation page', () => {
  const md = renderDocs();
  for (const [code, status] of Object.entries(ERROR_STATUS)) expect(md).toContain(`| ${status} | \`${code}\` |`);
  for (const age of Object.keys(CACHE_MAX_AGE_SECONDS)) expect(md).toContain(`| \`${age}\` |`);
  expect(md).toMatch(/## Rate limit/);
  const linked = [...md.matchAll(/^\| (\d+) \| \[`GET (\S+)`\]\(operations\/([\w-]+)\.md\)/gm)].map((m) => [Number(m[1]), m[2], m[3]]);
  expect(linked).toEqual(ordered.map((o) => [o.number, o.path, o.id]));
});

test('one page per operation, and no page for an operation the table does not have', () => {
  const pages = readdirSync(path.join(ROOT, 'docs', 'operations')).filter((f) => f.endsWith('.md')).sort();
  expect(pages).toEqual(ordered.map((o) => path.basename(operationPagePath(o))).sort());
});

test.each(ordered.map((o) => [o.number, o.id, o] as const))('page of operation %i (%s): the table\'s contract, generated', (_n, _id, op) => {
  const page = renderOperationPage(op, readFileSync(operationPagePath(op), 'utf8'));
  expect(page.startsWith(`${BEGIN}\n# ${op.number}. \`GET ${op.path}\``)).toBe(true);
  expect(page).toContain(`curl -sG "$API_URL${op.path}"`);
  expect(page).toContain('x-api-key: $API_KEY');
  for (const name of [...Object.keys(op.params), 'cache_max_age']) expect(page).toContain(`| \`${name}\` |`);
  expect(page).toContain(op.pageSize !== undefined ? `- Page size: ${op.pageSize} per page.` : '- Page size: not paged.');
  expect(page).toContain(`- Cache key: \`${op.id}\``);
  for (const status of [...op.responses, ...(op.alsoAnswers ?? [])]) expect(page).toMatch(new RegExp(`^  - \\*\\*${status}\\*\\*`, 'm'));
  for (const [field] of deviations(op)) expect(page).toContain(`| \`${field}\` |`);
  for (const [name, def] of Object.entries(op.params)) if (def.default !== undefined) expect(page).toContain(`An omitted \`${name}\` is read as \`${def.default}\`: both are one entry.`);
});

test.each(ordered.filter((o) => o.status === 'live').map((o) => [o.number, o.id, o] as const))('page of live operation %i (%s) has its hand-written part', (_n, _id, op) => {
  const written = handWritten(readFileSync(operationPagePath(op), 'utf8'));
  expect(written).not.toContain(NOT_WRITTEN);
  expect(written.trim().length).toBeGreaterThan(200);
});

test('the generated part is regenerated and the hand-written part kept as it is', () => {
  const op = ordered[0]!;
  const onDisk = readFileSync(operationPagePath(op), 'utf8');
  const edited = onDisk.replace(`# ${op.number}. `, '# an edit by hand, lost on regeneration ').replace(END, `${END}\nA hand-written line that stays.`);
  const again = renderOperationPage(op, edited);
  expect(again).toContain(`# ${op.number}. \`GET ${op.path}\``);
  expect(again).not.toContain('an edit by hand');
  expect(handWritten(again)).toBe(`\nA hand-written line that stays.${handWritten(onDisk)}`);
  // A new operation's page starts with the placeholder the test above refuses for a live operation.
  expect(handWritten(renderOperationPage(op, undefined))).toContain(NOT_WRITTEN);
  expect(() => renderOperationPage(op, 'markers removed')).toThrow(/GENERATED markers/);
});

test('the README and the docs index show the operation table between their markers', () => {
  for (const file of PAGES_WITH_TABLE) {
    const md = readFileSync(file, 'utf8');
    const table = md.slice(md.indexOf(BEGIN), md.indexOf(END));
    for (const op of ordered) expect(table).toContain(`[\`GET ${op.path}\`](`);
    expect(renderWithTable(md.replace(/\| 1 \| .*\n/, ''), file)).toBe(md);
  }
});

test('a recorded deviation is listed by its field path, nested and in arrays', () => {
  const clip = deviations(operations.find((o) => o.id === 'livestream-clip')!);
  expect(clip).toEqual(expect.arrayContaining([
    ['clip.likes', expect.stringContaining('no like count')],
    ['clip.category', expect.any(String)],
    ['clip.category.parentCategory', expect.any(String)],
    ['clip.creator', expect.any(String)],
    ['clip.channel.profilePicture', expect.any(String)],
  ]));
  const posts = deviations(operations.find((o) => o.id === 'microblog-a-user-posts')!).map(([f]) => f);
  expect(posts).toContain('posts[].media.images[].width');
});

test('every example the docs show is a valid value of its parameter', () => {
  for (const op of operations) {
    for (const [name, def] of Object.entries(op.params)) {
      if (def.example === undefined) continue;
      const r = v.safeParse(def.schema, def.example);
      expect({ op: op.id, name, example: def.example, ok: r.success }).toEqual({ op: op.id, name, example: def.example, ok: true });
    }
  }
});

test('every environment variable the code reads is documented (README configuration, or the page of its tool)', () => {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : /\.(ts|mjs)$/.test(e.name) ? [path.join(dir, e.name)] : []));
  const sources = ['shared', 'dev', 'scripts', 'infra', 'mcp', 'functions'].flatMap((dir) => walk(path.join(ROOT, dir)));
  const read = new Set<string>();
  for (const file of sources) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/process\.env\.([A-Z][A-Z0-9_]*)|process\.env\[['"]([A-Z][A-Z0-9_]*)['"]\]|\b(?:num|int)\('([A-Z][A-Z0-9_]*)'/g)) read.add((m[1] ?? m[2] ?? m[3])!);
  }
  // The shell's own variables, handed through to a child process.
  for (const inherited of ['PATH', 'HOME']) read.delete(inherited);
  expect(read.size).toBeGreaterThan(20);
  const docs = [path.join(ROOT, 'README.md'), ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join(ROOT, 'docs', f))].map((f) => readFileSync(f, 'utf8')).join('\n');
  expect([...read].filter((name) => !docs.includes(`\`${name}\``) && !docs.includes(`\`${name},`)).sort()).toEqual([]);
});
