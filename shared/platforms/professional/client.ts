import type { AnswerRules, ParsedAnswer } from '../../scrape/answers';
import { type ScrapeContext, upstreamClient } from '../../scrape/http';
import { SIGN_IN_MESSAGE, SIGN_IN_PATH, UPSTREAM } from './site';

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
    // The login page itself, wherever it is served from.
    { body: /<meta\s+name="pageKey"\s+content="d_checkpoint_|class="[^"]*\blogin__form\b/, say: SIGN_IN_MESSAGE },
    // A throttled or gated 200: a small page without any JSON-LD (a real page is 100-400 KB).
    { status: 200, test: (a) => a.body.length < 10_000 && !a.body.includes('application/ld+json') && !gone(a), say: SIGN_IN_MESSAGE },
  ],
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
