/**
 * A JSON API's routes as data (shared/api/router.ts serves them; the CDK stack, the local gateway,
 * the OpenAPI document and the clients read them). A module of types and one matcher, importing
 * nothing, so that reading a route table loads nothing else.
 *
 * Who may call a route: `key` — the team's API key only; `session` — a dashboard session only (a key
 * is ignored); `either` — the key when the request carries one, else the session; `public` — anyone
 * (sign-in and the like). The OpenAPI document's `security` of each route follows it.
 */
export type Caller = 'public' | 'session' | 'key' | 'either';
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteDef {
  readonly method: HttpMethod;
  /** With `{name}` path parameters: `/v1/monitors/{monitorId}`. */
  readonly path: string;
  readonly name: string;
  readonly caller: Caller;
  /** The largest JSON body the route accepts, when not the API's. */
  readonly maxBodyBytes?: number;
}

const compiled = new WeakMap<readonly RouteDef[], { route: RouteDef; re: RegExp }[]>();

/** The route for a method and a path (which may carry a stage or base-path prefix), and its path parameters. */
export function matchRoute<R extends RouteDef>(routes: readonly R[], method: string, path: string): { route: R; params: Record<string, string> } | null {
  let table = compiled.get(routes);
  if (!table) compiled.set(routes, (table = routes.map((route) => ({ route, re: new RegExp(`${route.path.replace(/\{(\w+)\}/g, '(?<$1>[^/]+)')}$`) }))));
  for (const { route, re } of table) {
    if (route.method !== method) continue;
    const m = re.exec(path);
    if (m) return { route: route as R, params: { ...(m.groups ?? {}) } };
  }
  return null;
}

