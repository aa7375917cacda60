/**
 * The Python SDK's generated module (python/social_data/_operations.py), from the one operation
 * table (shared/operations.ts) through the same OpenAPI document the API serves (scripts/openapi.ts:
 * parameters and `data` schemas, converted from the valibot schemas by @valibot/to-json-schema),
 * the error codes (shared/http/errors.ts), the command line's facts of each operation (its list
 * field and CSV columns, cli/table.ts), the key-readable account routes (shared/api/account-routes.ts)
 * and the monitors' routes (shared/api/monitor-routes.ts). `npm run docs` writes it; test/gateway/python/sdk.test.ts
 * fails when the committed file is not a fresh generation.
 *
 * What is written, in Python 3.9 syntax:
 *   - one exception class per error code, under SocialDataError (social_data/_http.py);
 *   - TypedDicts of each operation's `data` (a nullable field is Optional; a field the schema does
 *     not require is a key that may be absent: a `total=False` class over a base of the required ones);
 *   - one class per operation: `__call__` with keyword arguments (snake_case of the table's names),
 *     `pages()` for a cursor operation, `items()` for an operation with a list; docstrings from the table;
 *   - one namespace per platform, the account reads and the monitors, and `Api`, which Client extends.
 */
import path from 'node:path';
import { ERROR_STATUS, type ErrorCode } from '../shared/http/errors';
import { routedOperations, answeredStatuses, type Operation } from '../shared/operations';
import { ACCOUNT_ROUTES, KEY_READABLE } from '../shared/api/account-routes';
import { MONITOR_ROUTES } from '../shared/api/monitor-routes';
import { CACHE_MAX_AGE_SECONDS } from '../shared/http/validation';
import { ITEM_KEY_FIELDS } from '../cli/state';
import { operationCommands } from '../cli/table';
import { openApiDocument } from './openapi';

const ROOT = path.join(__dirname, '..');
export const PYTHON_OPERATIONS_PATH = path.join(ROOT, 'python', 'social_data', '_operations.py');

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON Schema nodes

/** `userId` -> `user_id`, `rotateSecret` -> `rotate_secret`, `microblog-a` -> `microblog_a`. */
export const snake = (name: string) => name.replace(/-/g, '_').replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
const pascal = (name: string) => name.split(/[-_]/).map((w) => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase()).join('');
const pascalId = (id: string) => id.replace(/(^|-)([a-z0-9])/g, (_, _d, c: string) => c.toUpperCase());
const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
/** The method of an operation in its platform's namespace: `microblog-a-user-posts` -> `user_posts`. */
export const pythonMethod = (op: Pick<Operation, 'id' | 'platform'>) => snake(op.id.slice(op.platform.length + 1));
export const pythonNamespace = (platform: string) => snake(platform);
export const ERROR_CLASS = (code: ErrorCode) => pascal(code);

const PY_KEYWORDS = new Set('False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield'.split(' '));
const identifier = (s: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(s) && !PY_KEYWORDS.has(s);
const literal = (v: unknown) => (typeof v === 'boolean' ? (v ? 'True' : 'False') : v === null ? 'None' : JSON.stringify(v));
/** A docstring's text: raw (descriptions hold regular expressions), never closing itself. */
const doc = (lines: string[], indent: string) => {
  const text = lines.join('\n').replace(/"""/g, "'''").replace(/\\$/gm, '\\ ');
  return `${indent}r"""${text.split('\n').map((l, i) => (i === 0 || l === '' ? l : `${indent}${l}`)).join('\n')}${text.includes('\n') ? `\n${indent}` : ''}"""`;
};
const wrap = (text: string, width = 92): string[] => {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + word.length + 1 > width) {
      out.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) out.push(line);
  return out;
};

/** JSON Schema -> Python type expressions, writing a TypedDict for every object with properties. */
class TypeWriter {
  readonly defs: string[] = [];
  /** The Python type of each field of each TypedDict written, by class name. */
  readonly fields = new Map<string, Map<string, string>>();
  private readonly written = new Set<string>();
  constructor(private readonly components: Json) {}

  /** The TypedDict of a component (`#/components/schemas/<name>`), written once. */
  component(name: string, extra: Record<string, string> = {}): string {
    if (!this.written.has(name)) {
      this.written.add(name);
      this.object(name, this.merged(this.components[name] as Json), extra);
    }
    return name;
  }

  /** An allOf of objects (a monitor with its secret) as one object: their properties and required keys together. */
  private merged(s: Json): Json {
    if (!Array.isArray(s.allOf)) return s;
    const parts = (s.allOf as Json[]).map((p) => this.merged(typeof p.$ref === 'string' ? (this.components[p.$ref.replace('#/components/schemas/', '')] as Json) : p));
    return { type: 'object', properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})), required: parts.flatMap((p) => (p.required as string[] | undefined) ?? []) };
  }

  type(s: Json | undefined, name: string): string {
    if (!s || typeof s !== 'object') return 'Any';
    if (typeof s.$ref === 'string') return this.component(s.$ref.replace('#/components/schemas/', ''));
    if ('const' in s) return `Literal[${literal(s.const)}]`;
    if (Array.isArray(s.enum)) return `Literal[${s.enum.map(literal).join(', ')}]`;
    const branches = (s.anyOf ?? s.oneOf) as Json[] | undefined;
    if (branches) return this.union(branches, name);
    if (Array.isArray(s.allOf)) return s.allOf.length === 1 ? this.type(s.allOf[0], name) : this.object(name, this.merged(s));
    if (Array.isArray(s.type)) return this.union(s.type.map((t: string) => ({ ...s, type: t })), name);
    switch (s.type) {
      case 'string':
        return 'str';
      case 'integer':
        return 'int';
      case 'number':
        return 'float';
      case 'boolean':
        return 'bool';
      case 'null':
        return 'None';
      case 'array':
        if (Array.isArray(s.prefixItems)) return `Tuple[${(s.prefixItems as Json[]).map((p, i) => this.type(p, `${name}${i}`)).join(', ')}]`;
        return `List[${this.type(s.items, `${name}Item`)}]`;
      case 'object':
        if (s.properties && Object.keys(s.properties).length) return this.object(name, s);
        return `Dict[str, ${s.additionalProperties && typeof s.additionalProperties === 'object' ? this.type(s.additionalProperties, `${name}Value`) : 'Any'}]`;
      default:
        return 'Any';
    }
  }

  private union(branches: Json[], name: string): string {
    const nullable = branches.some((b) => b.type === 'null');
    const rest = branches.filter((b) => b.type !== 'null');
    const types = [...new Set(rest.map((b, i) => this.type(b, rest.length > 1 ? `${name}${i + 1}` : name)))];
    const inner = types.length === 0 ? 'None' : types.length === 1 ? types[0]! : `Union[${types.join(', ')}]`;
    return nullable && types.length ? `Optional[${inner}]` : inner;
  }

  /** A TypedDict named `name` for an object schema; keys it does not require may be absent. */
  private object(name: string, s: Json, extra: Record<string, string> = {}): string {
    const required = new Set<string>([...((s.required as string[] | undefined) ?? []), ...Object.keys(extra)]);
    const fields = Object.entries((s.properties ?? {}) as Record<string, Json>).map(([key, child]) => [key, this.type(child, `${name}${upperFirst(key.replace(/[^A-Za-z0-9]/g, ''))}`)] as const);
    fields.push(...Object.entries(extra));
    this.fields.set(name, new Map(fields));
    const must = fields.filter(([k]) => required.has(k));
    const may = fields.filter(([k]) => !required.has(k));
    const klass = (cls: string, base: string, list: (readonly [string, string])[], total: boolean) => {
      if (list.every(([k]) => identifier(k))) {
        return [`class ${cls}(${base}${total ? '' : ', total=False'}):`, ...(list.length ? list.map(([k, t]) => `    ${k}: ${t}`) : ['    pass']), '', ''].join('\n');
      }
      // A key that is no Python name: the functional form (its types as forward references).
      return `${cls} = TypedDict(${JSON.stringify(cls)}, {${list.map(([k, t]) => `${JSON.stringify(k)}: ${JSON.stringify(t)}`).join(', ')}}${total ? '' : ', total=False'})\n\n\n`;
    };
    if (may.length && must.length && may.every(([k]) => identifier(k)) && must.every(([k]) => identifier(k))) {
      this.defs.push(klass(`_${name}Required`, 'TypedDict', must, true), klass(name, `_${name}Required`, may, false));
    } else if (may.length && must.length) {
      // Mixed with a key that is no Python name: every key optional, rather than a wrong required one.
      this.defs.push(klass(name, 'TypedDict', fields, false));
    } else {
      this.defs.push(klass(name, 'TypedDict', fields, must.length > 0 || fields.length === 0));
    }
    return name;
  }
}

interface PyParam {
  /** The Python keyword argument. */
  py: string;
  /** The query parameter (or JSON field) it is sent as. */
  wire: string;
  type: string;
  required: boolean;
  description: string;
}

/** A query parameter's Python type: `true`/`false` is a bool; an enum a Literal; otherwise as its schema says. */
function paramType(schema: Json, types: TypeWriter, name: string): string {
  if (Array.isArray(schema.enum) && schema.enum.length === 2 && schema.enum.includes('true') && schema.enum.includes('false')) return 'bool';
  // Digits only (a count, a number of days): an int, sent as its digits.
  if (schema.type === 'string' && schema.pattern === '^\\d+$') return 'int';
  return types.type(schema, name);
}

/** A description in Python's names: `userId` -> `user_id`. */
const pythonNames = (text: string, names: string[]) => names.reduce((t, n) => t.split(`\`${n}\``).join(`\`${snake(n)}\``), text);

const paramsOf = (parameters: Json[], types: TypeWriter, owner: string): PyParam[] => {
  const query = parameters.filter((p) => p.in === 'query');
  const names = query.map((p) => p.name as string);
  return query.map((p) => ({ py: snake(p.name as string), wire: p.name as string, type: paramType(p.schema as Json, types, `${owner}${pascal(snake(p.name as string))}`), required: p.required === true, description: pythonNames((p.description as string) ?? '', names) }));
};

const signature = (params: PyParam[], extra: string[] = []) => {
  const parts = ['self', ...(params.length || extra.length ? ['*'] : []), ...params.filter((p) => p.required).map((p) => `${p.py}: ${p.type}`), ...params.filter((p) => !p.required).map((p) => `${p.py}: Optional[${p.type}] = None`), ...extra];
  return parts.join(', ');
};
const wireDict = (params: PyParam[]) => `{${params.map((p) => `${JSON.stringify(p.wire)}: ${p.py}`).join(', ')}}`;
const argsDoc = (params: PyParam[], extra: [string, string][] = []) => [
  'Args:',
  ...params.flatMap((p) => wrap(`${p.py}${p.py !== p.wire ? ` (sent as \`${p.wire}\`)` : ''}${p.required ? ', required' : ''}: ${p.description}`, 88).map((l, i) => `    ${i ? '    ' : ''}${l}`)),
  ...extra.flatMap(([n, d]) => wrap(`${n}: ${d}`, 88).map((l, i) => `    ${i ? '    ' : ''}${l}`)),
];

function operationClass(op: Operation, doc0: Json, types: TypeWriter, command: ReturnType<typeof operationCommands>[number] | undefined): string {
  const cls = pascalId(op.id);
  const get = doc0.paths[op.path].get as Json;
  const params = paramsOf(get.parameters as Json[], types, cls);
  const dataType = types.component(`${cls}Data`, { fetchedAt: 'str' });
  const cursor = command?.cursorParam;
  const list = command?.listField;
  // The item type is the one written for the list's field of the data (List[<item>]).
  const listType = list ? types.fields.get(dataType)?.get(list) : undefined;
  // A list of one of two shapes (full or trimmed notes) is Union[List[A], List[B]]: its items are Union[A, B].
  const itemTypes = listType && /^(List\[\w+\]|Union\[List\[\w+\](, List\[\w+\])*\])$/.test(listType) ? [...listType.matchAll(/List\[(\w+)\]/g)].map((m) => m[1]!) : [];
  const itemType = itemTypes.length > 1 ? `Union[${itemTypes.join(', ')}]` : itemTypes[0];
  if (list && !itemType) throw new Error(`${op.id}: its list ${list} is not a List in the data's TypedDict (${listType})`);
  const pairs = (op.oneOf ?? []).map(([a, b]) => `Exactly one of \`${snake(a)}\` or \`${snake(b)}\` must be given; neither or both is a ValidationError (422).`);
  const errors = answeredStatuses(op).filter((s) => s !== 200).flatMap((s) => (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((c) => ERROR_STATUS[c] === s).map(ERROR_CLASS));
  const returns = `Result[${dataType}]: \`data\` (${dataType}) and \`meta\` (credits charged and remaining, cached, cached_at, request_id).`;
  const head = [
    `${op.number}. GET ${op.path}: ${op.summary}`,
    '',
    ...(op.pageSize ? [`Paged: about ${op.pageSize} items a page${cursor ? `; \`${snake(cursor)}\` asks for the next one (pages() and items() follow it)` : ''}.`, ''] : []),
    ...(op.sourceVariable ? [`Answers 503 (PlatformUnavailable) where the deployment names no source (${op.sourceVariable}).`, ''] : []),
    ...pairs.flatMap((p) => [...wrap(p), '']),
  ];
  const out: string[] = [];
  out.push(`class ${cls}(_Operation[${dataType}]):`);
  out.push(doc(head.slice(0, head[head.length - 1] === '' ? -1 : undefined), '    '));
  out.push('');
  out.push(`    _id = ${JSON.stringify(op.id)}`, `    _path = ${JSON.stringify(op.path)}`, `    _cursor = ${cursor ? JSON.stringify(cursor) : 'None'}`, `    _list = ${list ? JSON.stringify(list) : 'None'}`, `    _key = (${JSON.stringify(ITEM_KEY_FIELDS.id)}, ${JSON.stringify(ITEM_KEY_FIELDS.repostedAt)})`);
  // The command line's CSV columns of a record (cli/columns.ts): name, path, JSON-encoded or not.
  out.push('    _columns = (', ...(command?.columns ?? []).map((c) => `        (${JSON.stringify(c.name)}, (${c.path.map((p) => JSON.stringify(p)).join(', ')}${c.path.length === 1 ? ',' : ''}), ${c.json ? 'True' : 'False'}),`), '    )');
  out.push('');
  out.push(`    def __call__(${signature(params)}) -> Result[${dataType}]:`);
  out.push(doc([...head, ...argsDoc(params), '', 'Returns:', `    ${returns}`, '', 'Raises:', ...wrap(errors.map((e) => `${e}`).join(', '), 84).map((l) => `    ${l}`)], '        '));
  out.push(`        return self._call(${wireDict(params)})`, '');
  if (cursor) {
    const noCursor = params.filter((p) => p.wire !== cursor);
    out.push(`    def pages(${signature(noCursor, ['max_pages: Optional[int] = None'])}) -> Iterator[Result[${dataType}]]:`);
    out.push(doc(['Every page, following the cursor until the last (or max_pages). A cursor the API refuses raises BadRequest.', '', ...argsDoc(noCursor, [['max_pages', 'stop after this many pages']])], '        '));
    out.push(`        return self._pages(${wireDict(noCursor)}, max_pages)`, '');
  }
  if (list) {
    const noCursor = params.filter((p) => p.wire !== cursor);
    out.push(`    def items(${signature(noCursor, ['max_pages: Optional[int] = None', 'max_items: Optional[int] = None'])}) -> Items[${itemType}]:`);
    out.push(doc([`Each item of \`data.${list}\`${cursor ? ' of every page, once (an item an earlier page had is left out)' : ''}, within max_pages and max_items.`, '', ...argsDoc(noCursor, [['max_pages', 'stop after this many pages'], ['max_items', 'stop after this many items']])], '        '));
    out.push(`        return self._items(${wireDict(noCursor)}, max_pages, max_items)`, '');
  }
  out.push('');
  return out.join('\n');
}

/** A route of the account or monitors API as a method: path parameters first (positional), then the query's and the body's keywords. */
function routeMethod(name: string, method: string, routePath: string, doc0: Json, types: TypeWriter, owner: string): string {
  const o = doc0.paths[routePath][method.toLowerCase()] as Json;
  const pathParams = [...routePath.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const query = paramsOf(((o.parameters ?? []) as Json[]).filter((p) => !pathParams.includes(p.name)), types, `${owner}${upperFirst(name)}`);
  const bodySchema = o.requestBody?.content?.['application/json']?.schema as Json | undefined;
  const body: PyParam[] = bodySchema
    ? Object.entries((bodySchema.properties ?? {}) as Record<string, Json>).map(([k, s]) => ({ py: snake(k), wire: k, type: types.type(s, `${owner}${upperFirst(name)}${upperFirst(k)}`), required: ((bodySchema.required ?? []) as string[]).includes(k), description: (s.description as string) ?? '' }))
    : [];
  const positional = pathParams.map((p) => `${snake(p)}: str`);
  // The type of the answer's `data`, from the route's success response in the document.
  const success = Object.entries((o.responses ?? {}) as Record<string, Json>).find(([status]) => status.startsWith('2'))?.[1];
  const dataSchema = success?.content?.['application/json']?.schema?.properties?.data as Json | undefined;
  const dataType = dataSchema ? types.type(dataSchema, `${owner}${upperFirst(name)}Data`) : 'Dict[str, Any]';
  const kw = [...query, ...body];
  const sig = ['self', ...positional, ...(kw.length ? ['*'] : []), ...kw.filter((p) => p.required).map((p) => `${p.py}: ${p.type}`), ...kw.filter((p) => !p.required).map((p) => `${p.py}: Optional[${p.type}] = None`)].join(', ');
  const out: string[] = [];
  out.push(`    def ${snake(name)}(${sig}) -> Result[${dataType}]:`);
  out.push(doc([`${method} ${routePath}: ${o.summary ?? ''}`.trim(), ...(kw.length ? ['', ...argsDoc(kw)] : [])], '        '));
  const pathExpr = pathParams.length ? `_path(${JSON.stringify(routePath)}, ${pathParams.map(snake).join(', ')})` : JSON.stringify(routePath);
  out.push(`        return self._send(${JSON.stringify(method)}, ${pathExpr}, ${query.length ? wireDict(query) : 'None'}, ${bodySchema ? wireDict(body) : 'None'})`, '');
  // A GET whose answer carries a cursor for its `cursor` parameter (the request history): every page too.
  const answer = dataSchema && typeof dataSchema.$ref === 'string' ? (doc0.components.schemas[dataSchema.$ref.replace('#/components/schemas/', '')] as Json) : dataSchema;
  const cursorParam = query.find((p) => p.wire === 'cursor');
  if (method === 'GET' && cursorParam && answer?.properties?.cursor) {
    const rest = query.filter((p) => p !== cursorParam);
    out.push(`    def ${snake(name)}_pages(${['self', ...(rest.length ? ['*'] : []), ...rest.map((p) => `${p.py}: Optional[${p.type}] = None`)].join(', ')}) -> Iterator[Result[${dataType}]]:`);
    out.push(doc([`Every page of ${method} ${routePath}, following the cursor to the last.`, ...(rest.length ? ['', ...argsDoc(rest)] : [])], '        '));
    out.push(`        return self._pages(${JSON.stringify(routePath)}, ${wireDict(rest)}, "cursor")`, '');
  }
  return out.join('\n');
}

export function renderPythonOperations(): string {
  const doc0 = openApiDocument() as Json;
  const types = new TypeWriter(doc0.components.schemas as Json);
  const ops = [...routedOperations()].sort((a, b) => a.number - b.number);
  const commands = new Map(operationCommands().map((c) => [c.op.id, c]));
  const opClasses = ops.map((op) => operationClass(op, doc0, types, commands.get(op.id)));

  const errors = (Object.keys(ERROR_STATUS) as ErrorCode[]).map((code) => [`class ${ERROR_CLASS(code)}(SocialDataError):`, `    """${code} (HTTP ${ERROR_STATUS[code]})."""`, '', `    code = ${JSON.stringify(code)}`, `    status = ${ERROR_STATUS[code]}`, '', ''].join('\n'));

  const platforms = [...new Set(ops.map((o) => o.platform))];
  const namespaces = platforms.map((platform) => {
    const mine = ops.filter((o) => o.platform === platform);
    return [
      `class ${pascalId(platform)}:`,
      `    """The ${platform} operations: ${mine.map((o) => pythonMethod(o)).join(', ')}."""`,
      '',
      '    def __init__(self, transport: Transport) -> None:',
      ...mine.map((o) => `        self.${pythonMethod(o)} = ${pascalId(o.id)}(transport)`),
      '',
      '',
    ].join('\n');
  });

  const accountRoutes = ACCOUNT_ROUTES.filter((r) => (KEY_READABLE as readonly string[]).includes(r.name));
  const account = ['class Account(_Routes):', '    """The team\'s own account, read with the API key (free): its balance, usage and request history."""', '', ...accountRoutes.map((r) => routeMethod(r.name, r.method, r.path, doc0, types, 'Account')), ''].join('\n');
  const monitors = ['class Monitors(_Routes):', '    """The team\'s monitors (docs/monitors.md), managed with the API key (free)."""', '', ...MONITOR_ROUTES.map((r) => routeMethod(r.name === 'remove' ? 'delete' : r.name, r.method, r.path, doc0, types, 'Monitor')), ''].join('\n');

  const api = [
    'class Api:',
    '    """Every operation, by platform, with the account and monitors APIs, over one transport."""',
    '',
    '    def __init__(self, transport: Transport) -> None:',
    '        self._transport = transport',
    ...platforms.map((p) => `        self.${pythonNamespace(p)} = ${pascalId(p)}(transport)`),
    '        self.account = Account(transport)',
    '        self.monitors = Monitors(transport)',
    '',
    '',
  ].join('\n');

  const operationIndex = ['#: Each operation: its id -> (namespace, method), as the Client names them.', 'OPERATIONS: Dict[str, Tuple[str, str]] = {', ...ops.map((o) => `    ${JSON.stringify(o.id)}: (${JSON.stringify(pythonNamespace(o.platform))}, ${JSON.stringify(pythonMethod(o))}),`), '}', ''].join('\n');

  return [
    '# Generated by `npm run docs` (scripts/python-sdk.ts) from shared/operations.ts through docs/openapi.json,',
    '# shared/http/errors.ts, cli/table.ts, shared/api/account-routes.ts and shared/api/monitor-routes.ts. Do not edit by hand.',
    'from __future__ import annotations',
    '',
    'from typing import Any, Dict, Iterator, List, Literal, Optional, Tuple, TypedDict, Union',
    '',
    'from ._http import Items, Result, SocialDataError, Transport, _Operation, _path, _Routes',
    '',
    `CacheMaxAge = Literal[${Object.keys(CACHE_MAX_AGE_SECONDS).map(literal).join(', ')}]`,
    '',
    '',
    ...errors,
    '#: Each error code of the API -> its exception class.',
    `ERRORS = {${(Object.keys(ERROR_STATUS) as ErrorCode[]).map((c) => `${JSON.stringify(c)}: ${ERROR_CLASS(c)}`).join(', ')}}`,
    '',
    '',
    ...types.defs,
    ...opClasses,
    ...namespaces,
    account,
    '',
    monitors,
    '',
    api,
    operationIndex,
  ].join('\n').replace(/\n{3,}(?=\S)/g, '\n\n\n').replace(/\n+$/, '\n');
}
