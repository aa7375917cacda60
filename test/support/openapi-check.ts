import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { OPENAPI_FILE } from '../../scripts/openapi';
import { OPENAPI_ROUTE } from '../../shared/public/openapi-document';

/**
 * Every response the gateway tests produce is checked against docs/openapi.json (the committed,
 * generated document): the body against the schema of its path and status, and the headers the
 * document promises (x-request-id; Retry-After on 429 and 503). So the document cannot drift from
 * what the service does. A status the document does not list for the operation is itself a failure.
 */
type Doc = { paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> } | undefined>> };

let ajv: Ajv2020 | undefined;
let doc: Doc | undefined;

function load() {
  if (ajv && doc) return { ajv, doc };
  doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Doc;
  // Unoptimized validators (ajv's code.optimize off): the same verdicts and errors, compiled with about
  // a third less CPU; each test file compiles the ones its responses need (0.2 to 1 s of CPU a file).
  ajv = new Ajv2020({ strict: false, allErrors: true, code: { optimize: false } });
  addFormats(ajv);
  ajv.addSchema(doc as object, 'openapi');
  return { ajv, doc };
}

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** null when the response matches the document, else what is wrong. `pathname` is the document's path (a template for the account API's `{keyId}`). */
export function openApiMismatch(pathname: string, status: number, headers: Record<string, string>, body: unknown, method = 'get'): string | null {
  const { ajv, doc } = load();
  const op = doc.paths[pathname]?.[method];
  if (!op) return null; // not an operation of the document (an unknown route's 404)
  const response = op.responses[String(status)];
  if (!response) return `${pathname}: status ${status} is not listed in docs/openapi.json`;
  for (const name of Object.keys(response.headers ?? {})) {
    if (headers[name.toLowerCase()] === undefined) return `${pathname} ${status}: header ${name} missing`;
  }
  if (pathname === OPENAPI_ROUTE) return null;
  const validate = ajv.getSchema(`openapi#/${pointer('paths', pathname, method, 'responses', String(status), 'content', 'application/json', 'schema')}`);
  if (!validate) return `${pathname} ${status}: no schema in docs/openapi.json`;
  if (validate(body)) return null;
  return `${pathname} ${status} does not match docs/openapi.json: ${ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 1500)}`;
}
