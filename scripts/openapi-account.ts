/**
 * The account API (shared/api/account-routes.ts) in the OpenAPI document: one operation per route, the
 * session cookie as its security scheme, and the shapes shared/account/api.ts answers. Kept beside
 * scripts/openapi.ts, which merges it in; test/gateway/account.test.ts checks every account-API
 * response of its run against the generated document.
 */
import { REQUESTS_PARAMS } from '../shared/api/account-reads';
import { ACCOUNT_ROUTES, type AccountRoute } from '../shared/api/account-routes';
import { ROLES } from '../shared/auth/members';
import { ERROR_STATUS } from '../shared/http/errors';
import { HISTORY_PAGE } from '../shared/accounting/request-history';
import { SESSION_COOKIE } from '../shared/auth/sessions';
import { type RouteSpec, routeOperation } from './openapi-routes';

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const dateTime = { type: 'string', format: 'date-time' };
const nullableDateTime = { type: ['string', 'null'], format: 'date-time' };
const count = { type: 'integer' };
const obj = (properties: Json, required = Object.keys(properties)): Json => ({ type: 'object', required, properties });
const errorCounts = { type: 'object', propertyNames: { enum: Object.keys(ERROR_STATUS) }, additionalProperties: count };

const roleSchema = {
  type: 'string',
  enum: [...ROLES],
  description: "owner: removes members (their keys revoked, or transferred), sees and ends any member's sessions, renames and revokes any key of the team; member: their own sessions, password and the keys they hold",
};

export const accountSchemas: Json = {
  AccountMember: obj({
    email: { type: 'string' },
    memberId: { type: 'string' },
    role: roleSchema,
    team: obj({ teamId: { type: 'string' }, name: { type: 'string' } }),
    sessionExpiresAt: dateTime,
  }),
  AccountKey: obj({
    keyId: { type: 'string' },
    name: { type: 'string', minLength: 1, maxLength: 64 },
    createdAt: dateTime,
    createdBy: {
      description: 'Who created the key: a member of the team (dashboard) or the operator (admin CLI); null for keys from before this was recorded',
      oneOf: [
        obj({ kind: { const: 'member' }, memberId: { type: 'string' }, email: { type: 'string' } }),
        obj({ kind: { const: 'cli' } }),
        { type: 'null' },
      ],
    },
    heldBy: {
      description: 'The member the key belongs to, revoked with them when they are removed unless transferred: its creator, or the member it was transferred to; null for a key of the team (the operator\'s, or from before creators were recorded), which no removal touches',
      oneOf: [obj({ kind: { const: 'member' }, memberId: { type: 'string' }, email: { type: 'string' } }), { type: 'null' }],
    },
    lastUsedAt: nullableDateTime,
    revokedAt: nullableDateTime,
    status: { type: 'string', enum: ['active', 'revoked'] },
  }),
  AccountNewKey: {
    allOf: [ref('AccountKey'), obj({ secret: { type: 'string', pattern: '^[A-Za-z0-9]{28}$', description: 'Shown this once; only its hash is stored' } })],
  },
  AccountTeamMember: obj({
    memberId: { type: 'string' },
    email: { type: 'string' },
    role: roleSchema,
    invitedAt: dateTime,
    passwordSetAt: nullableDateTime,
    status: { type: 'string', enum: ['invited', 'active'], description: 'invited: no password set yet' },
    you: { type: 'boolean', description: 'The signed-in member' },
  }),
  AccountSession: obj({
    sessionId: { type: 'string', description: 'Public id of the session (not its cookie)' },
    createdAt: dateTime,
    expiresAt: dateTime,
    address: { type: ['string', 'null'], description: 'The client address it signed in from' },
    userAgent: { type: ['string', 'null'] },
    current: { type: 'boolean', description: 'The session making this request' },
  }),
  AccountCredits: obj({
    balance: count,
    charges: {
      type: 'array',
      description: 'The latest 50 charges, newest first',
      items: obj(
        {
          time: dateTime,
          operation: { type: 'string' },
          requestId: { type: 'string' },
          credits: count,
          source: { enum: ['monitor', 'job'], description: "Present on a monitor's poll (docs/monitors.md) and a bulk job's page (docs/jobs.md)" },
          monitorId: { type: 'string', description: 'The monitor whose poll it was; with `source` monitor' },
          jobId: { type: 'string', description: 'The job whose page it was; with `source` job' },
        },
        ['time', 'operation', 'requestId', 'credits'],
      ),
    },
  }),
  AccountUsage: obj({
    days: {
      type: 'array',
      description: 'One entry per UTC day, oldest first, today last',
      items: obj({
        day: { type: 'string', format: 'date' },
        operations: { type: 'object', additionalProperties: ref('AccountUsageCounts') },
      }),
    },
    totals: ref('AccountUsageSummary'),
    byOperation: { type: 'object', additionalProperties: ref('AccountUsageSummary') },
  }),
  AccountUsageCounts: obj({
    live: { ...count, description: 'Live results (charged)' },
    hits: { ...count, description: 'Cache hits (free)' },
    errors: { ...errorCounts, description: 'Error answers (free), by error code' },
    credits: count,
  }),
  AccountUsageSummary: obj({
    requests: { ...count, description: 'Every answered request: live results, cache hits and error answers' },
    live: count,
    hits: count,
    errorCount: { ...count, description: 'Error answers, every code' },
    credits: count,
    cacheHitShare: { type: ['number', 'null'], description: 'Cache hits among the answers with data (live + hits); null without any' },
    byStatus: { type: 'object', description: 'Answers by HTTP status; "200" counts live results and cache hits', propertyNames: { pattern: '^[1-5][0-9]{2}$' }, additionalProperties: count },
    byCode: { ...errorCounts, description: 'Error answers by code' },
  }),
  AccountRequest: obj({
    time: { ...dateTime, description: 'When it was answered' },
    operation: { type: 'string' },
    keyId: { type: ['string', 'null'], description: 'The key that made it' },
    keyName: { type: ['string', 'null'], description: "The key's name now; null for a key the team no longer has" },
    status: { type: 'integer', description: 'The HTTP status it was answered' },
    code: { type: ['string', 'null'], enum: [...Object.keys(ERROR_STATUS), null], description: 'The error code; null for a result' },
    credits: count,
    cached: { type: 'boolean', description: 'Served from the cache' },
    ms: { ...count, description: "From the function's start until the answer was ready" },
    requestId: { type: 'string' },
    source: { enum: ['monitor', 'job'], description: "Present on a monitor's poll (docs/monitors.md) and a bulk job's page (docs/jobs.md)" },
    monitorId: { type: 'string', description: "The monitor whose poll it was; with `source` monitor" },
    jobId: { type: 'string', description: "The job whose page it was; with `source` job" },
  }, ['time', 'operation', 'keyId', 'keyName', 'status', 'code', 'credits', 'cached', 'ms', 'requestId']),
  AccountRequests: obj({
    requests: { type: 'array', description: 'Newest first', items: ref('AccountRequest') },
    cursor: { type: ['string', 'null'], description: 'For the next (older) page; null on the last' },
    hasMore: { type: 'boolean' },
  }),
};

type Spec = RouteSpec;

const nameBody = obj({ name: { type: 'string', minLength: 1, maxLength: 64 } });

const SPECS: Record<AccountRoute['name'], Spec> = {
  setPassword: {
    summary: 'Set the password with the token of an invitation link (once, within 24 h)',
    body: obj({ token: { type: 'string' }, password: { type: 'string', minLength: 12, maxLength: 200 } }),
    ok: [200, obj({ email: { type: 'string' } }), 'The password is set'],
    errors: [400, 422, 503],
  },
  signIn: {
    summary: 'Sign in; answers the session cookie',
    body: obj({ email: { type: 'string' }, password: { type: 'string' } }),
    ok: [200, ref('AccountMember'), `Signed in; Set-Cookie: ${SESSION_COOKIE}=…; HttpOnly; Secure; SameSite=Strict`],
    errors: [400, 401, 429, 503],
  },
  signOut: { summary: 'End the session at once', ok: [200, obj({ signedOut: { type: 'boolean' } }), 'Signed out; the cookie is cleared'], errors: [400, 503] },
  me: { summary: 'The signed-in member and their team', ok: [200, ref('AccountMember'), 'The member'], errors: [401, 503] },
  listKeys: { summary: "The team's keys, newest first (never their secrets)", ok: [200, obj({ keys: { type: 'array', items: ref('AccountKey') } }), 'The keys'], errors: [401, 503] },
  createKey: { summary: 'Create a named key; its secret is in this answer only', body: nameBody, ok: [201, obj({ key: ref('AccountNewKey') }), 'The new key, with its secret'], errors: [400, 401, 422, 503] },
  renameKey: { summary: 'Rename a key of the team (a member: a key they hold; an owner: any)', body: nameBody, ok: [200, obj({ key: ref('AccountKey') }), 'The renamed key'], errors: [400, 401, 404, 422, 503] },
  revokeKey: {
    summary: 'Revoke a key of the team (a member: a key they hold; an owner: any): its very next request is refused; the monitors created with it are paused (monitor.paused, key_revoked) in the same transaction',
    ok: [200, obj({ key: ref('AccountKey'), monitorsPaused: { type: 'array', items: { type: 'string' }, description: 'Ids of the monitors created with the key, paused with it' } }), 'The revoked key'],
    errors: [400, 401, 404, 503],
  },
  credits: { summary: 'The balance and the latest charges (free; a session or an API key)', ok: [200, ref('AccountCredits'), 'Balance and charges'], errors: [401, 503] },
  usage: {
    summary: 'Every answer per UTC day and operation: live results, cache hits and errors by code, with credits (free; a session or an API key)',
    query: [{ name: 'days', in: 'query', required: false, description: 'How many days, today included (1-90)', schema: { type: 'string', pattern: '^\\d+$', default: '30' } }],
    ok: [200, ref('AccountUsage'), 'The usage report'],
    errors: [401, 422, 503],
  },
  requests: {
    summary: "The team's requests of the last 7 days, newest first, paged (free; a session or an API key)",
    query: Object.entries(REQUESTS_PARAMS).map(([name, description]) => ({
      name,
      in: 'query',
      required: false,
      description,
      schema:
        name === 'limit'
          ? { type: 'string', pattern: '^\\d+$', default: String(HISTORY_PAGE.default) }
          : name === 'status'
            ? { type: 'string', pattern: '^([1-5][0-9]{2}|error)$' }
            : name === 'source'
              ? { type: 'string', enum: ['request', 'monitor', 'job'] }
              : { type: 'string', minLength: 1 },
    })),
    ok: [200, ref('AccountRequests'), 'A page of the history'],
    errors: [400, 401, 422, 503],
  },
  changePassword: {
    summary: "Change one's own password (the current one is required); ends one's other sessions",
    body: obj({ currentPassword: { type: 'string' }, password: { type: 'string', minLength: 12, maxLength: 200 } }),
    ok: [200, obj({ passwordChanged: { type: 'boolean' } }), 'Changed; this session continues, every other one of the member has ended'],
    errors: [400, 401, 422, 429, 503],
  },
  listMembers: { summary: "The team's dashboard members", ok: [200, obj({ members: { type: 'array', items: ref('AccountTeamMember') } }), 'The members'], errors: [401, 503] },
  removeMember: {
    summary:
      "Remove a member of the team (owners only): their sessions end at once, their invitation links stop working, the keys they hold are revoked, or transferred to `transferKeysTo`; the monitors they created (or created with a key revoked here) are paused (monitor.paused, member_removed or key_revoked) in the same transaction, or with `transferKeysTo` bound to that member",
    body: obj({ transferKeysTo: { type: 'string', description: 'The id of another member of the team, who keeps the removed member\'s keys and monitors; without it the keys are revoked and the monitors paused' } }, []),
    bodyOptional: true,
    ok: [
      200,
      obj({
        removed: obj({ memberId: { type: 'string' }, email: { type: 'string' } }),
        keys: obj({ revoked: { type: 'array', items: { type: 'string' }, description: 'Ids of the keys revoked with the member' }, transferred: { type: 'array', items: { type: 'string' }, description: 'Ids of the keys now held by transferKeysTo' } }),
        monitors: obj({ paused: { type: 'array', items: { type: 'string' }, description: 'Ids of the monitors paused with the member (or with a key revoked here)' }, transferred: { type: 'array', items: { type: 'string' }, description: 'Ids of the monitors now bound to transferKeysTo' } }),
      }),
      'Removed',
    ],
    errors: [400, 401, 404, 422, 503],
  },
  listSessions: { summary: "A member's live sessions, newest first (another member's: owners only)", ok: [200, obj({ sessions: { type: 'array', items: ref('AccountSession') } }), 'The sessions'], errors: [400, 401, 404, 503] },
  endSessions: {
    summary: "End every session of a member (one's own: every other one)",
    ok: [200, obj({ sessions: { type: 'array', items: ref('AccountSession') } }), 'The sessions still live (only the caller’s own, if any)'],
    errors: [400, 401, 404, 503],
  },
  endSession: {
    summary: 'End one session of a member',
    ok: [200, obj({ ended: obj({ sessionId: { type: 'string' } }) }), 'Ended: its next request is refused'],
    errors: [400, 401, 404, 503],
  },
};

const ERROR_TEXT: Record<number, string> = {
  400: 'A cursor this query did not issue, a state-changing request without this site\'s Origin, a body that is not a JSON object, an unknown, used, replaced or expired token, a wrong current password, removing oneself, or what only an owner may do: removing a member, another member\'s sessions, a key another member holds or a key of the team (BAD_REQUEST)',
  401: 'Not signed in (no, expired or ended session), an unknown or revoked API key where one is accepted, or sign-in failed: one message for every sign-in failure (UNAUTHORIZED)',
  404: 'The team has no such key, member or live session (NOT_FOUND)',
  422: 'Invalid body or query (VALIDATION_ERROR, with details)',
  429: 'Too many sign-in attempts for this e-mail (from this address, or from addresses it never signed in from), or from this address; the same answer for every e-mail (RATE_LIMITED, with Retry-After)',
  503: 'The service is at capacity (SERVICE_UNAVAILABLE)',
};

const camelName = (name: string) => `account${name.charAt(0).toUpperCase()}${name.slice(1)}`;

export function accountPaths(): Json {
  const paths: Record<string, Json> = {};
  for (const route of ACCOUNT_ROUTES) {
    const spec = SPECS[route.name];
    (paths[route.path] ??= {})[route.method.toLowerCase()] = routeOperation(route, spec, ERROR_TEXT, {
      operationId: camelName(route.name),
      tags: ['account'],
      // The dashboard's API: a read a key may also make lists the session first.
      callerFirst: 'session',
    });
  }
  return paths;
}

export const sessionScheme: Json = {
  type: 'apiKey',
  in: 'cookie',
  name: SESSION_COOKIE,
  description: 'The dashboard session (POST /v1/account/sign-in). State-changing requests must also carry this site\'s Origin.',
};
