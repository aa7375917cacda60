import { extractionFailed } from '../../http/errors';
import type { Log } from '../../runtime/log';
import type { AnswerRules, Signal } from '../../scrape/answers';
import { SharedCredential } from '../../scrape/credentials';
import { type ScrapeContext, upstreamClient } from '../../scrape/http';
import { get, str } from '../../scrape/map';
import { isPlatformUrl, sameOriginApiHeaders } from '../../scrape/upstream';
import { APP_SHELL_PATH, UPSTREAM, WEB_ORIGIN } from './site';

/**
 * linkpage upstream calls (research note §2.2):
 *   GET  https://pillar.io/login                 the app shell; names /js/chunk-vendors.<hash>.js
 *   GET  https://pillar.io/js/chunk-vendors….js  VUE_APP_GRAPHQL_ENDPOINT:"…" and VUE_APP_GRAPHQL_TOKEN:"…"
 *   POST <endpoint> {query: RESOLVE}             the username -> influencer id
 *   POST <endpoint> {query: PAGE}                the page: influencer, banner, links, products, builder items
 * The endpoint and token are one shared credential (memory + DynamoDB), kept 6 h and obtained again
 * once when the endpoint refuses the token (HTTP 401 or a JWT error). So a request costs 2 round
 * trips once the token is known, 4 the very first time (shell, bundle, then the 2 queries).
 * GraphQL errors are EXTRACTION_FAILED (the schema changed under us), as is a bundle without a token.
 */
const RULES: AnswerRules = {
  platform: 'linkpage',
  code: (data) => str(get(data, 'errors', 0, 'extensions', 'code')),
  message: (data) => str(get(data, 'errors', 0, 'message')),
};
const api = upstreamClient(UPSTREAM, RULES);

export interface GraphqlAccess {
  endpoint: string;
  token: string;
}

const VENDORS_SRC = /<script[^>]+src="([^"]*\/js\/chunk-vendors[^"]*\.js)"/g;
const ENDPOINT_IN_BUNDLE = /VUE_APP_GRAPHQL_ENDPOINT\s*:\s*"([^"]+)"/;
const TOKEN_IN_BUNDLE = /VUE_APP_GRAPHQL_TOKEN\s*:\s*"([^"]+)"/;

/** Reads the endpoint and the public token out of the app's vendors bundle. */
async function obtainAccess(ctx: ScrapeContext, log: Log): Promise<GraphqlAccess> {
  const shell = await api.text(ctx, APP_SHELL_PATH, { what: 'app shell' });
  const sources = [...new Set([...shell.body.matchAll(VENDORS_SRC)].map((m) => m[1]!))];
  if (sources.length === 0) throw extractionFailed('linkpage: the app shell names no vendors bundle');
  // The vendors chunk that holds the app's environment is usually the one split last (name with "s-z").
  sources.sort((a, b) => Number(/s-z/.test(b)) - Number(/s-z/.test(a)));
  for (const src of sources.slice(0, 3)) {
    const bundle = await api.text(ctx, new URL(src, WEB_ORIGIN).toString(), { what: 'vendors bundle' });
    const endpoint = bundle.body.match(ENDPOINT_IN_BUNDLE)?.[1];
    const token = bundle.body.match(TOKEN_IN_BUNDLE)?.[1];
    if (!endpoint || !token) continue;
    let host: string;
    try {
      host = new URL(endpoint).host;
    } catch {
      throw extractionFailed(`linkpage: the bundle names an unreadable GraphQL endpoint ${endpoint.slice(0, 120)}`);
    }
    // Only the platform's own hosts, over https on the default port, are ever requested: a new
    // host must be added to UPSTREAM.hosts (by its exact name, on a domain the platform owns).
    if (!isPlatformUrl(UPSTREAM, endpoint)) throw extractionFailed(`linkpage: the bundle names a GraphQL endpoint ${new URL(endpoint).protocol}//${host}, not https on one of the platform's hosts`);
    log.info('linkpage GraphQL access read from the app bundle', { host, bundle: src });
    return { endpoint, token };
  }
  throw extractionFailed('linkpage: no GraphQL endpoint and token in the app bundle');
}

/** Shared by every container: one obtain per 6 h, or per refusal. */
export const GRAPHQL_ACCESS = new SharedCredential<GraphqlAccess>({ name: 'linkpage#graphql-access', ttlMs: 6 * 3600_000, obtain: obtainAccess });

/** The endpoint refused the token: HTTP 401, or a JWT error in a GraphQL answer. */
const TOKEN_REFUSED: Signal[] = [{ status: 401 }, { code: ['invalid-jwt', 'invalid-headers'] }, { message: /\bJWT\b|JWSError/i }];

/** One GraphQL query: its `data`, with the token replaced once if the endpoint refuses it. */
export async function graphql(ctx: ScrapeContext, log: Log, what: string, referer: string, query: string, variables: Record<string, unknown>): Promise<Record<string, unknown>> {
  let access = await GRAPHQL_ACCESS.get(ctx, log);
  // The endpoint is on a sibling host of the page (or a hosted one): a same-site call.
  const headers = () => ({ ...sameOriginApiHeaders(WEB_ORIGIN, referer, 'same-site'), accept: 'application/json', authorization: `Bearer ${access.token}` });
  const a = await api.answer(ctx, access.endpoint, {
    method: 'POST',
    json: { query, variables },
    headers: headers(),
    what,
    repairs: [
      {
        kind: 'GraphQL token',
        when: TOKEN_REFUSED,
        async mend(refused, retry) {
          log.warn('linkpage GraphQL token refused; reading a new one', { status: refused.status, code: refused.code });
          access = await GRAPHQL_ACCESS.replace(ctx, log, access);
          retry.url = access.endpoint;
          retry.opts.headers = headers();
          return 'retry';
        },
      },
    ],
  });
  const errors = get(a.data, 'errors');
  if (Array.isArray(errors) && errors.length > 0) throw extractionFailed(`linkpage ${what}: GraphQL errors: ${a.code ?? ''} ${String(a.message ?? '').slice(0, 200)}`);
  const data = get(a.data, 'data');
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw extractionFailed(`linkpage ${what}: an answer without data`);
  return data as Record<string, unknown>;
}

/** `_ilike` without wildcards: the username itself, case-insensitively. */
export const likeLiteral = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export const RESOLVE_QUERY = `query resolvePage($key: String!) {
  byBanner: shop_banner(where: {url_key: {_ilike: $key}}, limit: 3) { influencer_id url_key }
  bySlug: shop_builder_item_url_slug(where: {slug: {_ilike: $key}}, limit: 3) { slug influencer_id }
  byAlias: users_influencer(where: {alias: {_ilike: $key}}, limit: 3) { id alias }
}`;

export const PAGE_QUERY = `query creatorPage($id: uuid!) {
  influencer: users_influencer_by_pk(id: $id) {
    id alias contact_email created_at
    socials { channel handle url channel_name primary_connection }
    user { id first_name last_name full_name email bio profile_image title verified }
  }
  banner: shop_banner_by_pk(influencer_id: $id) { url_key clicks customizations }
  links: shop_custom_link(where: {influencer_id: {_eq: $id}}, order_by: {order: asc_nulls_last}) { link_id order clicks status data }
  products: shop_featured_product(where: {influencer_id: {_eq: $id}, status: {_neq: "DELETED"}}, order_by: {order: asc_nulls_last}) {
    product_id name description price currency url image order show_price brand_name brand_url status
  }
  builderItems: shop_builder_item(where: {influencer_id: {_eq: $id}, status: {_neq: "DELETED"}}, order_by: {order: asc_nulls_last}) {
    id type order clicks status visible data
  }
}`;
