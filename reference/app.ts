// The order matters: the server is this deployment before RapiDoc's element reads its attributes.
import './here';
import 'rapidoc';

/**
 * The API reference page (GET /docs): RapiDoc's web component (MIT; index.html sets its attributes)
 * over this deployment's own OpenAPI document. Its "Try" requests go to this deployment (here.ts; the
 * CSP's connect-src 'self' allows nothing else) with the key the reader types in, sent as x-api-key
 * (the document's apiKey scheme); no fonts or anything else from another origin (load-fonts="false").
 */
