import type * as v from 'valibot';
import type { Operation } from '../operations';

/**
 * CSV columns (the command line's and the bulk jobs' result files: shared/jobs/results.ts) from a resource's valibot schema (the operation table's `data`), so that they are
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

/**
 * The CSV rules of every CSV this service writes (the command line's output, the bulk jobs' result
 * files), csv-stringify's options: RFC 4180, CRLF after every record, quotes doubled, and every field
 * holding a line break quoted. `quoted_match`: csv-stringify quotes a field holding the record
 * delimiter (\r\n) but not one holding a lone \n or \r, which a reader takes as a row's end.
 */
export const CSV_OPTIONS = { record_delimiter: 'windows', eof: true, quoted_match: /[\r\n]/, bom: false } as const;

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

const unwrapPipe = (s: v.GenericSchema) => s as unknown as { type: string; item?: v.GenericSchema; options?: v.GenericSchema[] };

/** The `data` field that holds the operation's list, if it has one (see Command.listField). */
export function listOf(op: Operation): { field: string; items: v.GenericSchema[] } | undefined {
  const entries = (op.data as unknown as { entries?: Record<string, v.GenericSchema> }).entries ?? {};
  for (const [field, schema] of Object.entries(entries)) {
    const s = unwrapPipe(schema);
    // An optional or nullable array (microblog-b-note's `replies`, absent with trim=true) is not the
    // answer's list: the answer is its single resource.
    const arrays = s.type === 'array' ? [s] : s.type === 'union' ? (s.options ?? []).map(unwrapPipe) : [];
    if (arrays.length && arrays.every((a) => a.type === 'array' && a.item && ['object', 'loose_object', 'strict_object'].includes(unwrapPipe(a.item).type))) {
      return { field, items: arrays.map((a) => a.item!) };
    }
  }
  return undefined;
}


/** The columns of one record of an operation's answers: an item of its list, else the whole `data` (with the fetchedAt the pipeline adds). */
export function recordColumns(op: Operation): Column[] {
  const list = listOf(op);
  return list ? columnsOf(list.items) : [...columnsOf([op.data]), { name: 'fetchedAt', path: ['fetchedAt'], json: false }];
}

/** The fields that tell two items apart: the id and, for a repost, its time (a post and its repost share an id). The Python SDK is generated from these. */
export const ITEM_KEY_FIELDS = { id: 'id', repostedAt: 'repostedAt' } as const;

export function itemKey(item: Record<string, unknown>): string | undefined {
  const id = item[ITEM_KEY_FIELDS.id];
  if (id === undefined || id === null || id === '') return undefined;
  const repostedAt = item[ITEM_KEY_FIELDS.repostedAt];
  return repostedAt === undefined || repostedAt === null || repostedAt === '' ? String(id) : `${String(id)} reposted ${String(repostedAt)}`;
}

