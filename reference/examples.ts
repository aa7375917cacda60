/**
 * The document as RapiDoc 9.3.8 shows its examples: a media type's single `example` given as a named
 * one (`examples: {Example: {value}}`), which OpenAPI reads the same. RapiDoc's standardizeExample
 * keeps an object `example` only when it has a `value` key (it takes it for a map of named
 * examples), so a real answer such as `{data, meta}` would be dropped for one generated from the
 * schema. Nothing else changes; the served document (GET /v1/openapi.json) is left as it is.
 */
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A media type object (a `content` entry) with its `example` moved under `examples`. */
function named(media: Json): Json {
  if (!('example' in media) || 'examples' in media) return media;
  const { example, ...rest } = media;
  return { ...rest, examples: { Example: { summary: 'A real answer', value: example } } };
}

const withContent = (holder: unknown): unknown =>
  isObject(holder) && isObject(holder.content) ? { ...holder, content: Object.fromEntries(Object.entries(holder.content).map(([type, m]) => [type, isObject(m) ? named(m) : m])) } : holder;

function operation(op: unknown): unknown {
  if (!isObject(op)) return op;
  const responses = isObject(op.responses) ? Object.fromEntries(Object.entries(op.responses).map(([status, r]) => [status, withContent(r)])) : op.responses;
  return { ...op, ...(op.requestBody ? { requestBody: withContent(op.requestBody) } : {}), ...(responses ? { responses } : {}) };
}

const pathItems = (items: unknown): unknown =>
  isObject(items) ? Object.fromEntries(Object.entries(items).map(([p, item]) => [p, isObject(item) ? Object.fromEntries(Object.entries(item).map(([k, v]) => [k, operation(v)])) : item])) : items;

export function namedExamples(doc: Json): Json {
  return { ...doc, paths: pathItems(doc.paths), ...(doc.webhooks ? { webhooks: pathItems(doc.webhooks) } : {}) };
}
