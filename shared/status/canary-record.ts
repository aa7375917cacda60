import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../runtime/config';
import { db } from '../db/client';
import { canaryKey } from '../db/tables';

/**
 * What the last canary run of an operation left for GET /v1/status (cache table, CANARY#<operation>):
 * the run itself and, from the last good answer, the fields it had a value for (`presentPaths`), so
 * that the next run can tell a field that became null. Read by the status page, written by the
 * canary (shared/status/canary.ts).
 */
export interface CanaryRecord {
  operation: string;
  /** ms */
  at: number;
  ok: boolean;
  ms: number;
  /** The error code of a failed run. */
  code?: string;
  /** Fields the contract requires that the answer lacked (schema paths, `[]` for array items). */
  missing: string[];
  /** Optional fields that came back null or absent although the last good answer had them. */
  newlyNull: string[];
  consecutiveFailures: number;
  /** ms of the last good run. */
  lastOkAt: number | null;
  /** Field paths with a value in the last good answer. */
  presentPaths: string[];
}

/** Kept well past the status page's windows; refreshed by every run. */
const KEEP_SECONDS = 7 * 86_400;

export async function readCanaryRecord(operation: string): Promise<CanaryRecord | null> {
  const res = await db().send(new GetCommand({ TableName: config.cacheTable, Key: { pk: canaryKey(operation) } }));
  return (res.Item as CanaryRecord | undefined) ?? null;
}

export async function writeCanaryRecord(record: CanaryRecord): Promise<void> {
  await db().send(
    new PutCommand({ TableName: config.cacheTable, Item: { pk: canaryKey(record.operation), ...record, expiresAt: Math.floor(record.at / 1000) + KEEP_SECONDS } }),
  );
}

/** The record as stored: without its key and expiry. */
export function asCanaryRecord(item: Record<string, unknown>): CanaryRecord {
  const { pk: _pk, expiresAt: _exp, ...rest } = item;
  return rest as unknown as CanaryRecord;
}
