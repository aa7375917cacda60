import { existsSync, readFileSync } from 'node:fs';
import * as v from 'valibot';
import { ERROR_STATUS } from '../../shared/errors';
import { operations } from '../../shared/operations';
import { CACHE_MAX_AGE_SECONDS } from '../../shared/validation';
import { DOCS_PATH, renderDocs } from '../../scripts/docs';

test('docs/api.md is up to date with the operation table (run `npm run docs`)', () => {
  expect(existsSync(DOCS_PATH)).toBe(true);
  const onDisk = readFileSync(DOCS_PATH, 'utf8');
  // Not toEqual on the whole text: a focused message says what to do.
  if (onDisk !== renderDocs()) throw new Error('docs/api.md is stale: run `npm run docs` and commit the result');
});

test('the docs cover every operation in spec order, every error code and every cache age', () => {
  const md = renderDocs();
  const headings = [...md.matchAll(/^## (\d+)\. `GET (\S+)`$/gm)].map((m) => [Number(m[1]), m[2]]);
  expect(headings).toEqual([...operations].sort((a, b) => a.number - b.number).map((o) => [o.number, o.path]));
  for (const op of operations) {
    expect(md).toContain(`curl -sG "$API_URL${op.path}"`);
    for (const name of Object.keys(op.params)) expect(md).toContain(`| \`${name}\` |`);
  }
  for (const [code, status] of Object.entries(ERROR_STATUS)) expect(md).toContain(`| ${status} | \`${code}\` |`);
  for (const age of Object.keys(CACHE_MAX_AGE_SECONDS)) expect(md).toContain(`| \`${age}\` |`);
  expect(md).toContain('x-api-key: $API_KEY');
  expect(md).toMatch(/## Rate limit/);
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
