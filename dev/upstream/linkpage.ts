import { fixture, fixtureText, type FakeReply, type FakeUpstream, type RecordedRequest } from './fake';

/**
 * The linkpage upstream as the fake serves it (crafted fixtures, test/fixtures/linkpage/): the app
 * shell, its two vendors bundles (the token is in the "s-z" one), and the GraphQL endpoint, which
 * answers the resolve and page queries by their operation name and checks the bearer token.
 * Shared by the unit, gateway and contract tests and the bench.
 */
export const LINKPAGE_SHELL = '/login';
export const LINKPAGE_BUNDLES = ['/js/chunk-vendors~a-r.5e6f7a8b.js', '/js/chunk-vendors~s-z.0a1b2c3d.js'] as const;
export const LINKPAGE_GRAPHQL = '/v1/graphql';
/** The token in the crafted bundle. */
export const LINKPAGE_TOKEN = (fixtureText('linkpage/chunk-vendors-s-z.js').match(/VUE_APP_GRAPHQL_TOKEN:"([^"]+)"/) as RegExpMatchArray)[1]!;
export const LINKPAGE_INFLUENCER = '5f0c3a2e-8b1d-4e6f-9a27-3c4d5e6f7a81';

export interface LinkpageOptions {
  /** Usernames the resolve query finds (default: any). */
  knows?: (username: string) => boolean;
  /** The token the endpoint accepts (default: the bundle's). */
  validToken?: () => string;
  /** How a refused token is answered: HTTP 401 (default) or Hasura's 200 with an invalid-jwt error. */
  refusal?: 'http-401' | 'jwt-error';
  /** Replaces the page query's answer. */
  page?: () => FakeReply;
}

export const graphqlOperation = (req: RecordedRequest): string | undefined => {
  try {
    return (JSON.parse(req.body) as { query?: string }).query?.match(/^\s*query\s+(\w+)/)?.[1];
  } catch {
    return undefined;
  }
};

const unescapeLike = (s: string) => s.replace(/\\(.)/g, '$1');

export function linkpageRoutes(fake: FakeUpstream, opts: LinkpageOptions = {}): void {
  fake.on(LINKPAGE_SHELL, { body: fixtureText('linkpage/app-shell.html') });
  fake.on(LINKPAGE_BUNDLES[0], { body: fixtureText('linkpage/chunk-vendors-a-r.js'), headers: { 'content-type': 'application/javascript' } });
  fake.on(LINKPAGE_BUNDLES[1], { body: fixtureText('linkpage/chunk-vendors-s-z.js'), headers: { 'content-type': 'application/javascript' } });
  fake.on(LINKPAGE_GRAPHQL, (req): FakeReply => {
    const valid = opts.validToken?.() ?? LINKPAGE_TOKEN;
    if (req.method !== 'POST') return { status: 405, body: { error: 'POST only' } };
    if (req.headers.authorization !== `Bearer ${valid}`) {
      return opts.refusal === 'jwt-error' ? { body: fixture('linkpage/jwt-expired.json') } : { status: 401, body: fixture('linkpage/jwt-expired.json') };
    }
    const op = graphqlOperation(req);
    if (op === 'resolvePage') {
      const key = unescapeLike(String((JSON.parse(req.body) as { variables: { key: string } }).variables.key));
      if (opts.knows && !opts.knows(key.toLowerCase())) return { body: fixture('linkpage/resolve-empty.json') };
      return { body: { data: { byBanner: [{ influencer_id: LINKPAGE_INFLUENCER, url_key: key }], bySlug: [], byAlias: [] } } };
    }
    if (op === 'creatorPage') return opts.page?.() ?? { body: fixture('linkpage/page.json') };
    return { body: { errors: [{ message: `unknown operation ${op}`, extensions: { code: 'validation-failed' } }] } };
  });
}
