import { notFound } from '../../http/errors';
import { RememberedIds } from '../../scrape/remembered';
import type { Scraper } from '../../scrape/scraper';
import { PAGE_QUERY, RESOLVE_QUERY, graphql, likeLiteral } from './client';
import { mapPage, pageNames, resolvedInfluencerId } from './map';
import type { PageData } from './resources';
import { WEB_ORIGIN } from './site';

/**
 * Operation 6, /v1/linkpage/page: a creator page by its public URL.
 * `url` arrives as the lower-cased username (site.pageUrlParam): it keys the cache.
 * Round trips once the GraphQL token is known: resolve the username, then read the page (2); a
 * username this container resolved before goes straight to the page (1), as long as the page read
 * still answers to that name. The first request of all also reads the token (app shell + bundle).
 */
const influencerIds = new RememberedIds('linkpage');

export const scrapePage: Scraper<{ url: string }, PageData> = async ({ url: username }, ctx, log) => {
  const referer = `${WEB_ORIGIN}/${username}`;
  const known = influencerIds.get(username);
  if (known) {
    const data = await graphql(ctx, log, `page ${username}`, referer, PAGE_QUERY, { id: known });
    if (pageNames(data).includes(username)) return { page: mapPage(data, username, ctx.drops(log)) };
    influencerIds.forget(username);
  }
  const resolved = await graphql(ctx, log, `resolve ${username}`, referer, RESOLVE_QUERY, { key: likeLiteral(username) });
  const id = resolvedInfluencerId(resolved, username);
  if (!id) throw notFound();
  const data = await graphql(ctx, log, `page ${username}`, referer, PAGE_QUERY, { id });
  const page = mapPage(data, username, ctx.drops(log));
  if (pageNames(data).includes(username)) influencerIds.remember(username, id);
  return { page };
};
