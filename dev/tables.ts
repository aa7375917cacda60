import {
  type AttributeDefinition,
  CreateTableCommand,
  type KeySchemaElement,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { config } from '../shared/runtime/config';
import { rawDb } from '../shared/db/client';
import { TABLES, type TableDef } from '../shared/db/tables';

/**
 * Creates the tables from their one definition (shared/db/tables.ts) when missing: for `npm start`,
 * the tests and the benchmark. In AWS the CDK stack builds the same definitions.
 */
export const tableName = (t: TableDef) => ({ accounts: config.accountsTable, cache: config.cacheTable, events: config.eventsTable, jobs: config.jobsTable })[t.id];

const keySchema = (pk: string, sk?: string): KeySchemaElement[] => [
  { AttributeName: pk, KeyType: 'HASH' },
  ...(sk ? [{ AttributeName: sk, KeyType: 'RANGE' as const }] : []),
];

export async function ensureTables(): Promise<void> {
  const client = rawDb();
  for (const t of TABLES) {
    const names = new Set([t.partitionKey, ...(t.sortKey ? [t.sortKey] : []), ...t.indexes.flatMap((i) => [i.partitionKey, i.sortKey])]);
    const attributes: AttributeDefinition[] = [...names].map((AttributeName) => ({ AttributeName, AttributeType: 'S' }));
    try {
      await client.send(
        new CreateTableCommand({
          TableName: tableName(t),
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: attributes,
          KeySchema: keySchema(t.partitionKey, t.sortKey),
          ...(t.indexes.length
            ? { GlobalSecondaryIndexes: t.indexes.map((i) => ({ IndexName: i.name, KeySchema: keySchema(i.partitionKey, i.sortKey), Projection: { ProjectionType: 'ALL' } })) }
            : {}),
        }),
      );
    } catch (err) {
      if (!(err instanceof ResourceInUseException)) throw err;
    }
    if (t.ttlAttribute) {
      await client
        .send(new UpdateTimeToLiveCommand({ TableName: tableName(t), TimeToLiveSpecification: { AttributeName: t.ttlAttribute, Enabled: true } }))
        .catch(() => undefined); // already enabled
    }
  }
}
