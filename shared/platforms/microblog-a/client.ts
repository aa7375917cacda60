import type { AnswerRules } from '../../scrape/answers';
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
const RULES: AnswerRules = {
  platform: 'microblog-a',
  code: (data) => str(get(data, 'error')),
  message: (data) => str(get(data, 'message')),
  badCursor: [{ status: [400, 404], test: (a) => /cursor/i.test(`${a.code ?? ''} ${a.message ?? ''}`) }],
  notFound: [
    { status: [400, 404], code: ['AccountTakedown', 'AccountDeactivated', 'NotFound', 'ProfileNotFound'] },
    { status: [400, 404], message: /not found|suspended|deactivated|takedown/i },
    // A handle the AppView cannot resolve or refuses as an actor: there is no such public account.
    { status: [400, 404], code: 'InvalidRequest', message: /actor|handle|did/i },
  ],
};
const api = upstreamClient(UPSTREAM, RULES);
export const FEED_PAGE_SIZE = 30;

const xrpc = (ctx: ScrapeContext, method: string, params: Record<string, string | number | boolean | undefined>) =>
  api.json(ctx, `/xrpc/${method}`, { searchParams: params, what: method, cursor: params.cursor !== undefined });

export const getProfile = (ctx: ScrapeContext, actor: string) => xrpc(ctx, 'app.bsky.actor.getProfile', { actor });

export const getAuthorFeed = (ctx: ScrapeContext, actor: string, cursor?: string) =>
  xrpc(ctx, 'app.bsky.feed.getAuthorFeed', {
    actor,
    filter: 'posts_and_author_threads',
    includePins: cursor === undefined,
    limit: FEED_PAGE_SIZE,
    cursor,
  });
