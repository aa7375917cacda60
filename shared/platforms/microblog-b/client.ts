import { randomBytes } from 'node:crypto';
import { extractionFailed } from '../../http/errors';
import type { Log } from '../../runtime/log';
import type { AnswerRules, ParsedAnswer, Signal } from '../../scrape/answers';
import { SharedCredential } from '../../scrape/credentials';
import { type Repair, type Retry, type ScrapeContext, upstreamClient } from '../../scrape/http';
import { get, int, need, str } from '../../scrape/map';
import { NAVIGATION_HEADERS } from '../../scrape/upstream';
import { keptWarm } from '../../scrape/warm';
import { API_ORIGIN, UPSTREAM, WEB_ORIGIN } from './site';

/**
 * microblog-b upstream calls, all logged out with a guest token:
 *   POST https://api.x.com/1.1/guest/activate.json            -> {"guest_token": "…"}  (public web bearer)
 *   GET  https://x.com/i/api/graphql/<queryId>/<Operation>?variables=…&features=…&fieldToggles=…
 *        Operation: UserByScreenName (profile), UserTweets (a profile's notes), TweetResultByRestId (one
 *        note), TweetDetail (a note's conversation)
 *   GET  https://x.com/x, then its https://abs.twimg.com/…js bundle files: the current query ids, read
 *        only when the upstream refuses one of ours (a 404 without a GraphQL answer, or "query not found").
 *
 * The guest token and the query-id table are SharedCredentials: one for every function and container
 * (memory + one DynamoDB item), obtained again once when refused, however many requests notice.
 * The token is refused by 403 code 239 "Bad guest token" or a 401 (then replaced and the call retried
 * once), and is retired before its next use when `x-rate-limit-remaining` runs low.
 *
 * Answers (RULES): 429, code 88 "Rate limit exceeded", codes 37/326 "Denied by access control", an HTML
 * (login / Cloudflare) page -> UPSTREAM_BLOCKED with Retry-After from x-rate-limit-reset; "LoadShed",
 * "Over capacity" (130/131) -> PLATFORM_UNAVAILABLE; codes 50 "User not found", 63 "User has been
 * suspended", 144 "No status found" -> NOT_FOUND. Error 336 ("The following features cannot be
 * null: …") and any other non-2xx are EXTRACTION_FAILED, logged with the upstream's message, which
 * names what was missing. Unavailable users and notes inside a 200 are read by map.ts.
 */
const RULES: AnswerRules = {
  platform: 'microblog-b',
  code: (data) => int(get(data, 'errors', 0, 'code')),
  message: (data) => str(get(data, 'errors', 0, 'message')) ?? str(get(data, 'error')),
  blocked: [
    { status: 429 },
    { code: 88 },
    { code: [37, 326] },
    { message: /Denied by access control/i },
  ],
  unavailable: [{ code: [130, 131] }, { message: /LoadShed|Over capacity/i }],
  notFound: [{ code: [50, 63, 144] }],
};
const api = upstreamClient(UPSTREAM, RULES);

/** The public bearer of the logged-out web client (the same string in every public client). */
const BEARER = 'AAAAAAAAAAAAAAAAAAAAANRILgAAAAAAnNwIzUejRCOuH5E6I8xnZz4puTs%3D1Zv7ttfk8LF81IUq16cHjhLTvJu4FA33AGWWjCpTnA';

export type GqlOperation = 'UserByScreenName' | 'UserTweets' | 'TweetResultByRestId' | 'TweetDetail';
export type QueryIds = Record<GqlOperation, string>;

/** The query ids we start from (2026-08); replaced from the web bundle when refused. */
export const STATIC_QUERY_IDS: QueryIds = {
  UserByScreenName: 'Gb-d6r0vxPOADdG62OEBpQ',
  UserTweets: 'eoJ5zbv51Z_KVl81v9PmLQ',
  TweetResultByRestId: '2ICDjqPd81tulZcYrtpTuQ',
  TweetDetail: '559hs_YZNV4IgA3Z6zIIuw',
};
const OPERATIONS = Object.keys(STATIC_QUERY_IDS) as GqlOperation[];

/** Tokens live about 3 h upstream; we stop using one a little before. */
export const GUEST_TOKEN_TTL_MS = 170 * 60_000;
/** Below this many remaining calls (x-rate-limit-remaining) the token is retired before its next use. */
export const LOW_REMAINING = 10;
/** Most bundle files read when refreshing query ids. */
const MAX_BUNDLE_FILES = 40;

async function activate(ctx: ScrapeContext): Promise<string> {
  const data = await api.json(ctx, `${API_ORIGIN}/1.1/guest/activate.json`, {
    method: 'POST',
    body: '',
    headers: { authorization: `Bearer ${BEARER}`, 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-site' },
    what: 'guest token activation',
  });
  return need(str(get(data, 'guest_token')), 'guest token in the activation answer');
}

export const guestToken = new SharedCredential<string>({ name: 'microblog-b#guest-token', ttlMs: GUEST_TOKEN_TTL_MS, obtain: (ctx) => activate(ctx) });
export const queryIds = new SharedCredential<Partial<QueryIds>>({ name: 'microblog-b#query-ids', ttlMs: 24 * 3600_000, obtain: (ctx, log) => idsFromBundle(ctx, log), leaseMs: 15_000 });

/** Tokens the upstream said are nearly spent: replaced before their next use. */
const exhausted = new Set<string>();
/** The query ids this container uses now: the static table until one is refused. */
let activeIds: QueryIds = { ...STATIC_QUERY_IDS };

keptWarm('microblog-b', () => {
  exhausted.clear();
  activeIds = { ...STATIC_QUERY_IDS };
});

async function currentToken(ctx: ScrapeContext, log: Log): Promise<string> {
  const token = await guestToken.get(ctx, log);
  if (!exhausted.has(token)) return token;
  const fresh = await guestToken.replace(ctx, log, token);
  exhausted.delete(token);
  return fresh;
}

// ---- query ids from the web bundle --------------------------------------------------------------

const ID_PATTERNS = [
  // legacy webpack build
  /queryId:"([A-Za-z0-9_-]{10,40})"[^{}]{0,200}?operationName:"([A-Za-z]+)"/g,
  // x-web (Relay) build
  /params:\{id:"([A-Za-z0-9_-]{10,40})"(?:(?!params:\{)[\s\S]){0,300}?name:"([A-Za-z]+)"/g,
  // endpoint templates: …/graphql/<id>/<name>
  /graphql\/([A-Za-z0-9_-]{10,40})\/([A-Za-z]+)/g,
];

/** The query ids of the operations we use that a bundle file names. */
export function queryIdsIn(js: string): Partial<QueryIds> {
  const found: Partial<QueryIds> = {};
  for (const re of ID_PATTERNS) {
    for (const m of js.matchAll(re)) {
      const [, id, name] = m;
      if (id && name && (OPERATIONS as string[]).includes(name)) found[name as GqlOperation] ??= id;
    }
  }
  return found;
}

/** Bundle files a page or a bundle file refers to (absolute on abs.twimg.com, or relative `assets/…js`). */
function bundleFiles(body: string, base: string): string[] {
  const out = new Set<string>();
  for (const m of body.matchAll(/https:\/\/abs\.twimg\.com\/[^"'\s<>()]+?\.js/g)) out.add(m[0]);
  for (const m of body.matchAll(/["'(](\.{0,2}\/?(?:assets\/)?[A-Za-z0-9_.~-]+-[A-Za-z0-9_-]{6,}\.js)["')]/g)) {
    if (m[1] && base.startsWith('https://abs.twimg.com/')) out.add(new URL(m[1], base).toString());
  }
  return [...out];
}

/** Read the current query ids from the logged-out web page's bundle files. */
async function idsFromBundle(ctx: ScrapeContext, log: Log): Promise<Partial<QueryIds>> {
  const page = await api.text(ctx, `${WEB_ORIGIN}/x`, { what: 'web page (bundle list)', headers: { ...NAVIGATION_HEADERS, origin: undefined } });
  const found: Partial<QueryIds> = {};
  const queue = bundleFiles(page.body, page.url);
  const seen = new Set(queue);
  let read = 0;
  while (queue.length && read < MAX_BUNDLE_FILES && OPERATIONS.some((op) => !found[op])) {
    const batch = queue.splice(0, Math.min(6, MAX_BUNDLE_FILES - read));
    read += batch.length;
    const bodies = await Promise.all(
      batch.map((file) =>
        api.text(ctx, file, { what: 'bundle file', headers: { accept: '*/*', 'sec-fetch-dest': 'script', 'sec-fetch-mode': 'cors', 'sec-fetch-site': 'cross-site' } }).then(
          (a) => ({ file, body: a.body }),
          () => null,
        ),
      ),
    );
    for (const b of bodies) {
      if (!b) continue;
      const ids = queryIdsIn(b.body);
      for (const op of OPERATIONS) found[op] ??= ids[op];
      for (const next of bundleFiles(b.body, b.file)) if (!seen.has(next)) (seen.add(next), queue.push(next));
    }
  }
  const names = OPERATIONS.filter((op) => found[op]);
  log.info('read query ids from the web bundle', { files: read, found: names });
  if (names.length === 0) throw extractionFailed(`microblog-b: no query ids in ${read} bundle files of the web page`);
  return found;
}

// ---- GraphQL ------------------------------------------------------------------------------------

/** A container-wide random csrf token: guests may send any value, equal in header and cookie. */
const CSRF = randomBytes(16).toString('hex');

const gqlHeaders = (token: string) => ({
  accept: '*/*',
  authorization: `Bearer ${BEARER}`,
  'x-guest-token': token,
  'x-twitter-active-user': 'yes',
  'x-twitter-client-language': 'en',
  'x-csrf-token': CSRF,
  cookie: `gt=${token}; ct0=${CSRF}; guest_id=v1%3A${token}`,
  'content-type': 'application/json',
});

/**
 * The token was refused: 403 code 239 "Bad guest token", or a 401 (code 32 "Could not authenticate
 * you"). TweetDetail may answer 401 to every guest (it wants an account): there only 239 counts, so
 * a refused conversation never churns the shared token.
 */
const tokenRefused = (op: GqlOperation): Signal[] => [{ code: 239 }, { message: /bad guest token/i }, ...(op === 'TweetDetail' ? [] : [{ status: 401 }])];

/** The query id is unknown: a 404 without a GraphQL answer, or a GraphQL "query not found". */
const QUERY_ID_REFUSED: Signal[] = [
  { status: 404, test: (a) => (a.data === undefined || get(a.data, 'data') === undefined) && a.code === null },
  { message: /query.{0,20}(not found|unknown)|PersistedQueryNotFound/i },
];

function remaining(a: ParsedAnswer): number | null {
  const h = a.headers['x-rate-limit-remaining'];
  return typeof h === 'string' && /^\d+$/.test(h) ? Number(h) : null;
}

export interface GqlRequest {
  variables: Record<string, unknown>;
  features: Record<string, boolean>;
  fieldToggles?: Record<string, boolean>;
  /** For logs: "profile alice". */
  what: string;
}

/**
 * One GraphQL call with the shared guest token and the current query id: a refused token is
 * replaced (once for all concurrent callers) and the call retried once; a refused query id makes
 * the ids be read again from the bundle (once for all callers) and the call retried.
 */
export async function graphql(ctx: ScrapeContext, log: Log, op: GqlOperation, req: GqlRequest): Promise<unknown> {
  let token = await currentToken(ctx, log);
  let queryId = activeIds[op];
  const target = () => `${WEB_ORIGIN}/i/api/graphql/${queryId}/${op}`;
  const resend = (retry: Retry) => {
    retry.url = target();
    retry.opts.headers = gqlHeaders(token);
    return 'retry' as const;
  };
  const guestTokenRepair: Repair = {
    kind: 'guest token',
    when: tokenRefused(op),
    // Nearly spent: used for this answer, replaced before its next use.
    note: (a) => {
      const left = remaining(a);
      if (left !== null && left < LOW_REMAINING) exhausted.add(token);
    },
    async mend(a, retry) {
      log.info('guest token refused; replacing it', { status: a.status, code: a.code });
      exhausted.delete(token);
      token = await guestToken.replace(ctx, log, token);
      queryId = activeIds[op];
      return resend(retry);
    },
  };
  const queryIdRepair: Repair = {
    kind: 'query id',
    when: QUERY_ID_REFUSED,
    async mend(a, retry) {
      log.warn('query id refused; reading the current ids from the web bundle', { op, queryId, status: a.status });
      const fresh = await queryIds.replace(ctx, log, pick(activeIds));
      activeIds = { ...STATIC_QUERY_IDS, ...fresh };
      if (activeIds[op] === queryId) {
        log.warn('the web bundle names the same query id', { op, queryId });
        return;
      }
      queryId = activeIds[op];
      return resend(retry);
    },
  };
  return api.json(ctx, target(), {
    searchParams: {
      variables: JSON.stringify(req.variables),
      features: JSON.stringify(req.features),
      ...(req.fieldToggles ? { fieldToggles: JSON.stringify(req.fieldToggles) } : {}),
    },
    headers: gqlHeaders(token),
    what: req.what,
    repairs: [guestTokenRepair, queryIdRepair],
  });
}

/** The part of the table the bundle gave (what the shared item holds). */
function pick(ids: QueryIds): Partial<QueryIds> {
  const out: Partial<QueryIds> = {};
  for (const op of OPERATIONS) if (ids[op] !== STATIC_QUERY_IDS[op]) out[op] = ids[op];
  return out;
}

// ---- the calls ----------------------------------------------------------------------------------

const USER_FEATURES = {
  hidden_profile_subscriptions_enabled: true,
  profile_label_improvements_pcf_label_in_post_enabled: true,
  responsive_web_profile_redirect_enabled: false,
  rweb_tipjar_consumption_enabled: false,
  verified_phone_label_enabled: false,
  subscriptions_verification_info_is_identity_verified_enabled: true,
  subscriptions_verification_info_verified_since_enabled: true,
  highlights_tweets_tab_ui_enabled: true,
  responsive_web_twitter_article_notes_tab_enabled: true,
  subscriptions_feature_can_gift_premium: true,
  creator_subscriptions_tweet_preview_api_enabled: true,
  responsive_web_graphql_skip_user_profile_image_extensions_enabled: false,
  responsive_web_graphql_timeline_navigation_enabled: true,
};

const NOTE_FEATURES = {
  rweb_video_screen_enabled: false,
  profile_label_improvements_pcf_label_in_post_enabled: true,
  responsive_web_profile_redirect_enabled: false,
  rweb_tipjar_consumption_enabled: false,
  verified_phone_label_enabled: false,
  creator_subscriptions_tweet_preview_api_enabled: true,
  responsive_web_graphql_timeline_navigation_enabled: true,
  responsive_web_graphql_skip_user_profile_image_extensions_enabled: false,
  premium_content_api_read_enabled: false,
  communities_web_enable_tweet_community_results_fetch: true,
  c9s_tweet_anatomy_moderator_badge_enabled: true,
  responsive_web_grok_analyze_button_fetch_trends_enabled: false,
  responsive_web_grok_analyze_post_followups_enabled: true,
  responsive_web_jetfuel_frame: true,
  responsive_web_grok_share_attachment_enabled: true,
  responsive_web_grok_annotations_enabled: true,
  articles_preview_enabled: true,
  responsive_web_edit_tweet_api_enabled: true,
  graphql_is_translatable_rweb_tweet_is_translatable_enabled: true,
  view_counts_everywhere_api_enabled: true,
  longform_notetweets_consumption_enabled: true,
  responsive_web_twitter_article_tweet_consumption_enabled: true,
  content_disclosure_indicator_enabled: true,
  content_disclosure_ai_generated_indicator_enabled: true,
  responsive_web_grok_show_grok_translated_post: true,
  responsive_web_grok_analysis_button_from_backend: true,
  post_ctas_fetch_enabled: true,
  freedom_of_speech_not_reach_fetch_enabled: true,
  standardized_nudges_misinfo: true,
  tweet_with_visibility_results_prefer_gql_limited_actions_policy_enabled: true,
  longform_notetweets_rich_text_read_enabled: true,
  longform_notetweets_inline_media_enabled: true,
  responsive_web_grok_image_annotation_enabled: true,
  responsive_web_grok_imagine_annotation_enabled: true,
  responsive_web_grok_community_note_auto_translation_is_enabled: true,
  responsive_web_enhance_cards_enabled: false,
  tweet_awards_web_tipping_enabled: false,
};

const NOTE_TOGGLES = { withArticleRichContentState: true, withArticlePlainText: true, withGrokAnalyze: false, withDisallowedReplyControls: false };

export const fetchUser = (ctx: ScrapeContext, log: Log, screenName: string) =>
  graphql(ctx, log, 'UserByScreenName', {
    variables: { screen_name: screenName, withGrokTranslatedBio: true },
    features: USER_FEATURES,
    fieldToggles: { withAuxiliaryUserLabels: true },
    what: `profile ${screenName}`,
  });

/** One page, as large as the logged-out timeline gives (its most-liked notes; no useful cursor). */
export const fetchUserNotes = (ctx: ScrapeContext, log: Log, userId: string) =>
  graphql(ctx, log, 'UserTweets', {
    variables: { userId, count: 100, includePromotedContent: false, withQuickPromoteEligibilityTweetFields: false, withVoice: true },
    features: NOTE_FEATURES,
    fieldToggles: { withArticlePlainText: false },
    what: `notes of user ${userId}`,
  });

export const fetchNote = (ctx: ScrapeContext, log: Log, noteId: string) =>
  graphql(ctx, log, 'TweetResultByRestId', {
    variables: { tweetId: noteId, withCommunity: false, includePromotedContent: false, withVoice: false, withBirdwatchNotes: true },
    features: NOTE_FEATURES,
    fieldToggles: NOTE_TOGGLES,
    what: `note ${noteId}`,
  });

export const fetchConversation = (ctx: ScrapeContext, log: Log, noteId: string) =>
  graphql(ctx, log, 'TweetDetail', {
    variables: {
      focalTweetId: noteId,
      referrer: 'tweet',
      with_rux_injections: false,
      rankingMode: 'Relevance',
      includePromotedContent: false,
      withCommunity: true,
      withQuickPromoteEligibilityTweetFields: false,
      withBirdwatchNotes: true,
      withVoice: true,
    },
    features: NOTE_FEATURES,
    fieldToggles: { ...NOTE_TOGGLES, withArticlePlainText: false },
    what: `conversation of note ${noteId}`,
  });
