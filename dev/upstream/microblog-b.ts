import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../../shared/runtime/config';
import { db } from '../../shared/db/client';
import { credentialKey } from '../../shared/db/tables';
import { STATIC_QUERY_IDS, type GqlOperation } from '../../shared/platforms/microblog-b/client';
import { startCold } from '../../shared/scrape/warm';
import { fixture, fixtureText, type FakeReply, type FakeUpstream, type RecordedRequest } from './fake';

/**
 * The microblog-b upstream as the fake serves it: guest activation (a new token each time), the four
 * GraphQL operations at their static query ids (answering 403 "Bad guest token" to a token marked
 * refused), and the web page with its bundle files. The replay (replay.ts) answers through these
 * routes; the unit, gateway and contract tests and the bench adapt them.
 */
export const ACTIVATE = '/1.1/guest/activate.json';
export const gqlPath = (op: GqlOperation, queryId: string = STATIC_QUERY_IDS[op]) => `/i/api/graphql/${queryId}/${op}`;
export const WEB_PAGE = '/x';
export const BUNDLE_FILES = {
  '/responsive-web/client-web/main.4f2a9c1b.js': 'microblog-b/bundle-main.js',
  '/x-web/x-web/entry-client-logged-out-Ab12Cd34.js': 'microblog-b/bundle-entry.js',
  '/x-web/x-web/assets/route-status-Zx98Cv76.js': 'microblog-b/bundle-route-status.js',
} as const;
/** The ids the fixture bundle names. */
export const BUNDLE_QUERY_IDS: Record<GqlOperation, string> = {
  UserByScreenName: 'NewUserQid_0000000001',
  UserTweets: 'NewTimelineQid_000002',
  TweetResultByRestId: 'NewNoteQid_0000000004',
  TweetDetail: 'NewDetailQid_00000005',
};

type Reply = FakeReply | ((req: RecordedRequest) => FakeReply | Promise<FakeReply>);

export const DEFAULT_FIXTURES: Record<GqlOperation, string> = {
  UserByScreenName: 'microblog-b/user-2026.json',
  UserTweets: 'microblog-b/user-notes.json',
  TweetResultByRestId: 'microblog-b/note.json',
  TweetDetail: 'microblog-b/conversation.json',
};

export class FakeGuestTokens {
  readonly issued: string[] = [];
  /** Tokens the GraphQL routes answer 403 code 239 to. */
  readonly refused = new Set<string>();

  /** Forgets every token issued or refused (a new test, the same helper). */
  clear(): void {
    this.issued.length = 0;
    this.refused.clear();
  }

  /** The activation route: a new token per call. */
  install(fake: FakeUpstream): this {
    fake.on(ACTIVATE, (req) => {
      if (req.method !== 'POST' || !String(req.headers.authorization ?? '').startsWith('Bearer AAAA')) return { status: 403, body: { errors: [{ code: 200, message: 'Forbidden.' }] } };
      const token = (1990000000000000000n + BigInt(this.issued.length + 1)).toString();
      this.issued.push(token);
      return { body: { guest_token: token } };
    });
    return this;
  }

  /** Answers `reply`, unless the request's guest token was refused. */
  guard(reply: Reply): (req: RecordedRequest) => FakeReply | Promise<FakeReply> {
    return (req) => {
      const token = String(req.headers['x-guest-token'] ?? '');
      if (!token || this.refused.has(token)) return { status: 403, body: fixture('microblog-b/error-bad-guest-token.json') };
      return typeof reply === 'function' ? reply(req) : reply;
    };
  }
}

/**
 * Registers activation and the four operations (each with `replies[op]` or its default fixture),
 * guarded by `tokens`. Returns the token helper.
 */
export function microblogBRoutes(fake: FakeUpstream, replies: Partial<Record<GqlOperation, Reply>> = {}, tokens = new FakeGuestTokens()): FakeGuestTokens {
  tokens.install(fake);
  for (const op of Object.keys(STATIC_QUERY_IDS) as GqlOperation[]) {
    fake.on(gqlPath(op), tokens.guard(replies[op] ?? { body: fixture(DEFAULT_FIXTURES[op]) }));
  }
  return tokens;
}

/** The web page and its bundle files (for query-id refreshes). */
export function bundleRoutes(fake: FakeUpstream): void {
  fake.on(WEB_PAGE, { body: fixtureText('microblog-b/web-page.html') });
  for (const [path, rel] of Object.entries(BUNDLE_FILES)) fake.on(path, { body: fixtureText(rel), headers: { 'content-type': 'application/javascript' } });
}

/** A cold container with an empty credential store: no token, static query ids, no remembered handles. */
export async function coldMicroblogB(): Promise<void> {
  startCold('microblog-b');
  for (const name of ['microblog-b#guest-token', 'microblog-b#query-ids']) {
    await db().send(new DeleteCommand({ TableName: config.cacheTable, Key: { pk: credentialKey(name) } }));
  }
}

/** Upstream answers that must become a 503 (code, and the Retry-After they must give when they set one). */
export function upstreamFailures(): [name: string, reply: FakeReply, code: string, retryAfter: [number, number] | null][] {
  const reset = Math.floor(Date.now() / 1000) + 120;
  return [
    ['429 with x-rate-limit-reset', { status: 429, body: fixture('microblog-b/error-rate-limit.json'), headers: { 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(reset) } }, 'UPSTREAM_BLOCKED', [100, 121]],
    ['200 with code 88 "Rate limit exceeded"', { status: 200, body: fixture('microblog-b/error-rate-limit.json') }, 'UPSTREAM_BLOCKED', null],
    ['"Denied by access control"', { status: 200, body: fixture('microblog-b/error-denied.json') }, 'UPSTREAM_BLOCKED', null],
    ['a Cloudflare challenge', { status: 403, body: fixtureText('livestream/cloudflare-challenge.html') }, 'UPSTREAM_BLOCKED', null],
    ['a login page', { status: 200, body: fixtureText('microblog-b/login-page.html') }, 'UPSTREAM_BLOCKED', null],
    ['error 336 (a feature flag missing)', { status: 400, body: fixture('microblog-b/error-features.json') }, 'EXTRACTION_FAILED', null],
    ['a changed shape', { status: 200, body: { data: { something_else: {} } } }, 'EXTRACTION_FAILED', null],
    ['a 5xx', { status: 502, body: 'Bad Gateway' }, 'PLATFORM_UNAVAILABLE', null],
  ];
}
