import type { AnswerRules, ParsedAnswer } from '../../scrape/answers';
import { type ScrapeContext, upstreamClient } from '../../scrape/http';
import { SIGN_IN_MESSAGE, SIGN_IN_PATH, UPSTREAM, WALL_PAGE } from './site';

/**
 * professional upstream call: ONE GET of the logged-out page, as a browser navigation, no cookies:
 *   GET https://www.linkedin.com/posts/<slug>   (pageKey d_public_post, JSON-LD SocialMediaPosting|VideoObject|…)
 *   GET https://www.linkedin.com/pulse/<slug>   (pageKey d_flagship2_pulse_read, JSON-LD Article)
 * Same-platform redirects are followed (regional hosts, /authwall, /uas/login), so the answer's
 * final URL tells a sign-in wall apart from the content.
 */

const finalPath = (a: ParsedAnswer) => new URL(a.url).pathname;
/** Deleted or unavailable articles redirect to a URL naming article_not_found. */
const gone = (a: ParsedAnswer) => a.url.includes('article_not_found');

const RULES: AnswerRules = {
  platform: 'professional',
  blocked: [
    // 999 "Request denied": the network's anti-robot status (cloud addresses, rate).
    { status: 999, say: SIGN_IN_MESSAGE },
    // Sent to the auth wall, sign-up, login or a checkpoint instead of the content.
    { test: (a) => SIGN_IN_PATH.test(finalPath(a)), say: SIGN_IN_MESSAGE },
    // The auth wall, login or checkpoint page itself, wherever it is served from.
    { body: WALL_PAGE, say: SIGN_IN_MESSAGE },
  ],
  // A page with none of these and without the content is not a wall but a page we cannot read:
  // map.ts says EXTRACTION_FAILED, naming what it lacks.
  notFound: [
    { test: gone },
    { status: [404, 410] },
  ],
};
const web = upstreamClient(UPSTREAM, RULES);

/** The HTML of a usable content page, and the URL that finally answered. */
export async function fetchContentPage(ctx: ScrapeContext, canonicalUrl: string): Promise<{ html: string; url: string }> {
  const a = await web.text(ctx, canonicalUrl, { what: `page ${new URL(canonicalUrl).pathname}` });
  return { html: a.body, url: a.url };
}
