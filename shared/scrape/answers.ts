import { ApiError, badCursor, blocked, extractionFailed, notFound, unavailable } from '../http/errors';
import { isSignInPage, looksLikeHtml, pageTitle, upstreamRetryAfter } from './antibot';

/**
 * The one upstream-answer classifier. A platform declares, in one literal (`AnswerRules`), which
 * answers mean not found, a bad cursor, blocked or unavailable, by status, by its own error code or
 * message, or by content; `classify` applies them and the defaults every platform shares:
 *
 *   the platform's blocked rules (each a positive sign of a wall)    -> UPSTREAM_BLOCKED
 *   an HTML page where JSON was expected: a sign-in page, or one sent with 401/403/429
 *                                                         -> UPSTREAM_BLOCKED (evidence of a wall);
 *                                         any other page  -> EXTRACTION_FAILED (no evidence: a page without the data)
 *   the platform's other rules, in this order: unavailable, badCursor (only for a request that
 *   carried a cursor), notFound, then the request's own notFound; then
 *   401, 403, 429                                         -> UPSTREAM_BLOCKED (Retry-After from the upstream, 60 s for 429)
 *   5xx                                                   -> PLATFORM_UNAVAILABLE
 *   anything else that is not 2xx (unless the request reads the status itself: `anyStatus`), or a
 *   2xx body that is not JSON where JSON was expected     -> EXTRACTION_FAILED
 * Anti-bot challenge pages (any status), redirects off the platform's hosts and transport failures
 * never reach here: the HTTP client turns them into UPSTREAM_BLOCKED / PLATFORM_UNAVAILABLE itself.
 * A request's repairs (http.ts: a new token, a solved page) run before this, on the same vocabulary.
 */
/** One answer of the upstream, as the HTTP client received it (after same-platform redirects). */
export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The real URL that answered (before UPSTREAM_<PLATFORM>_URL replaced its origin). */
  url: string;
}

export interface Signal {
  /** The HTTP status is one of these. */
  status?: number | readonly number[];
  /** The upstream's own error code (read by `AnswerRules.code`) is one of these. */
  code?: string | number | readonly (string | number)[];
  /** The upstream's own error message (read by `AnswerRules.message`) matches. */
  message?: RegExp;
  /** The raw body matches (HTML pages, text answers). */
  body?: RegExp;
  /** Anything else: the parsed answer satisfies this. */
  test?: (answer: ParsedAnswer) => boolean;
  /** The caller-facing message when it must say more than the code's default (what was refused). */
  say?: string;
}

export interface AnswerRules {
  /** Neutral platform name, for messages. */
  platform: string;
  /** Where the upstream puts its error code in a parsed body. */
  code?: (data: unknown) => string | number | null | undefined;
  /** Where it puts its error message. */
  message?: (data: unknown) => string | null | undefined;
  blocked?: readonly Signal[];
  unavailable?: readonly Signal[];
  badCursor?: readonly Signal[];
  notFound?: readonly Signal[];
}

export interface ParsedAnswer extends UpstreamAnswer {
  /** The parsed JSON body, or undefined when the body is not JSON. */
  data: unknown;
  /** The upstream's error code and message as the rules read them. */
  code: string | number | null | undefined;
  message: string | null | undefined;
}

export interface Expectation {
  /** What was asked, for logs: "account lookup alice". */
  what: string;
  /** The request carried a caller's cursor: badCursor rules apply. */
  cursor?: boolean;
  /** The answer's body must be JSON (default true). */
  jsonAnswer?: boolean;
  /**
   * The caller reads the status itself (a web page that says why in its body): an answer that
   * neither the rules nor the 401/403/429 defaults refuse is usable whatever its status.
   */
  anyStatus?: boolean;
  /** Answers that mean not found for this request alone, after the platform's own. */
  notFound?: readonly Signal[];
}

export function parseAnswer(rules: AnswerRules, answer: UpstreamAnswer): ParsedAnswer {
  let data: unknown;
  const trimmed = answer.body.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[') || trimmed.startsWith('"') || /^(null|true|false|-?\d)/.test(trimmed)) {
    try {
      data = JSON.parse(answer.body);
    } catch {
      data = undefined;
    }
  }
  return { ...answer, data, code: safely(() => rules.code?.(data)), message: safely(() => rules.message?.(data)) };
}

const safely = <T>(f: () => T): T | undefined => {
  try {
    return f();
  } catch {
    return undefined;
  }
};

const asList = <T>(x: T | readonly T[] | undefined): readonly T[] | undefined => (x === undefined ? undefined : Array.isArray(x) ? (x as readonly T[]) : [x as T]);

function matches(s: Signal, a: ParsedAnswer): boolean {
  const statuses = asList(s.status);
  if (statuses && !statuses.includes(a.status)) return false;
  const codes = asList(s.code);
  if (codes && (a.code === null || a.code === undefined || !codes.map(String).includes(String(a.code)))) return false;
  if (s.message && !s.message.test(a.message ?? '')) return false;
  if (s.body && !s.body.test(a.body.slice(0, 200_000))) return false;
  if (s.test && !safely(() => s.test!(a))) return false;
  return true;
}

/** The signal of `list` this answer matches, if any. */
export const firstMatch = (list: readonly Signal[] | undefined, a: ParsedAnswer) => list?.find((s) => matches(s, a));

/** The spec's error for this answer, or null when it is a usable answer. */
export function classify(rules: AnswerRules, a: ParsedAnswer, expect: Expectation): ApiError | null {
  const why = `${rules.platform} ${expect.what}: ${a.status}${a.code !== undefined && a.code !== null ? ` code ${a.code}` : ''}${a.message ? ` "${String(a.message).slice(0, 160)}"` : ''}`;
  const retryAfter = upstreamRetryAfter(a.headers);
  const wantJson = expect.jsonAnswer !== false;
  let s: Signal | undefined;
  if ((s = firstMatch(rules.blocked, a))) return withMessage(blocked(why, retryAfter ?? (a.status === 429 ? 60 : undefined)), s);
  // An HTML page where the API should have answered is never read as the API's own "not found". It
  // is a wall only on evidence (a sign-in page, a refusing or rate-limiting status); otherwise it is
  // a page without the data, and the log says which page it was.
  if (wantJson && a.data === undefined && looksLikeHtml(a.body)) {
    const page = `an HTML page where JSON was expected (title "${pageTitle(a.body)}")`;
    if (isSignInPage(a.body)) return blocked(`${why}: ${page}: a sign-in page`, retryAfter);
    if (a.status === 429) return blocked(`${why}: ${page}: rate-limited`, retryAfter ?? 60);
    if (a.status === 401 || a.status === 403) return blocked(`${why}: ${page}: refused`, retryAfter);
    return extractionFailed(`${why}: ${page}, with no sign-in form or challenge in it: no JSON answer`);
  }
  if ((s = firstMatch(rules.unavailable, a))) return withMessage(unavailable(why, retryAfter), s);
  if (expect.cursor && (s = firstMatch(rules.badCursor, a))) return withMessage(badCursor(why), s);
  if ((s = firstMatch(rules.notFound, a) ?? firstMatch(expect.notFound, a))) return s.say ? notFound(s.say) : notFound();

  if (a.status === 429) return blocked(`${why}: rate-limited`, retryAfter ?? 60);
  if (a.status === 401 || a.status === 403) return blocked(`${why}: refused`, retryAfter);
  if (a.status >= 500) return unavailable(why, retryAfter);
  if (!expect.anyStatus && (a.status < 200 || a.status >= 300)) return extractionFailed(`${why}: unexpected status`);
  if (wantJson && a.data === undefined) return extractionFailed(`${why}: the body is not JSON`);
  return null;
}

function withMessage(err: ApiError, s: Signal): ApiError {
  if (!s.say) return err;
  return new ApiError(err.code, s.say, { retryAfter: err.retryAfter, internal: err.internal });
}
