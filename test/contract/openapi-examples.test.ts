import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ERROR_STATUS, type ErrorCode } from '../../shared/http/errors';
import { routedOperations } from '../../shared/operations';
import { OPENAPI_FILE } from '../../scripts/openapi';
import { EXAMPLES_FILE, LIST_ITEMS, readExamples, renderExamples } from '../../scripts/openapi-examples';
import { captureExamples } from './openapi-examples-capture';

/**
 * The examples of docs/openapi.json (issue 41): every one is valid against its own schema, every
 * 2xx JSON answer has one, and they are real answers: capturing them again on the local API gives
 * the committed docs/openapi-examples.json byte for byte, so each error example's message is what a
 * request making that case happen answers today, and a capture is the same on every run.
 */
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- the document is arbitrary JSON

const doc = JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')) as Json;
// Unoptimized validators (code.optimize off): the same verdicts, a third less CPU to compile (test/support/openapi-check.ts).
const ajv = new Ajv2020({ strict: false, allErrors: true, code: { optimize: false } });
addFormats(ajv);
ajv.addSchema(doc, 'openapi');
const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** Every example of the document: where it is, the schema it must satisfy (a JSON pointer) and its value. */
function examples(): { at: string; schema: string; value: unknown }[] {
  const out: { at: string; schema: string; value: unknown }[] = [];
  for (const [p, item] of Object.entries(doc.paths as Json)) {
    for (const method of METHODS.filter((m) => item[m])) {
      const op = item[method];
      (op.parameters ?? []).forEach((param: Json, i: number) => {
        if (param.example !== undefined) out.push({ at: `${method} ${p} parameter ${param.name}`, schema: pointer('paths', p, method, 'parameters', String(i), 'schema'), value: param.example });
      });
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const media = response.content?.['application/json'];
        if (!media) continue;
        const schema = pointer('paths', p, method, 'responses', status, 'content', 'application/json', 'schema');
        if (media.example !== undefined) out.push({ at: `${method} ${p} ${status}`, schema, value: media.example });
        for (const [name, ex] of Object.entries((media.examples ?? {}) as Json)) out.push({ at: `${method} ${p} ${status} ${name}`, schema, value: ex.value });
      }
    }
  }
  for (const [type, item] of Object.entries((doc.webhooks ?? {}) as Json)) {
    const media = item.post.requestBody.content['application/json'];
    if (media.example !== undefined) out.push({ at: `webhook ${type}`, schema: pointer('webhooks', type, 'post', 'requestBody', 'content', 'application/json', 'schema'), value: media.example });
  }
  return out;
}

test('every example in docs/openapi.json is valid against its own schema', () => {
  const all = examples();
  expect(all.length).toBeGreaterThan(150);
  const invalid = all.flatMap(({ at, schema, value }) => {
    const validate = ajv.getSchema(`openapi#/${schema}`);
    if (!validate) return [`${at}: no schema`];
    return validate(value) ? [] : [`${at}: ${ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 400)}`];
  });
  expect(invalid).toEqual([]);
});

test('every 2xx JSON answer has an example', () => {
  const missing: string[] = [];
  for (const [p, item] of Object.entries(doc.paths as Json)) {
    for (const method of METHODS.filter((m) => item[m])) {
      for (const [status, response] of Object.entries(item[method].responses as Json)) {
        if (/^2/.test(status) && response.content?.['application/json'] && response.content['application/json'].example === undefined) missing.push(`${method} ${p} ${status}`);
      }
    }
  }
  expect(missing).toEqual([]);
});

test('the error examples: one per code an operation answers, each under its own code and status, with a message and a request id', () => {
  for (const op of routedOperations()) {
    for (const [status, response] of Object.entries(doc.paths[op.path].get.responses as Json)) {
      if (status === '200') continue;
      const found = (response.content['application/json'].examples ?? {}) as Json;
      expect({ op: op.id, status, some: Object.keys(found).length > 0 }).toEqual({ op: op.id, status, some: true });
      for (const [code, ex] of Object.entries(found)) {
        expect(ERROR_STATUS[code as ErrorCode]).toBe(Number(status));
        expect(ex.value.error).toEqual(expect.objectContaining({ code, message: expect.any(String), requestId: expect.any(String) }));
      }
    }
  }
  // The messages the issue found wrong: a 402 is about credits, a 404 about the content.
  const posts = doc.paths['/v1/microblog-a/user/posts'].get.responses;
  expect(posts[402].content['application/json'].examples.INSUFFICIENT_CREDITS.value.error.message).toMatch(/credit/);
  expect(posts[404].content['application/json'].examples.NOT_FOUND.value.error.message).toBe('The requested content does not exist or is not public');
});

test('every webhook event has an example taken from a delivery (bulletin.new from the demo\'s labelled sample source, the jobs\' from jobs run to their end)', () => {
  const without = Object.entries(doc.webhooks as Json).filter(([, item]) => item.post.requestBody.content['application/json'].example === undefined).map(([type]) => type);
  expect(without).toEqual([]);
  expect(Object.keys(doc.webhooks)).toEqual(expect.arrayContaining(['job.succeeded', 'job.failed', 'job.paused']));
  for (const state of ['succeeded', 'failed', 'paused']) expect(doc.webhooks[`job.${state}`].post.requestBody.content['application/json'].example.data.state).toBe(state);
  expect(doc.webhooks['bulletin.new'].post.requestBody.content['application/json'].example.data.bulletin.headline).toMatch(/sample data made for the demo/);
  expect(doc.webhooks['items.new'].post.requestBody.content['application/json'].example.data.items).toHaveLength(LIST_ITEMS);
});

test('capturing the examples again on the local API gives the committed docs/openapi-examples.json (run `npm run docs`)', async () => {
  const again = renderExamples(await captureExamples());
  const committed = readFileSync(EXAMPLES_FILE, 'utf8');
  if (again !== committed) {
    const a = JSON.parse(again) as Json;
    const c = readExamples();
    const differ = (['responses', 'errors', 'webhooks'] as const).flatMap((part) =>
      [...new Set([...Object.keys(a[part]), ...Object.keys(c[part])])].filter((k) => JSON.stringify(a[part][k]) !== JSON.stringify(c[part][k])).map((k) => `${part}: ${k}`),
    );
    throw new Error(`docs/openapi-examples.json is not what the local API answers now (${differ.join('; ')}): run \`npm run docs\` and commit the result`);
  }
}, 180_000);
