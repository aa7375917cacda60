import { createApiReference } from '@scalar/api-reference';
import '@scalar/api-reference/style.css';

/**
 * The API reference page: Scalar's reference over this deployment's own OpenAPI document. Its
 * requests ("Test Request") go to this deployment (the page's origin and stage), with the key the
 * reader types in; nothing is fetched from another origin (no fonts, proxy, telemetry or agent).
 */
const base = document.body.dataset.base ?? '';
const here = `${window.location.origin}${base}`;

createApiReference('#reference', {
  url: `${base}/v1/openapi.json`,
  servers: [{ url: here, description: 'This deployment' }],
  baseServerURL: here,
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: false,
  showDeveloperTools: 'never',
  persistAuth: false,
  documentDownloadType: 'json',
  authentication: { preferredSecurityScheme: 'apiKey' },
});
