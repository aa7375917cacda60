import { DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { conditionally, db, isConditionalFailure, itemUpdate, queryAll } from '../db/client';
import {
  BROADCAST_PK,
  BROADCAST_SUBSCRIBERS,
  DELIVERY_DUE,
  DUE_INDEX,
  ENDPOINT_COUNT_SK,
  ENDPOINT_PREFIX,
  deliveriesPrefix,
  dueSk,
  endpointSk,
  jobWebhookSk,
  teamEventSk,
  teamPk,
} from '../db/tables';
import { config } from '../runtime/config';
import { BROADCAST_TYPES, type TeamEventType } from './catalogue';

/**
 * Team webhook endpoints and the team events' outbox items, in the events table (the layout:
 * shared/db/tables.ts). An endpoint's deliveries are the engine's own delivery items
 * (shared/monitors/store.ts), keyed by the endpoint's id where a monitor's are keyed by the
 * monitor's: one claim, one attempt log, one retry schedule, one signer for both.
 */
export interface Endpoint {
  teamId: string;
  endpointId: string;
  url: string;
  types: TeamEventType[];
  description?: string;
  status: 'active' | 'disabled';
  /** Sealed (shared/webhooks/secret.ts), as a monitor's. */
  secret: string;
  previousSecret?: string;
  previousSecretExpiresAt?: number;
  createdAt: string;
  updatedAt: string;
  /** Who created it (as a monitor records it). */
  keyId?: string;
  memberId?: string;
  /** The last test or redelivery queued: one per endpoint every 5 s. */
  manualAt?: number;
}

/** What the delivery side reads off a team event item: its scope (a team id, or BROADCAST for every team), type and body. */
export interface TeamEvent {
  scope: string;
  eventId: string;
  type: TeamEventType;
  body: string;
  createdAt: number;
  state: 'pending' | 'expanded';
  /** One more sender the event goes to beside the team's endpoints: the job's own webhook (a job's id), for a job's event. */
  directTo?: string;
}

/**
 * A job's own webhook (POST /v1/jobs `webhook`, docs/jobs.md): a sender of the engine as an endpoint
 * is, made with its job (in the job's creating transaction) and gone with it. Its deliveries are the
 * engine's delivery items keyed by the job's id.
 */
export interface JobWebhook {
  teamId: string;
  jobId: string;
  url: string;
  types: TeamEventType[];
  /** Sealed (./secret.ts), as an endpoint's. */
  secret: string;
  createdAt: number;
  /** Epoch seconds: the job's own expiry. */
  expiresAt: number;
}

/**
 * What every delivery item holds, whoever its sender (the engine's Delivery, shared/monitors/store.ts,
 * is this and more): what the APIs show of a delivery (./shapes.ts publicDelivery).
 */
export interface DeliveryRecord {
  teamId: string;
  monitorId: string;
  eventId: string;
  type: string;
  createdAt: number;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatus?: number | null;
  lastError?: string;
  ms?: number;
  nextAttemptAt?: number;
  held?: boolean;
  log?: { at: number; status: number | null; ms: number; error?: string }[];
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export const ENDPOINT_ID_PREFIX = 'ep_';
export const isEndpointId = (id: string) => id.startsWith(ENDPOINT_ID_PREFIX);
/** A job's id as a sender (its own webhook's deliveries): jobs' ids are `job_…` (shared/jobs/store.ts). */
export const isJobSenderId = (id: string) => id.startsWith('job_');
/** The sender id a team event item carries in the due index, where a delivery carries its monitor's or endpoint's. */
export const FANOUT_SENDER = 'fanout';
export const BROADCAST_SCOPE = '*';
export const EVENT_DAYS = 7;

const T = () => config.eventsTable;
const wantsBroadcast = (types: readonly string[]) => types.some((t) => (BROADCAST_TYPES as string[]).includes(t));

function endpointItem(e: Endpoint): Record<string, unknown> {
  return { pk: teamPk(e.teamId), sk: endpointSk(e.endpointId), ...e, ...(wantsBroadcast(e.types) ? { duePk: BROADCAST_SUBSCRIBERS, dueSk: `${e.teamId}#${e.endpointId}` } : {}) };
}

const strip = <X>(item: Record<string, unknown>): X => {
  const { pk: _pk, sk: _sk, duePk: _g, dueSk: _s, expiresAt: _e, ...rest } = item;
  return rest as X;
};

/** Creates an endpoint and takes its place in the team's count (one transaction): creates at once never pass the limit. False at the limit. */
export async function createEndpoint(e: Endpoint, limit: number): Promise<boolean> {
  return conditionally(() =>
    db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: T(),
              Key: { pk: teamPk(e.teamId), sk: ENDPOINT_COUNT_SK },
              UpdateExpression: 'SET #c = if_not_exists(#c, :zero) + :one',
              ConditionExpression: 'attribute_not_exists(#c) OR #c < :limit',
              ExpressionAttributeNames: { '#c': 'count' },
              ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': limit },
            },
          },
          { Put: { TableName: T(), Item: endpointItem(e), ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    ),
  );
}

export async function getEndpoint(teamId: string, endpointId: string): Promise<Endpoint | null> {
  if (!isEndpointId(endpointId)) return null;
  const res = await db().send(new GetCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: endpointSk(endpointId) }, ConsistentRead: true }));
  return res.Item ? strip<Endpoint>(res.Item) : null;
}

export async function listEndpoints(teamId: string): Promise<Endpoint[]> {
  const items = await queryAll({ TableName: T(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', ExpressionAttributeValues: { ':pk': teamPk(teamId), ':p': ENDPOINT_PREFIX }, ConsistentRead: true });
  return items.map((i) => strip<Endpoint>(i));
}

/** Every endpoint of every team that wants `type` (a broadcast type), from the due index's WHSUB partition. */
export async function broadcastSubscribers(type: TeamEventType): Promise<Endpoint[]> {
  const items = await queryAll({
    TableName: T(),
    IndexName: DUE_INDEX.name,
    KeyConditionExpression: '#p = :p',
    FilterExpression: 'contains(#types, :t)',
    ExpressionAttributeNames: { '#p': DUE_INDEX.partitionKey, '#types': 'types' },
    ExpressionAttributeValues: { ':p': BROADCAST_SUBSCRIBERS, ':t': type },
  });
  return items.map((i) => strip<Endpoint>(i));
}

type EndpointFields = Partial<Omit<Endpoint, 'teamId' | 'endpointId' | 'createdAt'>>;

/** The UpdateItem input of an endpoint change (the broadcast listing kept in step with `types`). */
export function endpointUpdate(teamId: string, endpointId: string, fields: EndpointFields) {
  const listing = fields.types === undefined ? {} : wantsBroadcast(fields.types) ? { duePk: BROADCAST_SUBSCRIBERS, dueSk: `${teamId}#${endpointId}` } : { duePk: undefined, dueSk: undefined };
  const all: Record<string, unknown> = { ...fields, ...listing, updatedAt: new Date().toISOString() };
  const absent = Object.keys(all).filter((k) => all[k] === undefined);
  return itemUpdate(T(), { pk: teamPk(teamId), sk: endpointSk(endpointId), ...all }, { absent, condition: { expression: 'attribute_exists(pk)' } });
}

/** Sets (or, for undefined, removes) some attributes of an endpoint. The endpoint as it now is, or null when it is gone. */
export async function updateEndpoint(teamId: string, endpointId: string, fields: EndpointFields): Promise<Endpoint | null> {
  try {
    const res = await db().send(new UpdateCommand({ ...endpointUpdate(teamId, endpointId, fields), ReturnValues: 'ALL_NEW' }));
    return strip<Endpoint>(res.Attributes!);
  } catch (err) {
    if (isConditionalFailure(err)) return null;
    throw err;
  }
}

/** Deletes an endpoint and gives its place back (one transaction). Its pending deliveries then fail (no endpoint). */
export async function deleteEndpoint(teamId: string, endpointId: string): Promise<boolean> {
  if (!isEndpointId(endpointId)) return false;
  return conditionally(() =>
    db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: T(), Key: { pk: teamPk(teamId), sk: endpointSk(endpointId) }, ConditionExpression: 'attribute_exists(pk)' } },
          {
            Update: {
              TableName: T(),
              Key: { pk: teamPk(teamId), sk: ENDPOINT_COUNT_SK },
              UpdateExpression: 'ADD #c :minus',
              ConditionExpression: '#c > :zero',
              ExpressionAttributeNames: { '#c': 'count' },
              ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
            },
          },
        ],
      }),
    ),
  );
}

/** For tests and tools (no count). */
export async function putEndpoint(e: Endpoint): Promise<void> {
  await db().send(new PutCommand({ TableName: T(), Item: endpointItem(e) }));
}

const scopePk = (scope: string) => (scope === BROADCAST_SCOPE ? BROADCAST_PK : teamPk(scope));

/**
 * The Put of a team event's outbox item, for the producer's own transaction: due at once in the
 * delivery due partition, never over an existing one (a retried producer re-creates the same id,
 * and its transaction then fails as a whole: the state change was made the first time).
 */
export function teamEventPut(e: Omit<TeamEvent, 'state'>): TransactItem {
  return {
    Put: {
      TableName: T(),
      Item: {
        pk: scopePk(e.scope),
        sk: teamEventSk(e.eventId),
        // What the due index hands the delivery side, as for a delivery: (team, sender, event).
        teamId: e.scope,
        monitorId: FANOUT_SENDER,
        eventId: e.eventId,
        type: e.type,
        body: e.body,
        createdAt: e.createdAt,
        state: 'pending',
        ...(e.directTo ? { directTo: e.directTo } : {}),
        duePk: DELIVERY_DUE,
        dueSk: dueSk(e.createdAt, e.scope, FANOUT_SENDER, e.eventId),
        expiresAt: Math.floor(e.createdAt / 1000) + EVENT_DAYS * 86_400,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export async function getTeamEvent(scope: string, eventId: string): Promise<TeamEvent | null> {
  const res = await db().send(new GetCommand({ TableName: T(), Key: { pk: scopePk(scope), sk: teamEventSk(eventId) }, ConsistentRead: true }));
  const i = res.Item;
  if (!i || (i.expiresAt as number) * 1000 <= Date.now()) return null;
  return { scope, eventId, type: i.type as TeamEventType, body: i.body as string, createdAt: i.createdAt as number, state: i.state as TeamEvent['state'], ...(i.directTo ? { directTo: i.directTo as string } : {}) };
}

/** An expanded team event leaves the due index (its TTL removes it). */
export async function teamEventExpanded(scope: string, eventId: string): Promise<void> {
  await db().send(new UpdateCommand({ TableName: T(), Key: { pk: scopePk(scope), sk: teamEventSk(eventId) }, UpdateExpression: 'SET #st = :done REMOVE duePk, dueSk', ExpressionAttributeNames: { '#st': 'state' }, ExpressionAttributeValues: { ':done': 'expanded' } }));
}

/** The Put of a job's own webhook, for the job's creating transaction (never over an existing one). */
export function jobWebhookPut(w: JobWebhook): TransactItem {
  return { Put: { TableName: T(), Item: { pk: teamPk(w.teamId), sk: jobWebhookSk(w.jobId), ...w }, ConditionExpression: 'attribute_not_exists(pk)' } };
}

export async function getJobWebhook(teamId: string, jobId: string): Promise<JobWebhook | null> {
  if (!isJobSenderId(jobId)) return null;
  const res = await db().send(new GetCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: jobWebhookSk(jobId) }, ConsistentRead: true }));
  if (!res.Item || (res.Item.expiresAt as number) * 1000 <= Date.now()) return null;
  const { pk: _pk, sk: _sk, ...w } = res.Item;
  return w as JobWebhook;
}

/** A sender's (a monitor's, an endpoint's, a job's) deliveries of the last 7 days, by sort key (event ids are derived: not time-ordered). */
export async function senderDeliveries(teamId: string, senderId: string, limit = 100): Promise<DeliveryRecord[]> {
  const res = await db().send(
    new QueryCommand({ TableName: T(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)', ExpressionAttributeValues: { ':pk': teamPk(teamId), ':p': deliveriesPrefix(senderId) }, ScanIndexForward: false, Limit: limit }),
  );
  const now = Date.now();
  return (res.Items ?? []).filter((i) => (i.expiresAt as number) * 1000 > now).map((i) => strip<DeliveryRecord>(i));
}

/** For tests: removes an endpoint without the count. */
export async function dropEndpoint(teamId: string, endpointId: string): Promise<void> {
  await db().send(new DeleteCommand({ TableName: T(), Key: { pk: teamPk(teamId), sk: endpointSk(endpointId) } }));
}
