import type * as v from 'valibot';

/**
 * CSV columns from a resource's valibot schema (the operation table's `data`), so that they are
 * known before the first answer and the same in every run, whatever the answers hold:
 *   - an object's fields become dotted columns (`author.handle`), in the schema's order;
 *   - a nullable or optional object too (its cells are empty when it is null);
 *   - a union of objects (a full or trimmed note) gives every field of its options, in order of first
 *     appearance;
 *   - arrays, records, objects of unknown shape and recursive values (a quoted post) are one cell,
 *     JSON-encoded;
 *   - anything else is one cell as it is.
 */
export interface Column {
  name: string;
  path: string[];
  /** Written JSON-encoded (arrays and values of open shape). */
  json: boolean;
}

type Node = { type: string; entries?: Record<string, v.GenericSchema>; wrapped?: v.GenericSchema; options?: v.GenericSchema[] };

const OBJECTS = new Set(['object', 'loose_object', 'strict_object', 'object_with_rest']);
const WRAPPERS = new Set(['nullable', 'optional', 'nullish', 'undefinedable', 'exact_optional', 'non_nullable', 'non_optional', 'non_nullish']);
/** A value of these types is one plain cell. */
const SCALARS = new Set(['string', 'number', 'boolean', 'bigint', 'picklist', 'literal', 'enum', 'date', 'null', 'undefined']);

const unwrap = (schema: v.GenericSchema): Node => {
  let node = schema as unknown as Node;
  while (WRAPPERS.has(node.type) && node.wrapped) node = node.wrapped as unknown as Node;
  return node;
};

/** The object options of a schema: itself, or every option of a union of objects; none otherwise. */
function objectsOf(schema: v.GenericSchema): Node[] | undefined {
  const node = unwrap(schema);
  if (OBJECTS.has(node.type)) return Object.keys(node.entries ?? {}).length ? [node] : undefined;
  if (node.type === 'union' || node.type === 'variant') {
    const options = (node.options ?? []).map(objectsOf);
    return options.every((o) => o !== undefined) ? options.flat() as Node[] : undefined;
  }
  return undefined;
}

function isScalar(schema: v.GenericSchema): boolean {
  const node = unwrap(schema);
  if (node.type === 'union') return (node.options ?? []).every(isScalar);
  return SCALARS.has(node.type);
}

/** The columns of the records the schemas describe (their fields merged, first appearance first). */
export function columnsOf(schemas: v.GenericSchema[], prefix: string[] = []): Column[] {
  const columns = new Map<string, Column>();
  const add = (c: Column) => columns.has(c.name) || columns.set(c.name, c);
  const fields = new Map<string, v.GenericSchema[]>();
  for (const schema of schemas) {
    for (const node of objectsOf(schema) ?? []) {
      for (const [name, field] of Object.entries(node.entries ?? {})) fields.set(name, [...(fields.get(name) ?? []), field]);
    }
  }
  for (const [name, options] of fields) {
    const path = [...prefix, name];
    const nested = options.map(objectsOf);
    if (nested.every((n) => n !== undefined)) {
      for (const c of columnsOf(options, path)) add(c);
    } else {
      add({ name: path.join('.'), path, json: !options.every(isScalar) });
    }
  }
  return [...columns.values()];
}

/** One CSV row: the value at each column's path; null and absent values are empty cells. */
export function rowOf(record: unknown, columns: Column[]): string[] {
  return columns.map((c) => cell(at(record, c.path), c.json));
}

function at(value: unknown, path: string[]): unknown {
  let here = value;
  for (const key of path) {
    if (here === null || typeof here !== 'object' || Array.isArray(here)) return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

function cell(value: unknown, json: boolean): string {
  if (value === null || value === undefined) return '';
  if (json || typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
