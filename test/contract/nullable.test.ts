import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { operations } from '../../shared/operations';
import { ALSO_SAID, SPEC_DATA, type SpecField, type SpecShape } from './spec-nullable';

/**
 * A nullable field always carries its reason (issue 19.3). Every response schema of the operation
 * table is walked against the spec's view of its fields (./spec-nullable.ts): a field the spec
 * names without "nullable" may accept null only as a recorded deviation (`deviation(schema,
 * reason)`, shared/scrape/resource.ts), whose reason says which case it is. So the contract tests,
 * which validate responses against these schemas, cannot agree with a schema that quietly drifted.
 * When the spec file is there (CI lays shared/ beside the clone), ./spec-nullable.ts is checked
 * against it.
 */

/** The valibot internals the walk reads (schemas are plain objects). */
interface Node {
  type: string;
  entries?: Record<string, Node>;
  item?: Node;
  wrapped?: Node;
  options?: Node[];
  getter?: (input: unknown) => Node;
  pipe?: { type: string; metadata?: Record<string, unknown> }[];
}

const deviationOf = (s: Node): string | undefined => {
  for (let n: Node | undefined = s; n; n = n.wrapped) {
    const reason = n.pipe?.find((a) => a.type === 'metadata' && typeof a.metadata?.['x-spec-deviation'] === 'string')?.metadata?.['x-spec-deviation'];
    if (typeof reason === 'string') return reason;
  }
  return undefined;
};
const acceptsNull = (s: Node) => v.safeParse(s as unknown as v.GenericSchema, null).success;

/** The schema inside nullable / optional / lazy wrappers. */
function unwrap(s: Node): Node {
  let n = s;
  for (let i = 0; i < 10; i++) {
    if (n.wrapped && ['nullable', 'optional', 'nullish', 'non_nullable', 'non_optional'].includes(n.type)) n = n.wrapped;
    else if (n.type === 'lazy' && n.getter) n = n.getter(undefined);
    else return n;
  }
  return n;
}

/** Object schemas a value may be: the object itself, or each option of a union or variant. */
function objectsOf(s: Node): { node: Node; optional: boolean }[] {
  const n = unwrap(s);
  if (n.entries) return [{ node: n, optional: false }];
  if (n.options) return n.options.flatMap((o) => objectsOf(o).map((x) => ({ ...x, optional: true })));
  return [];
}

/** Generic sentences a reason may start with; what follows them must name the case. */
const GENERIC = [/^null where the upstream has no value to give, rather than an invented one/i];
const saysWhy = (reason: string) => GENERIC.reduce((r, g) => r.replace(g, ''), reason).replace(/^[\s:;,.-]+/, '').length >= 12;

interface Problem {
  op: number;
  path: string;
  problem: string;
}

/** `variant`: the schema is one form among several (trim=true), which may leave fields out. */
function walk(op: number, schema: Node, shape: SpecShape, at: string, out: Problem[], depth = 0, variant = false): void {
  if (depth > 6) return; // recursive shapes (a quoted post's quoted post) are checked once deep enough
  const objects = objectsOf(schema);
  for (const [name, spec] of Object.entries(shape)) {
    const path = at ? `${at}.${name}` : name;
    const holders = objects.filter((o) => o.node.entries && name in o.node.entries);
    if (holders.length === 0 && !variant && objects.every((o) => !o.optional)) out.push({ op, path, problem: 'named by the spec, missing from the schema' });
    for (const { node } of holders) checkField(op, node.entries![name]!, spec, path, out, depth);
  }
  // Reasons are checked on every field, named by the spec or not.
  for (const { node } of objects) {
    for (const [name, field] of Object.entries(node.entries ?? {})) {
      const reason = deviationOf(field);
      if (reason !== undefined && !saysWhy(reason)) out.push({ op, path: at ? `${at}.${name}` : name, problem: `its recorded deviation does not say which case it is: "${reason}"` });
    }
  }
}

function checkField(op: number, field: Node, spec: SpecField, path: string, out: Problem[], depth: number): void {
  if (acceptsNull(field) && !spec.nullable && deviationOf(field) === undefined) {
    out.push({ op, path, problem: 'accepts null, but the spec types it without nullable and no deviation is recorded' });
  }
  if (!spec.shape) return;
  const inner = typeof spec.shape === 'function' ? spec.shape() : spec.shape;
  if (!spec.array) {
    walk(op, field, inner, path, out, depth + 1);
    return;
  }
  // An array, or (trim variants) a union of arrays: each item schema is walked.
  const value = unwrap(field);
  const arrays = value.type === 'array' ? [value] : (value.options ?? []).map(unwrap).filter((o) => o.type === 'array');
  if (arrays.length === 0) out.push({ op, path, problem: `the spec makes it an array, the schema a ${value.type}` });
  for (const a of arrays) if (a.item) walk(op, a.item, inner, `${path}[]`, out, depth + 1, arrays.length > 1);
}

describe('every nullable field of every response is nullable in the spec or a recorded deviation', () => {
  test('the spec view covers the thirteen operations', () => {
    expect(Object.keys(SPEC_DATA).map(Number).sort((a, b) => a - b)).toEqual(operations.map((o) => o.number).sort((a, b) => a - b));
  });

  test.each(operations.map((o) => [o.number, o.id, o] as const))('operation %i (%s)', (number, _id, op) => {
    const problems: Problem[] = [];
    walk(number, op.data as unknown as Node, SPEC_DATA[number]!, '', problems);
    expect(problems.map((p) => `${p.path}: ${p.problem}`)).toEqual([]);
  });

  test('the walk finds an unrecorded nullable field, a missing field and a reason that names no case', () => {
    const schema = v.object({
      id: v.nullable(v.string()),
      ok: v.pipe(v.nullable(v.string()), v.metadata({ 'x-spec-deviation': 'null where the upstream has no value to give, rather than an invented one: a post without one' })),
      vague: v.pipe(v.nullable(v.string()), v.metadata({ 'x-spec-deviation': 'null where the upstream has no value to give, rather than an invented one' })),
      inner: v.object({ n: v.nullable(v.number()) }),
    });
    const T = { nullable: false };
    const problems: Problem[] = [];
    walk(0, schema as unknown as Node, { id: T, ok: T, vague: T, gone: T, inner: { nullable: false, shape: { n: T } } }, '', problems);
    expect(problems.map((p) => p.path).sort()).toEqual(['gone', 'id', 'inner.n', 'vague']);
  });
});

// ---- the spec view against the spec itself ---------------------------------------------------------

/** The spec beside the project: shared/spec/service-spec.md in a parent folder (CI), or SPEC_FILE. */
function specFile(): string | undefined {
  if (process.env.SPEC_FILE) return process.env.SPEC_FILE;
  for (let dir = path.resolve(__dirname, '..', '..', '..'), i = 0; i < 3; i++, dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'shared', 'spec', 'service-spec.md');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
const SPEC = specFile();
const withSpec = SPEC ? describe : describe.skip;

/** Every field of the spec view, with its path (recursive shapes once). */
function fieldsOf(shape: SpecShape, at = '', seen = new Set<unknown>()): { path: string; name: string; field: SpecField }[] {
  return Object.entries(shape).flatMap(([name, field]) => {
    const path = at ? `${at}.${name}` : name;
    const here = [{ path, name, field }];
    if (!field.shape || seen.has(field.shape)) return here;
    seen.add(field.shape);
    const inner = typeof field.shape === 'function' ? field.shape() : field.shape;
    return [...here, ...fieldsOf(inner, field.array ? `${path}[]` : path, seen)];
  });
}

withSpec(`the spec view matches the spec (${SPEC ?? 'not found'})`, () => {
  const spec = SPEC ? readFileSync(SPEC, 'utf8') : '';
  const all = Object.entries(SPEC_DATA).flatMap(([op, shape]) => fieldsOf(shape).map((f) => ({ op, ...f })));

  test('every field the view names is a name the spec uses', () => {
    const unknown = all.filter(({ name }) => !new RegExp(`(\`|\\{|, )${name}(\`|\\}|,| \\(|\\[)`).test(spec)).map(({ op, path }) => `${op} ${path}`);
    expect(unknown).toEqual([]);
  });

  test("every nullable field quotes the spec's words, and they name the field", () => {
    const wrong = all
      .filter(({ field }) => field.nullable)
      .filter(({ name, field }) => !field.evidence || !spec.includes(field.evidence) || !field.evidence.includes(name))
      .map(({ op, path, field }) => `${op} ${path}: ${field.evidence}`);
    expect(wrong).toEqual([]);
  });

  test('every nullable statement of the spec is quoted by the view', () => {
    const quotes = [...new Set([...all.map(({ field }) => field.evidence).filter((e): e is string => !!e), ...ALSO_SAID])];
    const covered: [number, number][] = [];
    for (const q of quotes) for (let i = spec.indexOf(q); i >= 0; i = spec.indexOf(q, i + 1)) covered.push([i, i + q.length]);
    const missed: string[] = [];
    for (const m of spec.matchAll(/nullable|or null|may be null|is null/gi)) {
      const at = m.index ?? 0;
      if (!covered.some(([from, to]) => from <= at && at + m[0].length <= to)) {
        const lineStart = spec.lastIndexOf('\n', at) + 1;
        missed.push(spec.slice(lineStart, spec.indexOf('\n', at)).slice(0, 160));
      }
    }
    expect(missed).toEqual([]);
  });
});
