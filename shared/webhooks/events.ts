import { createHash } from 'node:crypto';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import * as v from 'valibot';
import { conditionally, db } from '../db/client';
import { type EventData, type TeamEventType, catalogueEntry } from './catalogue';
import { BROADCAST_SCOPE, teamEventPut } from './store';

/**
 * The producer API of team events: a state change puts its event in its own DynamoDB transaction
 * (the outbox), so the two land together or not at all:
 *
 *   await db().send(new TransactWriteCommand({ TransactItems: [myChange, ...teamEventWrites(teamId, 'key.revoked', keyId, data)] }))
 *
 * The event's id (its `webhook-id`) is derived from the scope, the type and `eventKey` — what makes
 * this event itself (a key's id, a crossing's number, a job's id and final state) — so a producer
 * retried after any failure re-creates the same id; the Put is conditional, so the retried
 * transaction fails as a whole when the first one landed (the producer reads that as "done").
 * One outbox item per event, whatever the number of endpoints: the delivery side expands it into
 * one delivery per endpoint that wants the type (shared/monitors/deliver.ts expandTeamEvent),
 * each with the same webhook-id, so the producer's transaction stays two items.
 */
type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export const TEAM_EVENT_ID_PREFIX = 'evt_';

export function teamEventId(scope: string, type: TeamEventType, eventKey: string): string {
  return `${TEAM_EVENT_ID_PREFIX}${createHash('sha256').update(`${scope}\n${type}\n${eventKey}`).digest('hex').slice(0, 24)}`;
}

/** The JSON body every delivery of the event carries: {type, timestamp, data}. */
export const teamEventBody = (type: string, at: number, data: unknown) => JSON.stringify({ type, timestamp: new Date(at).toISOString(), data });

function writes<T extends TeamEventType>(scope: string, type: T, eventKey: string, data: EventData<T>, at: number, directTo?: string): TransactItem[] {
  const entry = catalogueEntry(type);
  if (entry.scope === 'broadcast' ? scope !== BROADCAST_SCOPE : scope === BROADCAST_SCOPE) throw new Error(`${type} is a ${entry.scope} event`);
  // The catalogue's schema: a producer's mistake fails its own transaction, never a receiver.
  const checked = v.parse(entry.data as v.GenericSchema, data);
  return [teamEventPut({ scope, eventId: teamEventId(scope, type, eventKey), type, body: teamEventBody(type, at, checked), createdAt: at, ...(directTo ? { directTo } : {}) })];
}

/**
 * A team's event, for the producer's transaction. `directTo`: one more sender it goes to beside the
 * team's endpoints (a job's own webhook: the job's id), from the same outbox item, with the same id.
 */
export const teamEventWrites = <T extends TeamEventType>(teamId: string, type: T, eventKey: string, data: EventData<T>, at = Date.now(), directTo?: string): TransactItem[] => writes(teamId, type, eventKey, data, at, directTo);

/** An event for every team's endpoints that want it (operation.*), for the producer's transaction. */
export const broadcastEventWrites = <T extends TeamEventType>(type: T, eventKey: string, data: EventData<T>, at = Date.now()): TransactItem[] => writes(BROADCAST_SCOPE, type, eventKey, data, at);

/** An event with no state change of its own to ride with (a producer whose change is already made): true when written now, false when it already was. */
export const emitTeamEvent = <T extends TeamEventType>(teamId: string, type: T, eventKey: string, data: EventData<T>, at = Date.now()) => conditionally(() => db().send(new TransactWriteCommand({ TransactItems: teamEventWrites(teamId, type, eventKey, data, at) })));
