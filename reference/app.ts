// The order matters: the server is this deployment before RapiDoc's element reads its attributes.
import './here';
import 'rapidoc';
import { namedExamples } from './examples';

/**
 * The API reference page (GET /docs): RapiDoc's web component (MIT; index.html sets its attributes)
 * over this deployment's own OpenAPI document, its single examples given as named ones (examples.ts:
 * how RapiDoc shows them). Its "Try" requests go to this deployment (here.ts; the CSP's connect-src
 * 'self' allows nothing else) with the key the reader types in, sent as x-api-key (the document's
 * apiKey scheme); no fonts or anything else from another origin (load-fonts="false").
 */
type RapiDoc = HTMLElement & { loadSpec(spec: object): Promise<void> };
const reference = document.getElementById('reference') as RapiDoc;
const base = document.body.dataset.base ?? '';

void fetch(`${base}/v1/openapi.json`, { credentials: 'omit' })
  .then(async (res) => {
    if (!res.ok) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
    await customElements.whenDefined('rapi-doc');
    await reference.loadSpec(namedExamples((await res.json()) as Record<string, unknown>));
  })
  .catch((err: unknown) => {
    reference.replaceChildren(Object.assign(document.createElement('p'), { textContent: `The reference could not load the API's document: ${String(err)}` }));
  });
