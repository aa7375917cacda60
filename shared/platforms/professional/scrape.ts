import type { Scraper } from '../../scrape/scraper';
import { fetchContentPage } from './client';
import { mapContent } from './map';
import type { PostData } from './resources';

/**
 * Operation 8, /v1/professional/post: a post or an article as a logged-out visitor sees it.
 * `url` arrives as the canonical URL (site.contentUrlParam): it is fetched, and it keys the cache.
 * One upstream round trip: the page itself (JSON-LD + DOM); nothing else is requested.
 */
export const scrapePost: Scraper<{ url: string }, PostData> = async ({ url }, ctx, log) => {
  const page = await fetchContentPage(ctx, url);
  return { content: mapContent(page.html, url, ctx.drops(log)) };
};
