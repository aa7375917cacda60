import * as v from 'valibot';

/**
 * The team event catalogue, as data: one entry per event type a team webhook endpoint may subscribe
 * to — its name, what it announces, the schema of its `data`, who produces it, and whether it is a
 * team's own event or one broadcast to every subscribed endpoint of every team. The OpenAPI
 * document's `webhooks` section, docs/webhooks.md, the dashboard's and the CLI's choices and the
 * API's check of `types` all read this table; a producer adds its row here and calls
 * teamEventWrites / broadcastEventWrites (./events.ts) in its own transaction.
 *
 * The body of every event is `{type, timestamp, data}`, signed by the Standard Webhooks convention
 * (docs/webhooks.md), the same engine as the monitors' events.
 */
const teamId = v.pipe(v.string(), v.description('The team the event is about'));
const counts = v.pipe(
  v.record(v.string(), v.number()),
  v.description('How many of the job’s items ended in each outcome (e.g. succeeded, failed, skipped)'),
);

export const CATALOGUE = [
  {
    type: 'webhook.test',
    description: 'Sent on request to one endpoint (POST /v1/webhooks/{id}/test), whatever types it wants',
    scope: 'direct',
    providedBy: 'webhooks',
    data: v.object({ teamId, endpointId: v.string() }),
  },
  {
    type: 'credits.low',
    description: 'The balance fell below the threshold the team set (PATCH /v1/webhooks/settings, creditsLowThreshold): once per crossing; again after the balance is back at or above it (a grant) and falls again',
    scope: 'team',
    providedBy: 'account',
    data: v.object({ teamId, credits: v.pipe(v.number(), v.description('The balance just after the charge that crossed')), threshold: v.number() }),
  },
  {
    type: 'credits.exhausted',
    description: 'The balance reached zero: live requests are refused (402) until credits are added; once per time it reaches zero',
    scope: 'team',
    providedBy: 'account',
    data: v.object({ teamId, credits: v.number() }),
  },
  {
    type: 'key.created',
    description: 'An API key was created (the key itself is never sent)',
    scope: 'team',
    providedBy: 'account',
    data: v.object({ teamId, keyId: v.string(), name: v.string(), createdAt: v.string(), createdBy: v.nullable(v.string()) }),
  },
  {
    type: 'key.revoked',
    description: 'An API key was revoked (by a member, or with the member who held it): it is refused from the next request',
    scope: 'team',
    providedBy: 'account',
    data: v.object({ teamId, keyId: v.string(), name: v.string(), revokedAt: v.string() }),
  },
  {
    type: 'member.removed',
    description: 'A member was removed from the team: their sessions end at once',
    scope: 'team',
    providedBy: 'account',
    data: v.object({ teamId, memberId: v.string(), email: v.string(), removedAt: v.string() }),
  },
  {
    type: 'operation.degraded',
    description: 'An operation’s public status (GET /v1/status) went from operational to degraded or down, or from degraded to down: sent to every endpoint subscribed, of every team',
    scope: 'broadcast',
    providedBy: 'status',
    data: v.object({ operation: v.string(), status: v.picklist(['degraded', 'down']), previous: v.string(), reason: v.string() }),
  },
  {
    type: 'operation.recovered',
    description: 'An operation’s public status went back to operational after degraded or down',
    scope: 'broadcast',
    providedBy: 'status',
    data: v.object({ operation: v.string(), status: v.literal('operational'), previous: v.string(), reason: v.string() }),
  },
  {
    type: 'job.succeeded',
    description: 'A bulk job finished with every item done (provided by bulk jobs)',
    scope: 'team',
    providedBy: 'jobs',
    data: v.object({ jobId: v.string(), state: v.string(), counts }),
  },
  {
    type: 'job.failed',
    description: 'A bulk job ended failed (provided by bulk jobs)',
    scope: 'team',
    providedBy: 'jobs',
    data: v.object({ jobId: v.string(), state: v.string(), counts }),
  },
  {
    type: 'job.paused',
    description: 'A bulk job was paused, by request or for want of credits (provided by bulk jobs)',
    scope: 'team',
    providedBy: 'jobs',
    data: v.object({ jobId: v.string(), state: v.string(), counts }),
  },
] as const satisfies readonly {
  type: string;
  description: string;
  /** team: the team's endpoints that want it; broadcast: those of every team; direct: the one endpoint asked. */
  scope: 'team' | 'broadcast' | 'direct';
  providedBy: 'account' | 'status' | 'jobs' | 'webhooks';
  data: v.GenericSchema;
}[];

export type TeamEventType = (typeof CATALOGUE)[number]['type'];
export type CatalogueEntry = (typeof CATALOGUE)[number];
export type EventData<T extends TeamEventType> = v.InferOutput<Extract<CatalogueEntry, { type: T }>['data']>;

export const ALL_EVENT_TYPES = CATALOGUE.map((e) => e.type) as TeamEventType[];
/** What an endpoint may subscribe to (webhook.test is sent only on request). */
export const TEAM_EVENT_TYPES = CATALOGUE.filter((e) => e.scope !== 'direct').map((e) => e.type) as Exclude<TeamEventType, 'webhook.test'>[];
export const isTeamEventType = (t: unknown): t is TeamEventType => typeof t === 'string' && (ALL_EVENT_TYPES as string[]).includes(t);
export const catalogueEntry = (type: TeamEventType): CatalogueEntry => CATALOGUE.find((e) => e.type === type)!;
/** The types sent to every subscribed endpoint of every team (one outbox item for all). */
export const BROADCAST_TYPES = CATALOGUE.filter((e) => e.scope === 'broadcast').map((e) => e.type) as TeamEventType[];
