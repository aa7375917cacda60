import { randomUUID } from 'node:crypto';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../runtime/config';
import { db } from '../db/client';
import { GRANT_PREFIX, TEAM_SK, teamPk } from '../db/tables';
import { afterGrant } from '../webhooks/credits';

/**
 * Teams and their prepaid balance: the team item (`credits`), and the grants that add to it, each
 * recorded beside the ledger of charges (./ledger.ts) so that, for every team at every moment,
 * credits granted = ledger + balance (+ the credits of reservations in flight: ./reservation.ts).
 */
export const COST = 1;

export interface Team {
  teamId: string;
  name: string;
  credits: number;
  createdAt: string;
  usageKey: string;
  usageKeyId?: string;
}

/** Credit grants are kept apart from the ledger of charges, so the ledger sums to what was consumed. */
const grantItem = (teamId: string, credits: number, time: string) => ({
  pk: teamPk(teamId),
  sk: `${GRANT_PREFIX}${time}#${randomUUID()}`,
  teamId,
  credits,
  time,
});

export async function createTeam(name: string, credits: number, usage: { usageKey: string; usageKeyId?: string }): Promise<Team> {
  const team: Team = { teamId: randomUUID(), name, credits, createdAt: new Date().toISOString(), ...usage };
  const grant = grantItem(team.teamId, credits, team.createdAt);
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: config.accountsTable, Item: { pk: teamPk(team.teamId), sk: TEAM_SK, ...team }, ConditionExpression: 'attribute_not_exists(pk)' } },
        ...(credits > 0 ? [{ Put: { TableName: config.accountsTable, Item: grant } }] : []),
      ],
    }),
  );
  return team;
}

export async function getTeam(teamId: string): Promise<Team | null> {
  const res = await db().send(new GetCommand({ TableName: config.accountsTable, Key: { pk: teamPk(teamId), sk: TEAM_SK } }));
  if (!res.Item) return null;
  // The item also carries the marks of reservations in flight: not part of the team.
  const { teamId: id, name, credits, createdAt, usageKey, usageKeyId } = res.Item as Team;
  return { teamId: id, name, credits, createdAt, usageKey, ...(usageKeyId !== undefined ? { usageKeyId } : {}) };
}

/** The team's balance (0 for no team): one strongly consistent read of one attribute. */
export async function balance(teamId: string): Promise<number> {
  const res = await db().send(
    new GetCommand({ TableName: config.accountsTable, Key: { pk: teamPk(teamId), sk: TEAM_SK }, ProjectionExpression: 'credits', ConsistentRead: true }),
  );
  return creditsOf(res.Item) ?? 0;
}

/**
 * The balance a read team item gives (pure): its `credits` when it is a finite number, undefined
 * for no item or no usable balance. The authorizer's read of a key with its team uses it too.
 */
export function creditsOf(item: Record<string, unknown> | undefined): number | undefined {
  const credits = Number(item?.credits);
  return item && Number.isFinite(credits) ? credits : undefined;
}

/** Adds credits and records the grant, atomically. Returns the new balance. */
export async function addCredits(teamId: string, credits: number): Promise<number> {
  const time = new Date().toISOString();
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Update: {
            TableName: config.accountsTable,
            Key: { pk: teamPk(teamId), sk: TEAM_SK },
            UpdateExpression: 'SET credits = credits + :n',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeValues: { ':n': credits },
          },
        },
        { Put: { TableName: config.accountsTable, Item: grantItem(teamId, credits, time) } },
      ],
    }),
  );
  const now = await balance(teamId);
  // Back at or above the threshold: the credits alert cleared at once (the next fall is a new crossing).
  await afterGrant(teamId, now);
  return now;
}
