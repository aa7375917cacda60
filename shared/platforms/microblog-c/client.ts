import { extractionFailed, notFound } from '../../http/errors';
import type { AnswerRules, UpstreamAnswer } from '../../scrape/answers';
import { type ScrapeContext, upstreamClient } from '../../scrape/http';
import { get, isObject, need, str } from '../../scrape/map';
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
 * Answers we give meaning to (RULES): 404 {"error":"Record not found"} (unknown account); 401
 * {"error":"This method requires an authenticated user"} (an account hidden from logged-out viewers:
 * the spec counts it as hidden, 404; any other 401 is a refusal, UPSTREAM_BLOCKED); 400/422 on a
 * request with a cursor (the cursor refused);
 * 200 with `suspended: true` and emptied fields (suspended account; its statuses are []).
 * Anti-bot pages, 403, 429 and 5xx are the shared classifier's defaults.
 */
export const RULES: AnswerRules = {
  platform: 'microblog-c',
  message: (data) => str(get(data, 'error')) ?? str(get(data, 'error_message')),
  badCursor: [{ status: [400, 422] }],
  notFound: [
    { status: [404, 410] },
    // The account's own setting (unauth_visibility off) says it is hidden from logged-out viewers: 404.
    // A 401 without that message is no such statement: the shared default (a refusal, UPSTREAM_BLOCKED).
    { status: 401, message: /requires an authenticated user/i, say: 'The account is hidden from logged-out viewers' },
  ],
};
const api = upstreamClient(UPSTREAM, RULES);

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

function account(what: string, data: unknown): RawAccount {
  if (!isObject(data)) throw extractionFailed(`${what}: 200 without an account object`);
  if (isSuspended(data)) throw notFound();
  // The timeline is asked for by the account's id: without it, EXTRACTION_FAILED naming it.
  return { ...data, id: need(str(data.id), 'account id') };
}

export async function lookupAccount(ctx: ScrapeContext, username: string): Promise<RawAccount> {
  const what = `account lookup ${username}`;
  return account(what, await api.json(ctx, '/api/v1/accounts/lookup', { searchParams: { acct: username }, headers: referer(username), what }));
}

export async function fetchAccount(ctx: ScrapeContext, id: string): Promise<RawAccount> {
  const what = `account ${id}`;
  return account(what, await api.json(ctx, `/api/v1/accounts/${encodeURIComponent(id)}`, { headers: referer(), what }));
}

/** The `max_id` of the rel="next" link of a Link header (see TimelinePage.nextMaxId). */
export function nextMaxId(link: UpstreamAnswer['headers'][string]): string | null | undefined {
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

function statusList(what: string, data: unknown): unknown[] {
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
  const answer = await api.answer(ctx, `/api/v1/accounts/${encodeURIComponent(who.id)}/statuses`, {
    searchParams: { exclude_replies: true, with_muted: true, limit: PAGE_SIZE, max_id: maxId },
    headers: referer(who.username),
    what,
    cursor: maxId !== undefined,
  });
  return { items: statusList(what, answer.data), nextMaxId: nextMaxId(answer.headers.link) };
}

export async function fetchPinned(ctx: ScrapeContext, who: Who): Promise<unknown[]> {
  const what = `pinned statuses of ${who.id}`;
  return statusList(what, await api.json(ctx, `/api/v1/accounts/${encodeURIComponent(who.id)}/statuses`, { searchParams: { pinned: true, with_muted: true }, headers: referer(who.username), what }));
}
