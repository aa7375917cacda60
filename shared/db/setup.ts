import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import { config } from '../config';
import { rawDb } from './client';
import { ACCOUNTS, CACHE } from './tables';

/** Creates both tables if missing (local gateway and tests; in AWS the CDK stack owns them). */
export async function ensureTables(): Promise<void> {
  const client = rawDb();
  const create = async (input: ConstructorParameters<typeof CreateTableCommand>[0]) => {
    try {
      await client.send(new CreateTableCommand(input));
    } catch (err) {
      if (!(err instanceof ResourceInUseException)) throw err;
    }
  };
  await create({
    TableName: config.accountsTable,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: ACCOUNTS.partitionKey, AttributeType: 'S' },
      { AttributeName: ACCOUNTS.sortKey, AttributeType: 'S' },
      { AttributeName: ACCOUNTS.teamIndex.partitionKey, AttributeType: 'S' },
      { AttributeName: ACCOUNTS.teamIndex.sortKey, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: ACCOUNTS.partitionKey, KeyType: 'HASH' },
      { AttributeName: ACCOUNTS.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: ACCOUNTS.teamIndex.name,
        KeySchema: [
          { AttributeName: ACCOUNTS.teamIndex.partitionKey, KeyType: 'HASH' },
          { AttributeName: ACCOUNTS.teamIndex.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
  });
  await create({
    TableName: config.cacheTable,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: CACHE.partitionKey, AttributeType: 'S' }],
    KeySchema: [{ AttributeName: CACHE.partitionKey, KeyType: 'HASH' }],
  });
  const ttl = await client.send(new DescribeTableCommand({ TableName: config.cacheTable }));
  if (ttl.Table) {
    await client
      .send(new UpdateTimeToLiveCommand({ TableName: config.cacheTable, TimeToLiveSpecification: { AttributeName: CACHE.ttlAttribute, Enabled: true } }))
      .catch(() => undefined); // already enabled
  }
}
