/**
 * The three tables, described once: the CDK stack (infra/data.ts) and the local set-up
 * (dev/tables.ts) both build them from `TABLES`, and the code reads their key names from here.
 *
 * accounts (pk, sk; GSI byTeam on gsi1pk, gsi1sk; TTL on expiresAt):
 *   TEAM#<teamId> / TEAM                      team: name, credits, createdAt, usageKeyId?, usageKey; and one
 *                                             attribute HOLD#<requestId> (epoch ms) per reservation in flight
 *                                             (shared/accounting/reservation.ts: what makes reserve and refund idempotent)
 *   KEY#<hash(secret)> / KEY                  key: keyId, teamId, name, createdAt, lastUsedAt?, revokedAt?, usageKey
 *                                             (gsi1pk TEAM#<teamId>, gsi1sk KEY#<createdAt>#<keyId>)
 *   TEAM#<teamId> / LEDGER#<time>#<requestId> a charge, keyed by its reservation time: requestId, operation, credits, time (the charge's)
 *   TEAM#<teamId> / GRANT#<time>#<id>         credits added: credits, time
 *   TEAM#<teamId> / USAGE#<yyyy-mm-dd>        a day's answers (shared/accounting/usage.ts): `live:<operation>`, `credits:<operation>`,
 *                                             `hit:<operation>`, `error:<operation>:<CODE>`, one plain UpdateItem (ADD) per answer;
 *                                             expiresAt after 400 days
 *   TEAM#<teamId> / REQ#<time>#<requestId>    one answered request (shared/accounting/request-history.ts): time, operation, keyId, status, code?,
 *                                             credits? (a live answer's: absent is 0), cached, ms, requestId; expiresAt after 7 days
 *   MEMBER#<email> / MEMBER                   a dashboard member: memberId, email, teamId, createdAt,
 *                                             passwordHash? (scrypt), passwordSetAt?
 *                                             (gsi1pk TEAM#<teamId>, gsi1sk MEMBER#<createdAt>#<email>)
 *   INVITE#<hash(token)> / INVITE             a one-time set-password link: email, teamId, createdAt, expiresAt, usedAt?
 *   SESSION#<hash(id)> / SESSION              a dashboard session: teamId, email, memberId, createdAt, expiresAt, endedAt?
 *   THROTTLE#pair#<sha256(email, address)> / THROTTLE
 *                                             sign-in attempts of one e-mail from one address since the last
 *                                             success: attempts, lastAt (ms), expiresAt (24 h after the last attempt or success)
 *   THROTTLE#addr#<address> / <window start>  sign-in attempts from one address in a 15-minute window: attempts, expiresAt
 *   THROTTLE#email#<sha256(email)> / <window start>
 *                                             sign-in attempts at one e-mail from addresses it is not known at, in a 1-hour window
 *   THROTTLE#known#<sha256(email, address)> / THROTTLE
 *                                             an address the e-mail signed in from: expiresAt (30 days after the success)
 *   (hash: HMAC-SHA256 with the key pepper; without one, locally, the plain SHA-256: shared/auth/hashing.ts)
 *   (expiresAt: the table's TTL attribute, epoch seconds; readers also check it, as TTL deletes late)
 * events (pk, sk; sparse GSI due on duePk, dueSk; TTL on expiresAt): the event engine's own table
 * (docs/monitors.md): monitors, what their polls have seen, the outbox of events and their
 * deliveries, and (on the same engine) the account webhook endpoints and their deliveries. Never
 * money: the functions that run the engine write here and hold no write on accounts. A team's
 * items share its partition, so listing a team's monitors (or a monitor's deliveries) is a Query on
 * the table itself: no team index. Retained and point-in-time recoverable like accounts (the
 * monitors and their sealed signing secrets are the customers' configuration).
 *   TEAM#<teamId> / MON#<monitorId>              a monitor: operation, params, intervalSeconds, webhookUrl, status,
 *                                                pausedReason?, secret (sealed: shared/webhooks/secret.ts), nextPollAt,
 *                                                keyId? / memberId? (its owner), … (about 1 KB: each poll's claim
 *                                                rewrites it, so it holds nothing that grows)
 *                                                (duePk MONDUE, dueSk <nextPollAt ISO>#<teamId>#<monitorId> while active)
 *   TEAM#<teamId> / MONSTATE#<monitorId>         what its polls have seen (shared/monitors/events.ts WatchState: up to
 *                                                1,000 id marks, under 16 KB), written only when something is new
 *   TEAM#<teamId> / MONDLV#<monitorId>#<eventId> an event and its delivery (the outbox: written in the same transaction
 *                                                as the state change that produced it): type, body, attempts, the last
 *                                                attempts, lease?, nextAttemptAt? (duePk DLVDUE, dueSk
 *                                                <nextAttemptAt ISO>#<teamId>#<monitorId>#<eventId> while pending and not
 *                                                held); expiresAt after 7 days
 *   TEAM#<teamId> / MONOVF#<monitorId>#<id>      events of one poll beyond a transaction's limits (brotli JSON), due at
 *                                                once in DLVDUE: the delivery side expands them into MONDLV# items
 *   TEAM#<teamId> / MONCOUNT                     the team's number of monitors (taken conditionally with each create)
 *   (the due index's two partitions, MONDUE and DLVDUE, are the scheduler's "what is due", locally
 *   and on AWS; an item leaves them when paused or done. Team webhook endpoints, their team events
 *   and the credits and status watches are listed below TABLES (WHEP#, WHEVT#, CREDITWATCH, ...); an
 *   endpoint's deliveries are MONDLV#<endpointId>#<eventId> items, due in DLVDUE like a monitor's.)
 * cache (pk; TTL on expiresAt): what all teams share, expires and is never money. Besides the cache
 * entries it holds the shared upstream credentials, the outcome counts and the canary records: like
 * the entries, short-lived (TTL), written by the functions that scrape, read by any of them; a table
 * of their own each would add provisioning and IAM for no isolation gained (none of it is a team's).
 *   <operation>#<normalized input>            body (brotli JSON), fetchedAt (ms), expiresAt (TTL, s)
 *   CRED#<platform>#<kind>                    a shared upstream credential (shared/scrape/credentials.ts)
 *   OUT#<operation>#m#<minute>#<shard>        answers of one minute (one of OUTCOME_SHARDS items; one plain
 *                                             UpdateItem per answer: shared/accounting/outcome-counts.ts)
 *   OUT#<operation>#h#<hour>#all              a finished hour's minutes summed, written once by the status
 *                                             function (shared/status/outcomes.ts); both 26 h TTL
 *   CANARY#<operation>                        the last canary run and the fields of its last good answer
 *                                             (shared/status/canary.ts)
 */
export interface TableDef {
  /** Logical name: the stack's construct id prefix and the config key of its name. */
  id: 'accounts' | 'cache' | 'events' | 'jobs';
  partitionKey: string;
  sortKey?: string;
  indexes: readonly { name: string; partitionKey: string; sortKey: string }[];
  ttlAttribute?: string;
  /** Money lives in accounts: kept (and point-in-time recoverable) when the stack goes. */
  retain: boolean;
}

export const ACCOUNTS = {
  id: 'accounts',
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [{ name: 'byTeam', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
  ttlAttribute: 'expiresAt',
  retain: true,
} as const satisfies TableDef;

export const CACHE = {
  id: 'cache',
  partitionKey: 'pk',
  indexes: [],
  ttlAttribute: 'expiresAt',
  retain: false,
} as const satisfies TableDef;

export const EVENTS = {
  id: 'events',
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [{ name: 'due', partitionKey: 'duePk', sortKey: 'dueSk' }],
  ttlAttribute: 'expiresAt',
  retain: true,
} as const satisfies TableDef;

/**
 * jobs (pk, sk; TTL on expiresAt): bulk jobs (shared/jobs/, docs/jobs.md), apart from the accounts
 * table's money: the job workers hold no write on the accounts table (a job's pages charge through
 * the operations' own functions, the one pipeline).
 *   TEAM#<teamId> / JOB#<jobId>               a job: operation, state, total, cursor (next input to hand out),
 *                                             inFlight, done, failed, pages, items, credits, live, cached, parked
 *                                             (inputs set aside by a pause), createdAt, startedAt?, finishedAt?, files?
 *   TEAM#<teamId> / JOBSLOTS                  the team's inputs in flight over all its jobs (inFlight), bounded
 *   TEAM#<teamId> / JOBIDEM#<sha256(key)>     an Idempotency-Key: the job it made (expiresAt after 24 h)
 *   TEAM#<teamId> / JOBDEST                   the team's external ID for delivery to its own bucket (no expiry:
 *                                             made once, the same every time: shared/jobs/destination.ts)
 *   JOB#<jobId> / IN#<chunk>                  the job's checked inputs, JOB_CHUNK a chunk: [{line, input, params}]
 *   JOB#<jobId> / DONE#<index>                one input finished (written once, conditional): status, code?, pages, items, credits
 *   (every item of a job expires with it: expiresAt 7 days after its end, as its files)
 */
export const JOBS = {
  id: 'jobs',
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [],
  ttlAttribute: 'expiresAt',
  retain: false,
} as const satisfies TableDef;

export const TABLES: readonly TableDef[] = [ACCOUNTS, CACHE, EVENTS, JOBS];

export const TEAM_INDEX = ACCOUNTS.indexes[0];
/** The events table's sparse index of what is due (monitors to poll, deliveries to attempt). */
export const DUE_INDEX = EVENTS.indexes[0];
/** The due index's partitions: monitors due for a poll, deliveries (and overflow items) due for an attempt. */
export const MONITOR_DUE = 'MONDUE';
export const DELIVERY_DUE = 'DLVDUE';
/** A due-index sort key: the ISO time it is due at, then the ids that make it unique. */
export const dueSk = (at: number, ...ids: string[]) => `${new Date(at).toISOString()}#${ids.join('#')}`;
/** Events-table sort keys of one team partition (the layout above). */
export const monitorSk = (monitorId: string) => `MON#${monitorId}`;
export const MONITOR_PREFIX = 'MON#';
export const monitorStateSk = (monitorId: string) => `MONSTATE#${monitorId}`;
export const deliverySk = (monitorId: string, eventId: string) => `MONDLV#${monitorId}#${eventId}`;
export const deliveriesPrefix = (monitorId: string) => `MONDLV#${monitorId}#`;
export const overflowSk = (monitorId: string, id: string) => `MONOVF#${monitorId}#${id}`;
export const MONITOR_COUNT_SK = 'MONCOUNT';

export const teamPk = (teamId: string) => `TEAM#${teamId}`;
export const TEAM_SK = 'TEAM';
export const KEY_PREFIX = 'KEY#';
export const keyPk = (hash: string) => `${KEY_PREFIX}${hash}`;
/** A key's sort key in the team index: by creation time. */
export const keyTeamSk = (createdAt: string | number, keyId: string) => `${KEY_PREFIX}${createdAt}#${keyId}`;
export const KEY_SK = 'KEY';
export const LEDGER_PREFIX = 'LEDGER#';
export const GRANT_PREFIX = 'GRANT#';
/** The team item's attribute marking one reservation in flight: HOLD#<requestId> (shared/accounting/reservation.ts). */
export const HOLD_PREFIX = 'HOLD#';
export const credentialKey = (name: string) => `CRED#${name}`;
export const USAGE_PREFIX = 'USAGE#';
export const REQUEST_PREFIX = 'REQ#';
export const OUTCOME_PREFIX = 'OUT#';
/** An outcome count item (cache table): one operation, one minute, one shard. */
export const outcomeKey = (operation: string, minute: string, shard: number) => `${OUTCOME_PREFIX}${operation}#m#${minute}#${shard}`;
/** A finished hour of an operation's outcome counts, summed by the status function. */
export const outcomeHourKey = (operation: string, hour: string) => `${OUTCOME_PREFIX}${operation}#h#${hour}#all`;
export const canaryKey = (operation: string) => `CANARY#${operation}`;
export const memberPk = (email: string) => `MEMBER#${email}`;
export const MEMBER_SK = 'MEMBER';
export const invitePk = (hash: string) => `INVITE#${hash}`;
export const INVITE_SK = 'INVITE';
export const sessionPk = (hash: string) => `SESSION#${hash}`;
export const SESSION_SK = 'SESSION';
export const throttlePk = (kind: 'pair' | 'addr' | 'email' | 'known', value: string) => `THROTTLE#${kind}#${value}`;
export const THROTTLE_SK = 'THROTTLE';

/**
 * Team webhook endpoints and team events, in the events table (shared/webhooks/, docs/webhooks.md):
 *   TEAM#<teamId> / WHEP#<endpointId>   an endpoint: url, types, status, secret (sealed), previousSecret?, …
 *                                       (duePk WHSUB, dueSk <teamId>#<endpointId> while it wants a broadcast type:
 *                                       the listing a broadcast event is expanded over)
 *   TEAM#<teamId> / WHCOUNT             the team's number of endpoints (taken conditionally with each create)
 *   TEAM#<teamId> / WHEVT#<eventId>     a team event (the outbox item a producer writes in its own transaction):
 *                                       type, body; due at once in DLVDUE, expanded by the delivery side into one
 *                                       delivery per subscribed endpoint (MONDLV#<endpointId>#<eventId>), and for a job's
 *                                       event (directTo <jobId>) one more to the job's own webhook; expiresAt 7 days
 *   TEAM#<teamId> / WHJOB#<jobId>       a job's own webhook (POST /v1/jobs `webhook`: docs/jobs.md): url, types, secret
 *                                       (sealed), written in the job's creating transaction; its deliveries are
 *                                       MONDLV#<jobId>#<eventId> items; expiresAt with the job's
 *   BROADCAST / WHEVT#<eventId>         an event for every subscribed endpoint of every team (operation.*), the same way
 *   STATUSWATCH / STATUSWATCH           each operation's public state as last announced (shared/webhooks/status-watch.ts)
 */
export const ENDPOINT_PREFIX = 'WHEP#';
export const endpointSk = (endpointId: string) => `${ENDPOINT_PREFIX}${endpointId}`;
export const ENDPOINT_COUNT_SK = 'WHCOUNT';
export const teamEventSk = (eventId: string) => `WHEVT#${eventId}`;
export const jobWebhookSk = (jobId: string) => `WHJOB#${jobId}`;
export const BROADCAST_PK = 'BROADCAST';
/** The due index's partition of the endpoints that want a broadcast type (not due work: a listing). */
export const BROADCAST_SUBSCRIBERS = 'WHSUB';
export const STATUS_WATCH_KEY = { pk: 'STATUSWATCH', sk: 'STATUSWATCH' } as const;
/**
 *   TEAM#<teamId> / CREDITWATCH         the team's credits.low threshold? and what was last announced: alert?
 *                                       (low | exhausted), seq (a counter of changes), suspectSince? (the tick's
 *                                       reconciliation: shared/webhooks/credits.ts); (duePk CREDITWATCH, dueSk <teamId>:
 *                                       the teams the minute tick checks)
 */
export const CREDIT_WATCH_SK = 'CREDITWATCH';
export const CREDIT_WATCH = 'CREDITWATCH';
export const JOB_PREFIX = 'JOB#';
export const jobSk = (jobId: string) => `${JOB_PREFIX}${jobId}`;
export const jobPk = (jobId: string) => `${JOB_PREFIX}${jobId}`;
export const JOB_SLOTS_SK = 'JOBSLOTS';
export const jobIdempotencySk = (hash: string) => `JOBIDEM#${hash}`;
export const JOB_DESTINATION_SK = 'JOBDEST';
export const jobChunkSk = (chunk: number) => `IN#${String(chunk).padStart(6, '0')}`;
export const jobDoneSk = (index: number) => `DONE#${String(index).padStart(6, '0')}`;
