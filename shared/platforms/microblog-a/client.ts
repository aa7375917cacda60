import { badCursor, blocked, extractionFailed, notFound } from '../../errors';
import { get, str } from '../../scrape/map';
import { upstreamClient, type ScrapeContext } from '../../scrape/http';
import { UPSTREAM } from './site';

/**
 * Upstream calls (XRPC, logged out):
 *   GET /xrpc/app.bsky.actor.getProfile?actor=<handle|did>
 *   GET /xrpc/app.bsky.feed.getAuthorFeed?actor=&filter=posts_and_author_threads&includePins=&limit=30[&cursor=]
 * Errors arrive as {error, message}: 400 InvalidRequest "Profile not found", AccountTakedown,
 * AccountDeactivated, "Malformed cursor".
 */
const api = upstreamClient(UPSTREAM);
export const FEED_PAGE_SIZE = 30;

async function xrpc(ctx: ScrapeContext, method: string, params: Record<string, string | number | boolean | undefined>) {
  const { status, data } = await api.getJson(ctx, `/xrpc/${method}`, { searchParams: params });
  if (status === 200) return data;
  const error = str(get(data, 'error')) ?? '';
  const message = str(get(data, 'message')) ?? '';
  if (status === 400 || status === 404) {
    if (/cursor/i.test(message) || /cursor/i.test(error)) throw badCursor(`${method}: ${error} ${message}`);
    if (['AccountTakedown', 'AccountDeactivated', 'NotFound', 'ProfileNotFound'].includes(error) || /not found|suspended|deactivated|takedown/i.test(message)) {
      throw notFound();
    }
    // A handle the AppView cannot resolve or refuses as an actor: there is no such public account.
    if (error === 'InvalidRequest' && /actor|handle|did/i.test(message)) throw notFound();
  }
  if (status === 401) throw blocked(`${method} answered 401 ${error}`);
  throw extractionFailed(`${method} answered ${status} ${error} ${message}`.trim());
}

export const getProfile = (ctx: ScrapeContext, actor: string) => xrpc(ctx, 'app.bsky.actor.getProfile', { actor });

export const getAuthorFeed = (ctx: ScrapeContext, actor: string, cursor?: string) =>
  xrpc(ctx, 'app.bsky.feed.getAuthorFeed', {
    actor,
    filter: 'posts_and_author_threads',
    includePins: cursor === undefined,
    limit: FEED_PAGE_SIZE,
    cursor,
  });
