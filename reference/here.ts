/**
 * Before RapiDoc's element is defined (app.ts imports this module first): its requests go to this
 * deployment, the page's own origin and the stage before /docs (index.html's data-base).
 */
const base = document.body.dataset.base ?? '';
const here = `${window.location.origin}${base}`;
const reference = document.getElementById('reference');
reference?.setAttribute('server-url', here);
reference?.setAttribute('default-api-server', here);
