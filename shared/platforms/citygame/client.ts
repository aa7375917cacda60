import type { AnswerRules, ParsedAnswer } from '../../scrape/answers';
import { type ScrapeContext, type UpstreamClient, upstreamClient } from '../../scrape/http';
import { NAVIGATION_HEADERS } from '../../scrape/upstream';
import type { CitygameSource } from './source';

/**
 * citygame upstream call: ONE GET of the deployer's source URL, through the one upstream client
 * (deadline, retries of 5xx, redirects followed only on the source's own host, anti-bot pages,
 * the shared answer classification). A JSON source is asked for JSON; an HTML source as a page.
 * The source is a document the deployer names, not a platform with error codes of its own, so
 * only the shared rules apply.
 */
const RULES: AnswerRules = { platform: 'citygame' };

let client: { url: string; api: UpstreamClient } | undefined;

/** One client per configured URL (the environment of a container does not change; a test's may). */
function apiFor(source: CitygameSource): UpstreamClient {
  if (client?.url !== source.url) client = { url: source.url, api: upstreamClient(source.upstream, RULES) };
  return client.api;
}

export function fetchBulletin(ctx: ScrapeContext, source: CitygameSource): Promise<ParsedAnswer> {
  const api = apiFor(source);
  const what = 'daily bulletin';
  return source.kind === 'json' ? api.answer(ctx, source.path, { what }) : api.text(ctx, source.path, { what, headers: NAVIGATION_HEADERS });
}
