import { badCursor, extractionFailed, notFound } from '../../errors';
import { type ScrapeContext, type UpstreamResponse, upstreamClient } from '../../scrape/http';
import { get, isObject, str } from '../../scrape/map';
import { isSuspended } from './map';
import { UPSTREAM, WEB_ORIGIN, profileUrl } from './site';

/**
 * microblog-c upstream calls (a Mastodon-style API, anonymous, as the web client makes them):
 *   GET /api/v1/accounts/lookup?acct=<username>   account by username
 *   GET /api/v1/accounts/<id>                      account by id
 *   GET /api/v1/accounts/<id>/statuses?exclude_replies=true&with_muted=true&limit=20[&max_id=<id>]
 *       a timeline page, newest first; `Link: <…&max_id=<last id>>; rel="next"` when the page is full
 *   GET /api/v1/accounts/<id>/statuses?pinned=true&with_muted=true
 *       the pinned posts (one page, no Link)
 * Answers we give meaning to: 404 {"error":"Record not found"} (unknown account);
 * 401 {"error":"This method requires an authenticated user"} (account hidden from logged-out viewers);
 * 200 with `suspended: true` and emptied fields (suspended account; its statuses are []).
 * Anti-bot pages, 403, 429 and 5xx are turned into errors by the shared client.
 */
const api = upstreamClient(UPSTREAM);

/** The web client's page size, which is also the upstream default (its maximum is 40). */
export const PAGE_SIZE = 20;

export type RawAccount = Record<string, unknown> & { id: string };

export interface TimelinePage {
  items: unknown[];
  /**
   * max_id of the `rel="next"` Link: a string when upstream offers a next page, null when it
   * answered with a Link header but no next page, undefined when it sent no Link header at all.
   */
  nextMaxId: string | null | undefined;
}

const referer = (username?: string) => ({ referer: username ? profileUrl(username) : `${WEB_ORIGIN}/` });

/** The upstream's own error text, for logs. */
function upstreamError(data: unknown): string {
  return str(get(data, 'error')) ?? str(get(data, 'error_message')) ?? (typeof data === 'string' ? data.slice(0, 120) : typeof data);
}

/** Throw the spec's error for any answer other than 200. */
function expectOk(what: string, status: number, data: unknown, opts: { cursor?: string } = {}): void {
  if (status >= 200 && status < 300) return;
  const why = `${what}: ${status} ${upstreamError(data)}`;
  // 401: the account does not allow logged-out viewers, which the spec counts as hidden (404).
  if (status === 404 || status === 410 || status === 401) throw notFound();
  if ((status === 400 || status === 422) && opts.cursor !== undefined) throw badCursor(why);
  throw extractionFailed(why);
}

function account(what: string, status: number, data: unknown): RawAccount {
  expectOk(what, status, data);
  if (!isObject(data) || !str(data.id)) throw extractionFailed(`${what}: 200 without an account object`);
  if (isSuspended(data)) throw notFound();
  return { ...data, id: str(data.id) as string };
}

export async function lookupAccount(ctx: ScrapeContext, username: string): Promise<RawAccount> {
  const { status, data } = await api.getJson(ctx, '/api/v1/accounts/lookup', {
    searchParams: { acct: username },
    headers: referer(username),
  });
  return account(`account lookup ${username}`, status, data);
}

export async function fetchAccount(ctx: ScrapeContext, id: string): Promise<RawAccount> {
  const { status, data } = await api.getJson(ctx, `/api/v1/accounts/${encodeURIComponent(id)}`, { headers: referer() });
  return account(`account ${id}`, status, data);
}

/** The `max_id` of the rel="next" link of a Link header (see TimelinePage.nextMaxId). */
export function nextMaxId(link: UpstreamResponse['headers'][string]): string | null | undefined {
  if (link === undefined) return undefined;
  const value = Array.isArray(link) ? link.join(', ') : link;
  for (const part of value.split(/,\s*(?=<)/)) {
    const m = part.match(/^\s*<([^>]*)>.*;\s*rel="?([^";]*)"?/);
    if (!m?.[1] || !(m[2] ?? '').split(/\s+/).includes('next')) continue;
    try {
      return new URL(m[1], WEB_ORIGIN).searchParams.get('max_id');
    } catch {
      return null;
    }
  }
  return null;
}

function statusList(what: string, status: number, data: unknown, opts: { cursor?: string } = {}): unknown[] {
  expectOk(what, status, data, opts);
  if (!Array.isArray(data)) throw extractionFailed(`${what}: 200 with ${isObject(data) ? 'an object' : typeof data}, not a list`);
  return data;
}

/** `username` only shapes the Referer (the profile page the web client would be on). */
export interface Who {
  id: string;
  username?: string;
}

export async function fetchTimeline(ctx: ScrapeContext, who: Who, maxId?: string): Promise<TimelinePage> {
  const what = `statuses of ${who.id}${maxId ? ` before ${maxId}` : ''}`;
  const { status, data, res } = await api.getJson(ctx, `/api/v1/accounts/${encodeURIComponent(who.id)}/statuses`, {
    searchParams: { exclude_replies: true, with_muted: true, limit: PAGE_SIZE, max_id: maxId },
    headers: referer(who.username),
  });
  return { items: statusList(what, status, data, { cursor: maxId }), nextMaxId: nextMaxId(res.headers.link) };
}

export async function fetchPinned(ctx: ScrapeContext, who: Who): Promise<unknown[]> {
  const { status, data } = await api.getJson(ctx, `/api/v1/accounts/${encodeURIComponent(who.id)}/statuses`, {
    searchParams: { pinned: true, with_muted: true },
    headers: referer(who.username),
  });
  return statusList(`pinned statuses of ${who.id}`, status, data);
}
